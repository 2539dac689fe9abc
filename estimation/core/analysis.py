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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from estimation.core import aggregates, pairwise_scope
from estimation.core.advisor import advise, advisor_section
from estimation.core.board_input import coverage_notes, input_facts, score_summary
from estimation.core.contract import (
    SCHEMA_VERSION,
    AdvisorPower,
    AdvisorSection,
    AnalysisSettings,
    Board,
    BootstrapSummary,
    ControlComparison,
    DatasetScoresSection,
    EstimatorResult,
    Evaluation,
    FoldsPower,
    HierarchicalComparison,
    NemenyiSummary,
    NotApplicable,
    PairwiseMatrix,
    PracticalSection,
    RankIntervals,
    RankMatrixSection,
    SnapshotPayload,
    WinInterval,
    WinsSection,
    WithinDatasetSection,
    floats,
    plain_float,
)
from estimation.core.control import control_comparison
from estimation.core.hierarchical import pair_folds_power
from estimation.core.mean_rank_inference import MEAN_RANK_METHODS, QUESTION_WORDS
from estimation.core.power import advisor_power
from estimation.core.practical import practical_sections
from estimation.core.rank_inference import (
    TIE_DIGITS,
    RankInference,
    rank_method_words,
)
from estimation.core.rankings import PreparedRankings, prepare_rankings
from estimation.core.registry import (
    ESTIMATOR_KEYS,
    default_estimator_rule,
    estimator_get,
)
from estimation.core.sensitivity import board_sensitivity
from estimation.core.significance_sections import (
    AcrossDatasets,
    tests_across_datasets,
    tests_within_datasets,
)
from estimation.core.table import ResultTable
from estimation.core.uncertainty_sections import (
    bootstrap_sections,
    evaluation_section,
    mean_rank_answer,
    win_interval_section,
)
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
    "practical_seed",
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
    "being computed: the bootstrap intervals, P(best) and the held-out evaluation (and "
    "the rank intervals of top-K lists) are added to these results in a moment"
)
# What they say on a version whose completion gave way to newer results: they are not
# coming (until a run finds this version's input current again), and the page says so.
UNCERTAINTY_GAVE_WAY = (
    "not computed for this version: newer results arrived before its bootstrap and "
    "evaluation were done (the latest version has them)"
)

# Any change to a number or to the payload's shape bumps this version; the golden test
# (tests/core/test_golden.py) pins the payload of two demos to it.
ENGINE_VERSION = "0.16.1"

# The dataset x algorithm rank matrix is published for charts up to this many cells.
MAX_RANK_CELLS = 200_000
# The dataset x algorithm values the analysis ranked are stored up to this many cells
# (1,540 algorithms x 130 datasets; about 4 MB of JSON at the most): O(m·n), the size of
# the input itself, which issue 25 allows where an O(m²) matrix is not.
MAX_SCORE_CELLS = 200_000
# Every pairwise section (wins, Nemenyi, Wilcoxon) holds every pair up to this many
# algorithms, and above it the pairs of the first ones by mean rank (pairwise_scope.py).
MAX_PAIRWISE_ALGORITHMS = pairwise_scope.MAX_PAIRWISE_ALGORITHMS

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Analysis:
    """The finished analysis: the typed payload, and how long each stage took (seconds)."""

    payload: SnapshotPayload
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.payload.to_json()


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
    names, ranks = prepared.algorithms, prepared.ranks
    K = min(settings.k, prepared.known_positions)
    bootstrap_seed, evaluation_seed, advisor_seed = _seeds(settings)

    clock.stage("estimators", 0.05)
    estimators = _point_estimates(prepared, K)

    clock.stage("tests", 0.15)
    top = pairwise_scope.pairwise_top(names, ranks)
    tests = tests_across_datasets(prepared, settings, top)

    clock.stage("within_dataset", 0.3)
    aware_mean, within = tests_within_datasets(prepared, settings)
    # who is best on average needs no bootstrap: on the first render too
    answer = mean_rank_answer(prepared)

    win_interval = win_interval_section(prepared)
    if uncertainty or not uncertainty_deferrable(win_interval):
        boot, inference, evaluation = _uncertainty_stages(
            clock, prepared, K, settings, (bootstrap_seed, evaluation_seed), estimators
        )
    else:
        boot = dict.fromkeys(ESTIMATOR_KEYS, NotApplicable(UNCERTAINTY_DEFERRED))
        inference = evaluation = NotApplicable(UNCERTAINTY_DEFERRED)
    results = tuple(replace(estimators[key], bootstrap=boot[key]) for key in ESTIMATOR_KEYS)

    if advisor:
        clock.stage("advisor", 0.9)
    used = _used_values(table, prepared)
    board = _board(
        table, prepared, settings, used, K, results, (win_interval, evaluation), aware_mean, tests
    )
    practical_leader, practical = practical_sections(
        board, prepared.scores, seed=_practical_seed(settings), fold_scores=prepared.fold_scores
    )
    board = replace(board, sensitivity=board_sensitivity(board), practical=practical_leader)
    board = _with_answer(board, inference if answer is None else answer)
    hierarchical = practical.hierarchical if isinstance(practical, PracticalSection) else None
    advice = (
        _advisor(
            prepared,
            K,
            advisor_seed,
            settings=settings,
            estimators=estimators,
            hierarchical=hierarchical,
        )
        if advisor
        else NotApplicable(ADVISOR_DEFERRED)
    )
    payload = _payload(board, tests, top, prepared, used, within)
    payload = replace(payload, advisor=advice, practical=practical)
    return Analysis(payload=payload, timings=clock.finish())


def _payload(
    board: Board,
    tests: AcrossDatasets,
    top: np.ndarray | None,
    prepared: PreparedRankings,
    used: np.ndarray,
    within: WithinDatasetSection | NotApplicable,
) -> SnapshotPayload:
    """The payload around ``board``; its practical and advisor sections are the caller's
    to set."""
    return SnapshotPayload(
        schema_version=SCHEMA_VERSION,
        engine_version=ENGINE_VERSION,
        board=board,
        wins=_wins(prepared.algorithms, prepared.ranks, top),
        nemenyi=tests.nemenyi,
        wilcoxon=tests.wilcoxon,
        rank_matrix=_rank_matrix(prepared),
        within_dataset=within,
        dataset_scores=_dataset_scores(used, prepared),
        pairwise=tests.scope,
    )


def _board(
    table: ResultTable,
    prepared: PreparedRankings,
    settings: AnalysisSettings,
    used: np.ndarray,
    K: int,
    results: tuple[EstimatorResult, ...],
    uncertainty: tuple[WinInterval, Evaluation | NotApplicable],
    aware_mean: tuple[float | None, ...] | NotApplicable,
    tests: AcrossDatasets,
) -> Board:
    """The board's facts, estimates and tests, before the answer and the verdict."""
    ranks = prepared.ranks
    complete = prepared.kind == "score" or prepared.known_positions == ranks.shape[1]
    mean_rank = (
        floats(aggregates.mean_rank(ranks))
        if complete
        else NotApplicable("mean ranks need complete rankings; only the top positions are known")
    )
    recommended, recommended_by = default_estimator_rule(settings.default_estimator)
    return Board(
        schema_version=SCHEMA_VERSION,
        engine_version=ENGINE_VERSION,
        input=input_facts(table, prepared),
        settings=settings,
        k_used=K,
        recommended=recommended,
        recommended_by=recommended_by,
        estimators=results,
        win_interval=uncertainty[0],
        mean_rank=mean_rank,
        significance_rank=aware_mean,
        friedman=tests.friedman,
        nemenyi=tests.nemenyi_summary,
        wilcoxon=tests.wilcoxon_summary,
        evaluation=uncertainty[1],
        notes=tuple(coverage_notes(table, prepared, K, settings)),
        control=control_comparison(
            prepared.algorithms,
            mean_rank,
            prepared.n_datasets,
            wanted=settings.control,
            alpha=settings.alpha,
        ),
        scores=score_summary(table, used, prepared),
    )


def _seeds(settings: AnalysisSettings) -> tuple[int, int, int]:
    """Seeds of the bootstrap, the evaluation and the advisor, from the settings' seed (the
    advisor's is drawn last, so the other two are those of engines before it)."""
    rng = np.random.default_rng(settings.seed)
    bootstrap_seed, evaluation_seed = rng.integers(0, 2**63 - 1, size=2)
    return int(bootstrap_seed), int(evaluation_seed), int(rng.integers(0, 2**63 - 1))


def _practical_seed(settings: AnalysisSettings) -> int:
    return practical_seed(settings.seed)


def practical_seed(seed: int) -> int:
    """The seed of the practical-equivalence draws and the hierarchical sampler: the fourth
    from the settings' seed (the three of :func:`_seeds` are unchanged); pages that compute
    a pair on demand use it too."""
    return int(np.random.default_rng(seed).integers(0, 2**63 - 1, size=4)[3])


def _first_two(
    prepared: PreparedRankings,
    K: int,
    settings: AnalysisSettings,
    estimators: Mapping[str, EstimatorResult] | None = None,
) -> list[int]:
    """The board's first two algorithms under its default estimator (Board.order's rule:
    P(win) to TIE_DIGITS decimals, then mean rank, then name); ``estimators`` are the
    point estimates of :func:`_point_estimates` when the caller has them."""
    key = default_estimator_rule(settings.default_estimator)[0]
    if estimators is None:
        estimators = _point_estimates(prepared, K)
    p = np.round(np.array(estimators[key].p, dtype=float), TIE_DIGITS)
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
    estimators: Mapping[str, EstimatorResult] | None = None,
    hierarchical: HierarchicalComparison | NotApplicable | None = None,
) -> AdvisorSection | NotApplicable:
    """The advisor section. ``estimators`` (the point estimates) and ``hierarchical``
    (the practical section's comparison, with the same seed) are what :func:`analyze`
    has already computed: the board's first two are read from the former, and the
    folds power of the latter is the advisor's when it is of the same pair (the same
    numbers, without a second run of the sampler)."""
    result = advise(
        prepared.ranks, rng=seed, K=K, known_positions=prepared.known_positions, stop=stop
    )
    power: AdvisorPower | NotApplicable | None = None
    folds: FoldsPower | NotApplicable | None = None
    if result.not_applicable is None:
        first, second = _first_two(prepared, K, settings, estimators)
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
        names = prepared.algorithms
        known = (
            hierarchical.folds_power if isinstance(hierarchical, HierarchicalComparison) else None
        )
        if isinstance(known, FoldsPower) and (known.first, known.second) == (
            names[first],
            names[second],
        ):
            folds = known
        else:
            # the practical section's seed: the same numbers as its folds power for one pair
            folds = pair_folds_power(
                names,
                first,
                second,
                prepared.fold_scores,
                alpha=settings.alpha,
                seed=_practical_seed(settings),
            )
    return advisor_section(result, prepared.algorithms, seed=seed, power=power, folds_power=folds)


def analyze_advisor(
    table: ResultTable,
    settings: AnalysisSettings | None = None,
    *,
    stop: Callable[[], bool] | None = None,
    practical: PracticalSection | NotApplicable | None = None,
) -> AdvisorSection | NotApplicable:
    """The advisor section of :func:`analyze`, alone: the same numbers, bit for bit.

    ``practical`` is the practical section :func:`analyze` computed for the same table
    and settings (the served snapshot's): its hierarchical comparison's folds power is
    the advisor's when it is of the same pair, as in :func:`analyze`, so the sampler
    does not run a second time (about 0.3 s of CPU at m = 20, n = 100, 10 folds).

    Raises ``ValueError`` as :func:`analyze` does when the data cannot be analysed, and
    ``advisor.AdvisorStopped`` when ``stop`` (asked between blocks of simulations)
    returns true.
    """
    settings = settings or AnalysisSettings()
    prepared = _prepared(table, settings)
    K = min(settings.k, prepared.known_positions)
    hierarchical = practical.hierarchical if isinstance(practical, PracticalSection) else None
    return _advisor(
        prepared, K, _seeds(settings)[2], stop, settings=settings, hierarchical=hierarchical
    )


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
    fits = {r.key: r for r in board.estimators}
    # whole rankings: the board's rank intervals came with it (mean_rank_answer)
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
    fits: Mapping[str, EstimatorResult],
    stop: Callable[[], bool] | None = None,
) -> tuple[
    dict[str, BootstrapSummary | NotApplicable],
    RankInference | NotApplicable | None,
    Evaluation | NotApplicable,
]:
    """The "bootstrap" (with the rank intervals) and "evaluation" stages of :func:`analyze` and
    :func:`analyze_uncertainty` (``seeds``: theirs, from :func:`_seeds`); ``stop`` is
    asked before each, and :class:`UncertaintyStopped` raised when it returns true."""
    bootstrap_seed, evaluation_seed = seeds
    if stop is not None and stop():
        raise UncertaintyStopped
    clock.stage("bootstrap", 0.4)
    boot, inference = bootstrap_sections(prepared, K, settings, bootstrap_seed, fits)
    if stop is not None and stop():
        raise UncertaintyStopped
    clock.stage("evaluation", 0.75)
    evaluation = evaluation_section(prepared, K, settings, evaluation_seed)
    return boot, inference, evaluation


def uncertainty_failed(board: Board, reason: str) -> Board:
    """A deferred ``board`` whose completion failed: its bootstrap and evaluation (and
    the rank intervals of a top-K list, which come from the bootstrap) say ``reason``
    instead of "being computed" (the rest of the board stands)."""
    failed = NotApplicable(reason)
    deferred = board.ranks == NotApplicable(UNCERTAINTY_DEFERRED)
    return _completed(
        board, dict.fromkeys(ESTIMATOR_KEYS, failed), failed if deferred else None, failed
    )


def _completed(
    board: Board,
    boot: dict[str, BootstrapSummary | NotApplicable],
    inference: RankInference | NotApplicable | None,
    evaluation: Evaluation | NotApplicable,
) -> Board:
    complete = replace(
        board,
        estimators=tuple(replace(r, bootstrap=boot[r.key]) for r in board.estimators),
        evaluation=evaluation,
    )
    return _with_answer(complete, inference)


def _with_answer(board: Board, inference: RankInference | NotApplicable | None) -> Board:
    """``board`` with its rank intervals (None: those it has) and the verdict that reads
    them."""
    ranks = board.ranks if inference is None else _rank_section(board, inference)
    ranked = replace(board, ranks=ranks)
    return replace(ranked, verdict=board_verdict(ranked))


def _rank_section(
    board: Board, inference: RankInference | NotApplicable
) -> RankIntervals | NotApplicable:
    """The board's rank intervals: plausible winners in the order the rows are listed."""
    if isinstance(inference, NotApplicable):
        return inference
    names = board.algorithms
    order = board_order(board, board.recommended)
    if inference.method in MEAN_RANK_METHODS:
        best = inference.best & ~_worse_than_leader_by_tests(board)
        return RankIntervals(
            estimator="borda",
            target="the rank (1 = best) of each algorithm's expected rank on a new dataset",
            method=rank_method_words(inference),
            level=inference.level,
            lower=tuple(int(v) for v in inference.lower),
            upper=tuple(int(v) for v in inference.upper),
            plausible_winners=tuple(names[i] for i in order if best[i]),
            question="best_on_average",
            question_words=QUESTION_WORDS["best_on_average"],
            separating_datasets=inference.separating_datasets if best.sum() > 1 else None,
        )
    key = board.recommended
    return RankIntervals(
        estimator=key,
        target=f"the rank (1 = largest) of each algorithm's {estimator_get(key).estimand}",
        method=rank_method_words(inference),
        level=inference.level,
        lower=tuple(int(v) for v in inference.lower),
        upper=tuple(int(v) for v in inference.upper),
        plausible_winners=tuple(names[i] for i in order if inference.best[i]),
        question="next_win",
        question_words=QUESTION_WORDS["next_win"],
    )


def _worse_than_leader_by_tests(board: Board) -> np.ndarray:
    """Algorithms that a test shown beside the board (Nemenyi's critical difference, the
    comparison with a control when the control is the best mean rank) finds
    significantly worse than the best mean rank: the same question, so they are never
    candidates for best while that test stands on the page."""
    m = len(board.algorithms)
    worse = np.zeros(m, dtype=bool)
    if isinstance(board.mean_rank, NotApplicable) or not m:
        return worse
    ranks = np.array([np.inf if r is None else r for r in board.mean_rank], dtype=float)
    leader = int(np.argmin(ranks))
    nemenyi = board.nemenyi
    if isinstance(nemenyi, NemenyiSummary):
        worse |= ranks - ranks[leader] > nemenyi.critical_difference
    control = board.control
    if isinstance(control, ControlComparison) and control.control == board.algorithms[leader]:
        z = np.array([0.0 if v is None else v for v in control.z], dtype=float)
        worse |= np.array(control.significant_holm, dtype=bool) & (z < 0)
    return worse


def _used_values(table: ResultTable, prepared: PreparedRankings) -> np.ndarray:
    """The input's dataset-level values on the datasets and algorithms the analysis used
    (rows and columns in the board's order), NaN where there is no result."""
    row_of = {d: i for i, d in enumerate(table.datasets)}
    col_of = {a: j for j, a in enumerate(table.algorithms)}
    rows = [row_of[d] for d in prepared.datasets]
    cols = [col_of[a] for a in prepared.algorithms]
    return np.asarray(table.values, dtype=float)[np.ix_(rows, cols)]


def _dataset_scores(
    used: np.ndarray, prepared: PreparedRankings
) -> DatasetScoresSection | NotApplicable:
    """``used`` (:func:`_used_values`) as the snapshot stores it, unless too large."""
    n, m = prepared.n_datasets, len(prepared.algorithms)
    if n * m > MAX_SCORE_CELLS:
        return NotApplicable(
            f"{n} datasets x {m} algorithms exceed the {MAX_SCORE_CELLS} dataset-level "
            "values stored with a snapshot"
        )
    return DatasetScoresSection(
        algorithms=tuple(prepared.algorithms),
        datasets=tuple(prepared.datasets),
        values=tuple(floats(row) for row in used),
    )


# A point estimate's bootstrap until bootstrap_sections() gives the real one.
_NO_BOOTSTRAP_YET = NotApplicable("not computed yet")


def _point_estimates(prepared: PreparedRankings, K: int) -> dict[str, EstimatorResult]:
    """Each estimator's result, its bootstrap still to come (``_NO_BOOTSTRAP_YET``)."""
    ranks, known = prepared.ranks, prepared.known_positions
    loo_kl, loo_tv, loo_brier = fit_loo(ranks, K=K, known_positions=known)
    minimax = fit_minimax(ranks, K=K, known_positions=known)
    out = {fit.method: _weighted(fit) for fit in (mle(ranks), loo_kl, loo_tv, loo_brier)}
    out["minimax"] = replace(
        _weighted(minimax),
        bound=plain_float(minimax.extra["bound"]),
        bound_mle=plain_float(minimax.extra["bound_mle"]),
        bound_k2=plain_float(minimax.extra["bound_k2"]),
    )
    out["borda"] = EstimatorResult(
        key="borda",
        p=floats(aggregates.borda_probabilities(ranks)),
        bootstrap=_NO_BOOTSTRAP_YET,
        K=None,
        weights=None,
    )
    pl_fit = aggregates.plackett_luce(ranks, known_positions=known)
    out["plackett_luce"] = EstimatorResult(
        key="plackett_luce",
        p=floats(pl_fit.worths),
        bootstrap=_NO_BOOTSTRAP_YET,
        K=None,
        weights=None,
        log_likelihood=plain_float(pl_fit.log_likelihood),
        iterations=int(pl_fit.iterations),
        converged=bool(pl_fit.converged),
        prior_strength=float(pl_fit.prior_strength),
    )
    return out


def _weighted(fit) -> EstimatorResult:
    """A positional-weights estimator's result (the win rate, LOO, minimax)."""
    return EstimatorResult(
        key=fit.method,
        p=floats(fit.p),
        bootstrap=_NO_BOOTSTRAP_YET,
        K=int(fit.K),
        weights=tuple(float(v) for v in fit.weights),
        loss=plain_float(fit.loss),
        loss_mle=plain_float(fit.loss_mle),
        n_clipped=None if fit.n_clipped is None else int(fit.n_clipped),
        n_terms=None if fit.n_terms is None else int(fit.n_terms),
    )


def _wins(names: tuple[str, ...], ranks, top: np.ndarray | None) -> WinsSection:
    """Every pair's wins, or those of the ``top`` algorithms (pairwise_scope.pairwise_top)."""
    if top is None:
        return WinsSection(
            algorithms=names, wins=PairwiseMatrix.from_square(aggregates.pairwise_win_matrix(ranks))
        )
    return WinsSection(
        algorithms=tuple(names[i] for i in top),
        wins=PairwiseMatrix.from_square(pairwise_scope.win_shares(ranks[:, top])),
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
