"""One call from a ResultTable to the full analysis of a benchmark.

:func:`analyze` runs every estimator and test of METHODS.md on one metric's results and
returns an :class:`Analysis`: a typed :class:`~estimation.core.contract.SnapshotPayload`
(the sections the website, the API and ``manage.py analyze --json`` publish) and the
stage timings, which stay out of the payload so that the same input always gives the
same payload. A view that cannot be computed is a
:class:`~estimation.core.contract.NotApplicable` with a reason, never NaN.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from estimation.core import aggregates, significance, within_dataset
from estimation.core.advisor import advise, advisor_section
from estimation.core.contract import (
    SCHEMA_VERSION,
    AdvisorSection,
    AnalysisSettings,
    Board,
    BootstrapSummary,
    DatasetTests,
    EstimatorResult,
    Evaluation,
    ExcludedAlgorithm,
    Friedman,
    InputFacts,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    PairNote,
    PairwiseMatrix,
    RankIntervals,
    RankMatrixSection,
    RepeatedMeasuresAnova,
    ScoreSummary,
    SnapshotPayload,
    TukeyTable,
    WilcoxonSection,
    WilcoxonSummary,
    WinInterval,
    WinsSection,
    WithinDatasetSection,
    floats,
)
from estimation.core.control import control_comparison
from estimation.core.intervals import WIN_INTERVAL_METHOD, win_intervals
from estimation.core.power import advisor_power
from estimation.core.practical import practical_sections
from estimation.core.rank_inference import (
    TIE_DIGITS,
    RankInference,
    rank_intervals,
    rank_method_words,
)
from estimation.core.rankings import PreparedRankings, prepare_rankings
from estimation.core.registry import (
    ESTIMATOR_KEYS,
    WIN_RATE_INTERVAL_KIND,
    default_estimator_rule,
    estimator_get,
    interval_label,
)
from estimation.core.resampling import BIAS_CORRECTED_METHOD, bootstrap, evaluate_schemes
from estimation.core.sensitivity import board_sensitivity
from estimation.core.table import ResultTable
from estimation.core.verdict import board_order, board_verdict
from estimation.core.win_probability import fit_loo, fit_minimax, mle

__all__ = [
    "ADVISOR_DEFERRED",
    "ENGINE_VERSION",
    "UNCERTAINTY_DEFERRED",
    "UNCERTAINTY_GAVE_WAY",
    "Analysis",
    "AnalysisSettings",
    "CompletedBoard",
    "UncertaintyStopped",
    "analyze",
    "analyze_advisor",
    "analyze_uncertainty",
    "uncertainty_deferrable",
    "uncertainty_deferred",
    "uncertainty_failed",
    "uncertainty_pending",
]

# What the payload's advisor says when analyze() was asked to leave it to analyze_advisor()
# (the recompute service stores the advisor after the other sections are served).
ADVISOR_DEFERRED = "computed after the other sections (estimation.core.analysis.analyze_advisor)"
# What each estimator's bootstrap and the board's evaluation say when analyze() was asked
# to leave them to analyze_uncertainty() (the recompute service serves the board first).
# Pages show it as it is: plain words.
UNCERTAINTY_DEFERRED = (
    "being computed: the bootstrap intervals, P(best), the rank intervals and the "
    "held-out evaluation are added to these results in a moment"
)
# What they say on a version whose completion gave way to newer results: they are not
# coming (until a run finds this version's input current again), and the page says so.
UNCERTAINTY_GAVE_WAY = (
    "not computed for this version: newer results arrived before its bootstrap and "
    "evaluation were done (the latest version has them)"
)

# Any change to a number or to the payload's shape bumps this version; the golden test
# (tests/core/test_golden.py) pins the payload of two demos to it.
ENGINE_VERSION = "0.9.0"

# Within-dataset Tukey tables are stored with a snapshot up to this many pairs in all
# (they grow as datasets x algorithms^2); beyond, the dataset page computes one table
# on demand and the snapshot keeps the significance-aware ranks.
MAX_TUKEY_PAIRS = 2000
# The dataset x algorithm rank matrix is published for charts up to this many cells.
MAX_RANK_CELLS = 200_000
# The pairwise-wins matrix is stored up to this many pairs (m = 632 algorithms); above,
# the section is not applicable, with the reason: at m = 2000 it was 2 million pairs,
# 56 MB of a snapshot that no page draws (the tests' matrices carry the pairwise story).
MAX_WINS_PAIRS = 200_000

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Analysis:
    """The finished analysis: the typed payload, and how long each stage took (seconds)."""

    payload: SnapshotPayload
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.payload.to_json()


def _plain(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


class _Clock:
    """Stage timings and progress reports in one place."""

    def __init__(self, progress: Progress | None):
        self.progress = progress
        self.timings: dict[str, float] = {}
        self._stage: str | None = None
        self._started = time.perf_counter()

    def stage(self, name: str, fraction: float) -> None:
        now = time.perf_counter()
        if self._stage is not None:
            self.timings[self._stage] = now - self._started
        self._stage, self._started = name, now
        if self.progress is not None:
            self.progress(name, fraction)

    def finish(self) -> dict[str, float]:
        self.stage("done", 1.0)
        self.timings.pop("done", None)
        return self.timings


def analyze(
    table: ResultTable,
    settings: AnalysisSettings | None = None,
    progress: Progress | None = None,
    *,
    advisor: bool = True,
    uncertainty: bool = True,
) -> Analysis:
    """Every estimator and test of METHODS.md on one metric's results.

    Parameters
    ----------
    table : ResultTable
    settings : AnalysisSettings, optional
    progress : callable, optional
        ``progress(stage, fraction)`` is called as the work advances.
    advisor : bool, default True
        Whether to run the estimator advisor (METHODS 8: simulations, about 1 s at
        m = 20, n = 100). With False its section says :data:`ADVISOR_DEFERRED`, and
        :func:`analyze_advisor` computes the same section later (the recompute service
        serves the other sections first).
    uncertainty : bool, default True
        Whether to run the bootstrap and the held-out evaluation (most of the time at
        m = 20, n = 100). With False, where :func:`uncertainty_deferrable` allows it, each
        estimator's ``bootstrap`` and the board's ``evaluation`` say
        :data:`UNCERTAINTY_DEFERRED`, and :func:`analyze_uncertainty` completes the board
        later, to the same bytes as one call with True.

    Raises
    ------
    ValueError
        When the data cannot be analysed at all (fewer than two algorithms or no
        dataset left after the missing-data policy); the message says why.
    """
    settings = settings or AnalysisSettings()
    clock = _Clock(progress)
    clock.stage("ranking", 0.02)
    prepared = _prepared(table, settings)
    names = prepared.algorithms
    ranks = prepared.ranks
    m = ranks.shape[1]
    K = min(settings.k, prepared.known_positions)
    bootstrap_seed, evaluation_seed, advisor_seed = _seeds(settings)

    clock.stage("estimators", 0.05)
    estimators = _point_estimates(prepared, K)

    clock.stage("tests", 0.15)
    tests = _tests_across_datasets(prepared, settings)

    clock.stage("within_dataset", 0.3)
    aware_mean, within = _tests_within_datasets(prepared, settings)

    win_interval = _win_interval(prepared)
    recommended, recommended_by = default_estimator_rule(settings.default_estimator)
    inference: RankInference | NotApplicable
    if uncertainty or not uncertainty_deferrable(win_interval):
        boot, inference, evaluation = _uncertainty_stages(
            clock, prepared, K, settings, (bootstrap_seed, evaluation_seed), estimators
        )
    else:
        boot = dict.fromkeys(ESTIMATOR_KEYS, NotApplicable(UNCERTAINTY_DEFERRED))
        inference = evaluation = NotApplicable(UNCERTAINTY_DEFERRED)
    results = tuple(
        EstimatorResult(key=key, bootstrap=boot[key], **estimators[key]) for key in ESTIMATOR_KEYS
    )

    advice: AdvisorSection | NotApplicable = NotApplicable(ADVISOR_DEFERRED)
    if advisor:
        clock.stage("advisor", 0.9)
        advice = _advisor(prepared, K, advisor_seed, settings=settings)

    complete = prepared.kind == "score" or prepared.known_positions == m
    mean_rank = (
        floats(aggregates.mean_rank(ranks))
        if complete
        else NotApplicable("mean ranks need complete rankings; only the top positions are known")
    )
    board = Board(
        schema_version=SCHEMA_VERSION,
        engine_version=ENGINE_VERSION,
        input=_input_facts(table, prepared),
        settings=settings,
        k_used=K,
        recommended=recommended,
        recommended_by=recommended_by,
        estimators=results,
        win_interval=win_interval,
        mean_rank=mean_rank,
        significance_rank=aware_mean,
        friedman=tests.friedman,
        nemenyi=tests.nemenyi_summary,
        wilcoxon=tests.wilcoxon_summary,
        evaluation=evaluation,
        notes=tuple(_coverage_notes(table, prepared, K, settings)),
        control=control_comparison(
            names,
            mean_rank,
            prepared.n_datasets,
            wanted=settings.control,
            alpha=settings.alpha,
        ),
        scores=_score_summary(table, prepared),
    )
    practical_leader, practical = practical_sections(
        board, prepared.scores, seed=_practical_seed(settings), fold_scores=prepared.fold_scores
    )
    board = replace(board, sensitivity=board_sensitivity(board), practical=practical_leader)
    board = _with_answer(board, inference)
    payload = SnapshotPayload(
        schema_version=SCHEMA_VERSION,
        engine_version=ENGINE_VERSION,
        board=board,
        wins=_wins(names, ranks),
        nemenyi=tests.nemenyi,
        wilcoxon=tests.wilcoxon,
        rank_matrix=_rank_matrix(prepared),
        within_dataset=within,
        advisor=advice,
        practical=practical,
    )
    return Analysis(payload=payload, timings=clock.finish())


def _seeds(settings: AnalysisSettings) -> tuple[int, int, int]:
    """Seeds of the bootstrap, the evaluation and the advisor, from the settings' seed (the
    advisor's is drawn last, so the other two are those of engines before it)."""
    rng = np.random.default_rng(settings.seed)
    bootstrap_seed, evaluation_seed = rng.integers(0, 2**63 - 1, size=2)
    return int(bootstrap_seed), int(evaluation_seed), int(rng.integers(0, 2**63 - 1))


def _practical_seed(settings: AnalysisSettings) -> int:
    """The seed of the practical-equivalence draws: the fourth from the settings' seed
    (the three of :func:`_seeds` are unchanged)."""
    return int(np.random.default_rng(settings.seed).integers(0, 2**63 - 1, size=4)[3])


def _first_two(prepared: PreparedRankings, K: int, settings: AnalysisSettings) -> list[int]:
    """The board's first two algorithms under its default estimator (Board.order's rule:
    P(win) to TIE_DIGITS decimals, then mean rank, then name)."""
    key = default_estimator_rule(settings.default_estimator)[0]
    p = np.round(np.array(_point_estimates(prepared, K)[key]["p"], dtype=float), TIE_DIGITS)
    mean_rank = prepared.ranks.mean(axis=0)
    names = np.array(prepared.algorithms, dtype=str)
    return np.lexsort((names, mean_rank, -p)).tolist()[:2]


def _advisor(
    prepared: PreparedRankings,
    K: int,
    seed: int,
    stop: Callable[[], bool] | None = None,
    *,
    settings: AnalysisSettings,
) -> AdvisorSection | NotApplicable:
    result = advise(
        prepared.ranks, rng=seed, K=K, known_positions=prepared.known_positions, stop=stop
    )
    power = None
    if result.not_applicable is None:
        first, second = _first_two(prepared, K, settings)
        # its own stream (from the advisor's seed), so the simulations above are unchanged
        power_seed = int(np.random.default_rng([seed, 1]).integers(0, 2**63 - 1))
        power = advisor_power(
            prepared.scores,
            first,
            second,
            prepared.algorithms,
            alpha=settings.alpha,
            seed=power_seed,
        )
    return advisor_section(result, prepared.algorithms, seed=seed, power=power)


def analyze_advisor(
    table: ResultTable,
    settings: AnalysisSettings | None = None,
    *,
    stop: Callable[[], bool] | None = None,
) -> AdvisorSection | NotApplicable:
    """The advisor section of :func:`analyze`, alone: the same numbers, bit for bit.

    Raises ``ValueError`` as :func:`analyze` does when the data cannot be analysed, and
    ``advisor.AdvisorStopped`` when ``stop`` (asked between blocks of simulations)
    returns true.
    """
    settings = settings or AnalysisSettings()
    prepared = _prepared(table, settings)
    K = min(settings.k, prepared.known_positions)
    return _advisor(prepared, K, _seeds(settings)[2], stop, settings=settings)


def _prepared(table: ResultTable, settings: AnalysisSettings) -> PreparedRankings:
    """The rankings every stage reads, under the settings' missing-data policy."""
    return prepare_rankings(
        table,
        missing=settings.missing,
        tie_tol=settings.tie_tol,
        min_coverage=settings.min_coverage,
    )


def uncertainty_deferrable(win_interval: WinInterval | NotApplicable) -> bool:
    """Whether the board may be served before its bootstrap: only when the win rate's
    band is its exact interval (:func:`verdict.win_band` falls back to the win rate's
    bootstrap interval when that is not applicable), so that a served board always
    has one interval; every other estimator's band says "being computed" meanwhile."""
    return isinstance(win_interval, WinInterval)


def uncertainty_deferred(board: Board) -> bool:
    """Whether ``board`` came from ``analyze(..., uncertainty=False)`` and still lacks its
    bootstrap and evaluation, being computed or given way to newer results
    (:func:`analyze_uncertainty` completes it)."""
    return board.evaluation in (
        NotApplicable(UNCERTAINTY_DEFERRED),
        NotApplicable(UNCERTAINTY_GAVE_WAY),
    )


def uncertainty_pending(board: Board) -> bool:
    """Whether ``board``'s bootstrap and evaluation are being computed now (the page says
    so and refetches); not when its completion gave way to newer results."""
    return board.evaluation == NotApplicable(UNCERTAINTY_DEFERRED)


@dataclass(frozen=True)
class CompletedBoard:
    """What :func:`analyze_uncertainty` returns: the board, and its stage timings (s)."""

    board: Board
    timings: dict[str, float] = field(default_factory=dict)


class UncertaintyStopped(Exception):
    """:func:`analyze_uncertainty` gave way: its ``stop`` returned true."""


def analyze_uncertainty(
    table: ResultTable,
    settings: AnalysisSettings | None,
    board: Board,
    *,
    stop: Callable[[], bool] | None = None,
    progress: Progress | None = None,
) -> CompletedBoard:
    """``board`` (from ``analyze(table, settings, uncertainty=False)``) completed with each
    estimator's bootstrap, the evaluation and the verdict they change: the board of one
    ``analyze(table, settings)`` call, byte for byte (the same seeds, and the full-data
    fits read from the board), with the stage timings.

    A board that is not deferred is returned as it is. ``stop`` is asked before each of
    the two stages; when it returns true, :class:`UncertaintyStopped` is raised.
    """
    settings = settings or AnalysisSettings()
    if not uncertainty_deferred(board):
        return CompletedBoard(board=board)
    clock = _Clock(progress)
    clock.stage("ranking", 0.02)
    prepared = _prepared(table, settings)
    K = min(settings.k, prepared.known_positions)
    bootstrap_seed, evaluation_seed, _ = _seeds(settings)
    fits = {r.key: {"p": r.p, "weights": r.weights} for r in board.estimators}
    boot, inference, evaluation = _uncertainty_stages(
        clock, prepared, K, settings, (bootstrap_seed, evaluation_seed), fits, stop
    )
    return CompletedBoard(
        board=_completed(board, boot, inference, evaluation), timings=clock.finish()
    )


def _uncertainty_stages(
    clock: _Clock,
    prepared: PreparedRankings,
    K: int,
    settings: AnalysisSettings,
    seeds: tuple[int, int],
    fits: dict[str, dict[str, Any]],
    stop: Callable[[], bool] | None = None,
) -> tuple[
    dict[str, BootstrapSummary | NotApplicable],
    RankInference | NotApplicable,
    Evaluation | NotApplicable,
]:
    """The "bootstrap" (with the rank intervals) and "evaluation" stages of :func:`analyze` and
    :func:`analyze_uncertainty` (``seeds``: theirs, from :func:`_seeds`); ``stop`` is
    asked before each, and :class:`UncertaintyStopped` raised when it returns true."""
    bootstrap_seed, evaluation_seed = seeds
    if stop is not None and stop():
        raise UncertaintyStopped
    clock.stage("bootstrap", 0.4)
    boot, inference = _uncertainty(prepared, K, settings, bootstrap_seed, fits)
    if stop is not None and stop():
        raise UncertaintyStopped
    clock.stage("evaluation", 0.75)
    evaluation = _evaluation(prepared, K, settings, evaluation_seed)
    return boot, inference, evaluation


def uncertainty_failed(board: Board, reason: str) -> Board:
    """A deferred ``board`` whose completion failed: its bootstrap and evaluation say
    ``reason`` instead of "being computed" (the rest of the board stands)."""
    failed = NotApplicable(reason)
    return _completed(board, dict.fromkeys(ESTIMATOR_KEYS, failed), failed, failed)


def _completed(
    board: Board,
    boot: dict[str, BootstrapSummary | NotApplicable],
    inference: RankInference | NotApplicable,
    evaluation: Evaluation | NotApplicable,
) -> Board:
    complete = replace(
        board,
        estimators=tuple(replace(r, bootstrap=boot[r.key]) for r in board.estimators),
        evaluation=evaluation,
    )
    return _with_answer(complete, inference)


def _with_answer(board: Board, inference: RankInference | NotApplicable) -> Board:
    """``board`` with its rank intervals and the verdict that reads them."""
    ranked = replace(board, ranks=_rank_section(board, inference))
    return replace(ranked, verdict=board_verdict(ranked))


def _rank_section(
    board: Board, inference: RankInference | NotApplicable
) -> RankIntervals | NotApplicable:
    """The board's rank intervals: plausible winners in the order the rows are listed."""
    if isinstance(inference, NotApplicable):
        return inference
    key = board.recommended
    names = board.algorithms
    order = board_order(board, key)
    return RankIntervals(
        estimator=key,
        target=f"the rank (1 = largest) of each algorithm's {estimator_get(key).estimand}",
        method=rank_method_words(inference),
        level=inference.level,
        lower=tuple(int(v) for v in inference.lower),
        upper=tuple(int(v) for v in inference.upper),
        plausible_winners=tuple(names[i] for i in order if inference.best[i]),
    )


def _score_summary(table: ResultTable, prepared: PreparedRankings) -> ScoreSummary | NotApplicable:
    """Mean and SD over the datasets used of each algorithm's score, in the metric's units."""
    if table.kind != "score":
        return NotApplicable("the input is rankings, not scores")
    row_of = {d: i for i, d in enumerate(table.datasets)}
    col_of = {a: j for j, a in enumerate(table.algorithms)}
    rows = [row_of[d] for d in prepared.datasets]
    cols = [col_of[a] for a in prepared.algorithms]
    values = np.asarray(table.values, dtype=float)[np.ix_(rows, cols)]
    present = np.isfinite(values)
    n = present.sum(axis=0)
    # Each column divided by a power of two (exact) that keeps its sums and squares
    # finite near the float limits; the results are scaled back.
    exponent = np.frexp(np.nanmax(np.where(present, np.abs(values), 0.0), axis=0))[1]
    values = np.ldexp(values, -exponent)
    total = np.where(present, values, 0.0).sum(axis=0)
    mean = np.divide(total, n, out=np.full(n.shape, np.nan), where=n > 0)
    squares = np.where(present, (values - mean) ** 2, 0.0).sum(axis=0)
    sd = np.sqrt(np.divide(squares, n - 1, out=np.full(n.shape, np.nan), where=n > 1))
    with np.errstate(over="ignore"):
        mean, sd = np.ldexp(mean, exponent), np.ldexp(sd, exponent)
    beyond = np.isinf(mean) | np.isinf(sd)
    if beyond.any():
        j = int(np.flatnonzero(beyond)[0])
        largest = float(np.nanmax(np.abs(np.ldexp(values[:, j], exponent[j]))))
        return NotApplicable(
            f"the scores of {prepared.algorithms[j]!r} (as large as {largest:.6g}) have a "
            "mean or standard deviation beyond the float range (about 1.8e308)"
        )
    return ScoreSummary(mean=floats(mean), sd=floats(sd), n_datasets=tuple(int(v) for v in n))


def _input_facts(table: ResultTable, prepared: PreparedRankings) -> InputFacts:
    ranks = prepared.ranks
    first = ranks.min(axis=1, keepdims=True)
    return InputFacts(
        kind="rank" if prepared.kind == "rank" else "score",
        direction="rank"
        if table.kind == "rank"
        else ("higher" if table.higher_is_better else "lower"),
        algorithms=tuple(prepared.algorithms),
        datasets=tuple(prepared.datasets),
        n_datasets=table.n_datasets,
        n_datasets_used=prepared.n_datasets,
        known_positions=int(prepared.known_positions),
        has_folds=prepared.fold_scores is not None,
        n_tied_first=int(((ranks == first).sum(axis=1) > 1).sum()),
        excluded_algorithms=tuple(
            ExcludedAlgorithm(algorithm=a, coverage=float(prepared.coverage[a]))
            for a in prepared.excluded_algorithms
        ),
        dropped_datasets=tuple(prepared.dropped_datasets),
        dropped_by={a: int(c) for a, c in prepared.dropped_by.items()},
    )


def _point_estimates(prepared: PreparedRankings, K: int) -> dict[str, dict[str, Any]]:
    """Each estimator's fields of :class:`EstimatorResult` but its bootstrap."""
    ranks, known = prepared.ranks, prepared.known_positions
    out: dict[str, dict[str, Any]] = {}
    loo_kl, loo_tv, loo_brier = fit_loo(ranks, K=K, known_positions=known)
    minimax = fit_minimax(ranks, K=K, known_positions=known)
    for fit in (mle(ranks), loo_kl, loo_tv, loo_brier, minimax):
        entry: dict[str, Any] = {
            "p": floats(fit.p),
            "K": int(fit.K),
            "weights": tuple(float(v) for v in fit.weights),
        }
        if fit.loss is not None or fit.loss_mle is not None:
            entry.update(loss=_plain(fit.loss), loss_mle=_plain(fit.loss_mle))
        if fit.n_clipped is not None:
            entry["n_clipped"] = int(fit.n_clipped)
        if fit.n_terms is not None:
            entry["n_terms"] = int(fit.n_terms)
        out[fit.method] = entry
    out["minimax"].update(
        {key: _plain(minimax.extra[key]) for key in ("bound", "bound_mle", "bound_k2")}
    )
    out["borda"] = {"p": floats(aggregates.borda_probabilities(ranks)), "K": None, "weights": None}
    pl_fit = aggregates.plackett_luce(ranks, known_positions=known)
    out["plackett_luce"] = {
        "p": floats(pl_fit.worths),
        "K": None,
        "weights": None,
        "log_likelihood": _plain(pl_fit.log_likelihood),
        "iterations": int(pl_fit.iterations),
        "converged": bool(pl_fit.converged),
        "prior_strength": float(pl_fit.prior_strength),
    }
    return out


@dataclass(frozen=True)
class _AcrossDatasets:
    friedman: Friedman | NotApplicable
    nemenyi_summary: NemenyiSummary | NotApplicable
    nemenyi: NemenyiSection | NotApplicable
    wilcoxon_summary: WilcoxonSummary | NotApplicable
    wilcoxon: WilcoxonSection | NotApplicable


def _tests_across_datasets(
    prepared: PreparedRankings, settings: AnalysisSettings
) -> _AcrossDatasets:
    names, ranks, known = prepared.algorithms, prepared.ranks, prepared.known_positions
    friedman: Friedman | NotApplicable
    nemenyi_summary: NemenyiSummary | NotApplicable
    nemenyi: NemenyiSection | NotApplicable
    reason = significance.rank_test_not_applicable(ranks, known_positions=known)
    if reason is not None:
        friedman = nemenyi_summary = nemenyi = NotApplicable(reason)
    else:
        result = significance.friedman(ranks, known_positions=known)
        assert result.statistic is not None and result.pvalue is not None
        assert result.iman_davenport_df is not None
        infinite = NotApplicable(str(result.iman_davenport_not_applicable))
        friedman = Friedman(
            n_datasets=int(result.n_datasets),
            statistic=float(result.statistic),
            statistic_uncorrected=float(result.statistic_uncorrected or 0.0),
            pvalue=float(result.pvalue),
            df=int(result.df or 0),
            iman_davenport=infinite
            if result.iman_davenport is None
            else float(result.iman_davenport),
            iman_davenport_uncorrected=_plain(result.iman_davenport_uncorrected),
            iman_davenport_pvalue=infinite
            if result.iman_davenport_pvalue is None
            else float(result.iman_davenport_pvalue),
            iman_davenport_df=(
                int(result.iman_davenport_df[0]),
                int(result.iman_davenport_df[1]),
            ),
            exact_pvalue=result.exact_pvalue,
        )
        nemenyi_test = significance.nemenyi(ranks, alpha=settings.alpha, known_positions=known)
        assert nemenyi_test.significant is not None and nemenyi_test.mean_ranks is not None
        assert nemenyi_test.pvalues is not None  # applicable, checked above
        groups = significance.indistinguishable_groups(
            nemenyi_test.significant, nemenyi_test.mean_ranks
        )
        nemenyi_summary = NemenyiSummary(
            alpha=settings.alpha,
            q_alpha=float(nemenyi_test.q_alpha or 0.0),
            critical_difference=float(nemenyi_test.critical_difference or 0.0),
            letters=_letters(groups),
        )
        nemenyi = NemenyiSection(
            algorithms=names,
            pvalues=PairwiseMatrix.from_square(nemenyi_test.pvalues),
            groups=_bars(groups),
        )
    wilcoxon_summary: WilcoxonSummary | NotApplicable
    wilcoxon: WilcoxonSection | NotApplicable
    if prepared.scores is None:
        wilcoxon_summary = wilcoxon = NotApplicable(
            "ranking-only input has no scores to pair across datasets"
        )
    elif prepared.n_datasets < 2:
        wilcoxon_summary = wilcoxon = NotApplicable("a single dataset gives no paired differences")
    else:
        signed_rank = significance.wilcoxon_pairwise(
            prepared.scores, correction=settings.correction, alpha=settings.alpha
        )
        mean_ranks = prepared.ranks.mean(axis=0)
        groups = significance.indistinguishable_groups(signed_rank.significant, mean_ranks)
        wilcoxon_summary = WilcoxonSummary(
            alpha=settings.alpha, correction=settings.correction, letters=_letters(groups)
        )
        wilcoxon = WilcoxonSection(
            algorithms=names,
            pvalues=PairwiseMatrix.from_square(signed_rank.pvalues_corrected),
            pvalues_raw=PairwiseMatrix.from_square(signed_rank.pvalues),
            rank_biserial=PairwiseMatrix.from_square(signed_rank.effect_size),
            groups=_bars(groups),
            not_applicable_pairs=tuple(
                PairNote(a=a, b=b, reason=reason)
                for a, b, reason in signed_rank.not_applicable_pairs()
            ),
        )
    return _AcrossDatasets(friedman, nemenyi_summary, nemenyi, wilcoxon_summary, wilcoxon)


def _letters(groups: significance.IndistinguishableGroups) -> tuple[str, ...] | NotApplicable:
    """Compact letters, or why they would not be readable at this size."""
    if groups.letters is None:
        return NotApplicable(str(groups.letters_not_applicable))
    return tuple(groups.letters)


def _bars(
    groups: significance.IndistinguishableGroups,
) -> tuple[tuple[int, ...], ...] | NotApplicable:
    """CD bars (indices), or why a diagram would not be readable at this size."""
    if groups.bars is None:
        return NotApplicable(str(groups.bars_not_applicable))
    return tuple(tuple(int(i) for i in bar) for bar in groups.bars)


def _tests_within_datasets(
    prepared: PreparedRankings, settings: AnalysisSettings
) -> tuple[tuple[float | None, ...] | NotApplicable, WithinDatasetSection | NotApplicable]:
    """The board's mean significance-aware ranks, and the within-dataset section."""
    names = prepared.algorithms
    if prepared.fold_scores is None:
        reason = NotApplicable("the results have no folds")
        return reason, reason
    folds = prepared.fold_scores
    aware = within_dataset.significance_aware_ranks(folds, alpha=settings.alpha)
    n, m = len(prepared.datasets), len(names)
    tables = n * m * (m - 1) // 2 <= MAX_TUKEY_PAIRS
    with_table = [i for i in range(n) if tables and i not in aware.not_applicable]
    tukey = dict(
        zip(
            with_table,
            within_dataset.repeated_measures_tukey_batch(
                [_complete_folds(folds[i]) for i in with_table], alpha=settings.alpha
            ),
            strict=True,
        )
    )
    entries = []
    for i, dataset in enumerate(prepared.datasets):
        table: TukeyTable | NotApplicable | None = None
        anova: RepeatedMeasuresAnova | NotApplicable
        if i in aware.not_applicable:
            table = anova = NotApplicable(aware.not_applicable[i])
        else:
            anova = _anova(_complete_folds(folds[i]))
        if i in tukey:
            signed_rank = within_dataset.fold_wilcoxon_pairwise(
                _complete_folds(folds[i]), correction=settings.correction, alpha=settings.alpha
            )
            table = (
                _tukey_table(tukey[i], signed_rank)
                if tukey[i].not_applicable is None
                else NotApplicable(str(tukey[i].not_applicable))
            )
        entries.append(
            DatasetTests(
                dataset=dataset,
                n_folds=int(aware.n_folds[i]),
                significance_rank=floats(aware.ranks[i]),
                tukey=table,
                anova=anova,
            )
        )
    note = None
    if not tables:
        note = (
            f"pairwise Tukey tables are computed on demand: {n} datasets x "
            f"{m * (m - 1) // 2} pairs exceed the {MAX_TUKEY_PAIRS} stored with a snapshot"
        )
    section = WithinDatasetSection(algorithms=names, datasets=tuple(entries), note=note)
    return floats(aware.mean_ranks), section


def _complete_folds(fold_scores: np.ndarray) -> np.ndarray:
    """The folds on which every algorithm has a score (datasets may have fewer folds)."""
    return fold_scores[np.isfinite(fold_scores).all(axis=1)]


def _tukey_table(
    result: within_dataset.TukeyResult, signed_rank: significance.PairwiseSignedRank
) -> TukeyTable:
    """Tukey's difference, Cohen's d and p-value per pair (i < j), and the per-fold
    Wilcoxon test (corrected p-value, rank-biserial effect) beside it."""
    assert result.mean_difference is not None and result.cohen_d is not None
    assert result.pvalues is not None and result.significant is not None  # folds checked
    i, j = np.triu_indices(result.mean_difference.shape[0], 1)
    lower, upper = within_dataset.tukey_intervals(result)
    return TukeyTable(
        diff=floats(result.mean_difference[i, j]),
        cohens_d=floats(result.cohen_d[i, j]),
        pvalue=floats(result.pvalues[i, j]),
        significant=tuple(bool(v) for v in result.significant[i, j]),
        wilcoxon_pvalue=floats(signed_rank.pvalues_corrected[i, j]),
        rank_biserial=floats(signed_rank.effect_size[i, j]),
        ci_lower=floats(lower[i, j]),
        ci_upper=floats(upper[i, j]),
    )


def _anova(fold_scores: np.ndarray) -> RepeatedMeasuresAnova | NotApplicable:
    result = within_dataset.repeated_measures_anova(fold_scores)
    if result.df is None:
        return NotApplicable(str(result.note))
    return RepeatedMeasuresAnova(
        statistic=result.statistic, pvalue=result.pvalue, df=result.df, note=result.note
    )


WIN_INTERVAL_LEVEL = 0.95
BOOTSTRAP_LEVEL = 0.95  # of each estimator's own interval
RANK_LEVEL = 0.95  # simultaneous, of the rank intervals
# Fewer replicates give percentile bands that are mostly noise (with 1, a point).
MIN_BOOTSTRAP = 100


def _win_interval(prepared: PreparedRankings) -> WinInterval:
    intervals = win_intervals(prepared.ranks, level=WIN_INTERVAL_LEVEL)
    return WinInterval(
        level=intervals.level,
        lower=floats(intervals.lower),
        upper=floats(intervals.upper),
        simultaneous_lower=floats(intervals.simultaneous_lower),
        simultaneous_upper=floats(intervals.simultaneous_upper),
        method=WIN_INTERVAL_METHOD,
        kind=WIN_RATE_INTERVAL_KIND,
        label=interval_label(WIN_RATE_INTERVAL_KIND, intervals.level, source="exact"),
    )


def _uncertainty(
    prepared: PreparedRankings,
    K: int,
    settings: AnalysisSettings,
    seed: int,
    estimators: dict[str, dict[str, Any]],
) -> tuple[dict[str, BootstrapSummary | NotApplicable], RankInference | NotApplicable]:
    """Each estimator's own interval and P(best), and the rank intervals of the
    recommended one (from the same replicates), or why there are none."""
    reason: NotApplicable | None = None
    if settings.bootstrap == 0:
        reason = NotApplicable("the bootstrap is switched off (0 replicates)")
    elif settings.bootstrap < MIN_BOOTSTRAP:
        reason = NotApplicable(
            f"{settings.bootstrap} bootstrap replicates are too few for a 95 % band "
            f"(at least {MIN_BOOTSTRAP} are needed); none is shown"
        )
    elif prepared.n_datasets < 2:
        reason = NotApplicable("a single dataset: resampling datasets shows no spread")
    if reason is not None:
        return dict.fromkeys(ESTIMATOR_KEYS, reason), reason
    recommended = default_estimator_rule(settings.default_estimator)[0]
    result = bootstrap(
        prepared.ranks,
        rng=seed,
        n_boot=settings.bootstrap,
        K=K,
        known_positions=prepared.known_positions,
        # The full-data fits of _point_estimates: the bootstrap need not fit them again.
        full_data={key: (entry["p"], entry["weights"]) for key, entry in estimators.items()},
        level=BOOTSTRAP_LEVEL,
        keep=(recommended,),
    )
    boot: dict[str, BootstrapSummary | NotApplicable] = {}
    for scheme, summary in result.schemes.items():
        kind = estimator_get(scheme).interval_kind
        boot[scheme] = BootstrapSummary(
            lower=floats(summary.lower),
            upper=floats(summary.upper),
            p_best=floats(summary.p_best),
            level=BOOTSTRAP_LEVEL,
            method=BIAS_CORRECTED_METHOD,
            kind=kind,
            label=interval_label(kind, BOOTSTRAP_LEVEL),
        )
    chosen = result.schemes[recommended]
    assert chosen.replicates is not None  # kept above
    inference = rank_intervals(
        chosen.estimate, chosen.replicates, n_datasets=prepared.n_datasets, level=RANK_LEVEL
    )
    return boot, inference


def _evaluation(
    prepared: PreparedRankings, K: int, settings: AnalysisSettings, seed: int
) -> Evaluation | NotApplicable:
    if prepared.n_datasets < 2:
        return NotApplicable("a single dataset: nothing to hold out")
    result = evaluate_schemes(
        prepared.ranks,
        rng=seed,
        n_folds=settings.evaluation_folds,
        n_repeats=settings.evaluation_repeats,
        K=K,
        known_positions=prepared.known_positions,
        alpha=settings.alpha,
    )

    def plain(values: dict[str, Any]) -> dict[str, float | None]:
        return {key: _plain(value) for key, value in values.items()}

    versus = result.versus_mle
    return Evaluation(
        log_loss=plain(result.mean_log_loss),
        brier=plain(result.mean_brier),
        tv=plain(result.mean_tv_loss),
        best=result.best_log,
        win_share=plain(result.win_share),
        difference_vs_mle={
            key: None if test is None else _plain(test.difference) for key, test in versus.items()
        },
        pvalue_vs_mle={
            key: None if test is None else _plain(test.pvalue) for key, test in versus.items()
        },
        predicts_best=result.predicts_best,
        verdict=result.verdict,
        alpha=result.alpha,
        test_train_ratio=result.test_train_ratio,
        n_folds=int(result.n_folds),
        n_repeats=int(result.n_repeats),
        leave_one_out=bool(result.leave_one_out),
    )


def _wins(names: tuple[str, ...], ranks) -> WinsSection | NotApplicable:
    m = len(names)
    pairs = m * (m - 1) // 2
    if pairs > MAX_WINS_PAIRS:
        return NotApplicable(
            f"{m} algorithms make {pairs} pairs, more than the {MAX_WINS_PAIRS} pairwise "
            "wins stored with a snapshot"
        )
    return WinsSection(
        algorithms=names, wins=PairwiseMatrix.from_square(aggregates.pairwise_win_matrix(ranks))
    )


def _rank_matrix(prepared: PreparedRankings) -> RankMatrixSection | NotApplicable:
    ranks = prepared.ranks
    if ranks.size > MAX_RANK_CELLS:
        return NotApplicable(
            f"{ranks.shape[0]} datasets x {ranks.shape[1]} algorithms exceed the "
            f"{MAX_RANK_CELLS} ranks stored with a snapshot"
        )
    return RankMatrixSection(
        algorithms=prepared.algorithms,
        datasets=prepared.datasets,
        ranks=tuple(tuple(row) for row in ranks.tolist()),
    )


def _count(n: int, noun: str) -> str:
    return f"1 {noun} has" if n == 1 else f"{n} {noun}s have"


def _coverage_notes(
    table: ResultTable, prepared: PreparedRankings, K: int, settings: AnalysisSettings
) -> list[str]:
    """What every view should say in plain words about the data behind the numbers."""
    notes = []
    if prepared.dropped_datasets:
        culprits = ", ".join(
            f"{a} ({c})" for a, c in sorted(prepared.dropped_by.items(), key=lambda kv: -kv[1])
        )
        notes.append(
            f"{len(prepared.dropped_datasets)} of {table.n_datasets} datasets were left out "
            f"because some algorithms have no result there: {culprits}."
        )
    without = [a for a in prepared.excluded_algorithms if prepared.coverage[a] == 0]
    scarce = [a for a in prepared.excluded_algorithms if prepared.coverage[a] > 0]
    if scarce:
        notes.append(
            f"{len(scarce)} algorithms have results on fewer than "
            f"{settings.min_coverage:.0%} of the datasets and are not ranked: "
            f"{', '.join(scarce)}."
        )
    if without:
        notes.append(
            f"{_count(len(without), 'algorithm')} no result on any dataset and "
            f"{'is' if len(without) == 1 else 'are'} not ranked: {', '.join(without)}."
        )
    if prepared.n_datasets == 1:
        notes.append(
            "With a single dataset there is nothing to leave out: the leave-one-out "
            "estimators equal the win rate."
        )
    ranks = prepared.ranks
    tied_first = int(((ranks == ranks.min(axis=1, keepdims=True)).sum(axis=1) > 1).sum())
    if tied_first:
        notes.append(
            f"{_count(tied_first, 'dataset')} a tie for first place; a shared win counts "
            "1/t for each of the t winners."
        )
    if prepared.kind == "rank" and prepared.known_positions < prepared.n_algorithms:
        notes.append(
            f"Only the top {prepared.known_positions} positions are known on every dataset: "
            f"estimators use positions 1..{K}; score-based tests do not apply."
        )
    if settings.k > K:
        notes.append(f"K was lowered from {settings.k} to {K}, the number of known positions.")
    if settings.control is not None and settings.control not in prepared.algorithms:
        notes.append(
            f"The control {settings.control!r} is not among the ranked algorithms; the "
            "comparison with a control uses the best mean rank instead."
        )
    return notes
