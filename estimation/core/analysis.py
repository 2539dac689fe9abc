"""One call from a ResultTable to the full, JSON-ready analysis of a benchmark.

:func:`analyze` runs every estimator and test of METHODS.md on one metric's results and
returns an :class:`Analysis`, whose :meth:`Analysis.to_dict` is the snapshot payload the
website, the API and ``manage.py analyze --json`` all publish. A test that cannot run on
the data is reported as ``{"not_applicable": reason}``, never as NaN.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from estimation.core import aggregates, significance, within_dataset
from estimation.core.rankings import PreparedRankings, prepare_rankings
from estimation.core.resampling import SCHEMES, bootstrap, evaluate_schemes
from estimation.core.table import ResultTable
from estimation.core.win_probability import fit_loo, fit_minimax, mle

ENGINE_VERSION = "0.3.0"

ESTIMATOR_NAMES = {
    "loo_kl": "Leave-one-out weights (log loss)",
    "loo_tv": "Leave-one-out weights (total variation)",
    "minimax": "Minimax weights",
    "mle": "Win rate",
    "borda": "Borda count",
    "plackett_luce": "Plackett–Luce",
}

# Within-dataset Tukey tables are stored with a snapshot up to this many pairs in all
# (they grow as datasets x algorithms^2); beyond, the dataset page computes one table
# on demand and the snapshot keeps the significance-aware ranks.
MAX_TUKEY_PAIRS = 2000
# The dataset x algorithm rank matrix is published for charts up to this many cells.
MAX_RANK_CELLS = 200_000

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class AnalysisSettings:
    """The analysis choices a benchmark makes (METHODS.md); defaults as documented there."""

    missing: Literal["complete", "worst"] = "complete"
    min_coverage: float = 0.5
    tie_tol: float = 0.0
    k: int = 3
    alpha: float = 0.05
    correction: Literal["holm", "bonferroni"] = "holm"
    bootstrap: int = 1000
    evaluation_folds: int = 10
    evaluation_repeats: int = 5
    seed: int = 0
    default_estimator: str = "loo_kl"

    def __post_init__(self) -> None:
        if self.missing not in ("complete", "worst"):
            raise ValueError(f"missing must be 'complete' or 'worst', got {self.missing!r}")
        if self.correction not in ("holm", "bonferroni"):
            raise ValueError(f"correction must be 'holm' or 'bonferroni', got {self.correction!r}")
        if self.default_estimator not in SCHEMES:
            raise ValueError(
                f"default_estimator must be one of {list(SCHEMES)}, got {self.default_estimator!r}"
            )
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}")
        if self.k < 1:
            raise ValueError(f"k must be at least 1, got {self.k!r}")
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap must be >= 0 (0 skips it), got {self.bootstrap!r}")
        if self.tie_tol < 0:
            raise ValueError(f"tie_tol must be >= 0, got {self.tie_tol!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Analysis:
    """The finished analysis; ``payload`` is plain JSON (see the module docstring)."""

    payload: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return self.payload


def _labelled(values: Sequence[float] | np.ndarray, names: Sequence[str]) -> dict[str, Any]:
    return {name: _plain(value) for name, value in zip(names, values, strict=True)}


def _plain(value: Any) -> Any:
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def _pairwise(matrix: np.ndarray, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """An (m, m) matrix as {a: {b: value}} without the diagonal."""
    return {
        a: {b: _plain(matrix[i, j]) for j, b in enumerate(names) if j != i}
        for i, a in enumerate(names)
    }


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
) -> Analysis:
    """Every estimator and test of METHODS.md on one metric's results.

    Parameters
    ----------
    table : ResultTable
    settings : AnalysisSettings, optional
    progress : callable, optional
        ``progress(stage, fraction)`` is called as the work advances.

    Raises
    ------
    ValueError
        When the data cannot be analysed at all (fewer than two algorithms or no
        dataset left after the missing-data policy); the message says why.
    """
    settings = settings or AnalysisSettings()
    clock = _Clock(progress)
    clock.stage("ranking", 0.02)
    prepared = prepare_rankings(
        table,
        missing=settings.missing,
        tie_tol=settings.tie_tol,
        min_coverage=settings.min_coverage,
    )
    names = prepared.algorithms
    ranks = prepared.ranks
    m = ranks.shape[1]
    K = min(settings.k, prepared.known_positions)
    rng = np.random.default_rng(settings.seed)
    bootstrap_seed, evaluation_seed = rng.integers(0, 2**63 - 1, size=2)

    clock.stage("estimators", 0.05)
    estimators = _point_estimates(prepared, K)

    clock.stage("tests", 0.15)
    tests = _tests_across_datasets(prepared, settings)

    clock.stage("within_dataset", 0.3)
    within = _tests_within_datasets(prepared, settings)

    clock.stage("bootstrap", 0.4)
    uncertainty = _uncertainty(prepared, K, settings, int(bootstrap_seed))
    for scheme, summary in uncertainty.items():
        estimators[scheme].update(summary)

    clock.stage("evaluation", 0.75)
    evaluation = _evaluation(prepared, K, settings, int(evaluation_seed))

    payload: dict[str, Any] = {
        "engine_version": ENGINE_VERSION,
        "input": _input_facts(table, prepared),
        "params": {**settings.to_dict(), "k_used": K},
        "recommended": settings.default_estimator,
        "estimators": estimators,
        "mean_rank": _labelled(aggregates.mean_rank(ranks), names)
        if prepared.kind == "score" or prepared.known_positions == m
        else None,
        "win_rate": estimators["mle"]["p"],
        "pairwise_wins": _pairwise(aggregates.pairwise_win_matrix(ranks), names),
        **tests,
        **within,
        "evaluation": evaluation,
        "rank_matrix": _rank_matrix(prepared),
        "notes": _coverage_notes(table, prepared, K, settings),
    }
    payload["timings"] = clock.finish()
    return Analysis(payload=payload, timings=payload["timings"])


def _input_facts(table: ResultTable, prepared: PreparedRankings) -> dict[str, Any]:
    facts = prepared.to_dict()
    ranks = prepared.ranks
    first = ranks.min(axis=1, keepdims=True)
    facts.update(
        n_datasets=table.n_datasets,
        n_datasets_used=prepared.n_datasets,
        excluded_algorithms=list(prepared.excluded_algorithms),
        excluded_coverage={a: prepared.coverage[a] for a in prepared.excluded_algorithms},
        direction="rank"
        if table.kind == "rank"
        else ("higher" if table.higher_is_better else "lower"),
        has_folds=prepared.fold_scores is not None,
        n_tied_first=int(((ranks == first).sum(axis=1) > 1).sum()),
    )
    return facts


def _point_estimates(prepared: PreparedRankings, K: int) -> dict[str, dict[str, Any]]:
    names, ranks, known = prepared.algorithms, prepared.ranks, prepared.known_positions
    out: dict[str, dict[str, Any]] = {}
    loo_kl, loo_tv = fit_loo(ranks, K=K, known_positions=known)
    for name, fit in (
        ("mle", mle(ranks)),
        ("loo_kl", loo_kl),
        ("loo_tv", loo_tv),
        ("minimax", fit_minimax(ranks, K=K, known_positions=known)),
    ):
        entry = fit.to_dict(names)
        entry["label"] = ESTIMATOR_NAMES[name]
        out[name] = entry
    out["borda"] = {
        "label": ESTIMATOR_NAMES["borda"],
        "p": _labelled(aggregates.borda_probabilities(ranks), names),
    }
    pl_fit = aggregates.plackett_luce(ranks, known_positions=known)
    out["plackett_luce"] = {
        "label": ESTIMATOR_NAMES["plackett_luce"],
        "p": _labelled(pl_fit.worths, names),
        "log_likelihood": _plain(pl_fit.log_likelihood),
        "iterations": pl_fit.iterations,
        "converged": pl_fit.converged,
        "prior_strength": pl_fit.prior_strength,
    }
    return out


def _tests_across_datasets(prepared: PreparedRankings, settings: AnalysisSettings) -> dict:
    names, ranks, known = prepared.algorithms, prepared.ranks, prepared.known_positions
    reason = significance.rank_test_not_applicable(ranks, known_positions=known)
    if reason is not None:
        friedman: dict[str, Any] = {"not_applicable": reason}
        nemenyi: dict[str, Any] = {"not_applicable": reason}
    else:
        result = significance.friedman(ranks, known_positions=known)
        friedman = {
            key: value
            for key, value in result.to_dict().items()
            if key not in ("mean_ranks", "not_applicable", "n_algorithms")
        }
        nemenyi_test = significance.nemenyi(ranks, alpha=settings.alpha, known_positions=known)
        assert nemenyi_test.significant is not None and nemenyi_test.mean_ranks is not None
        assert nemenyi_test.pvalues is not None  # applicable, checked above
        groups = significance.indistinguishable_groups(
            nemenyi_test.significant, nemenyi_test.mean_ranks
        )
        nemenyi = {
            "alpha": settings.alpha,
            "q_alpha": nemenyi_test.q_alpha,
            "critical_difference": nemenyi_test.critical_difference,
            "pvalues": _pairwise(nemenyi_test.pvalues, names),
            "groups": [[names[i] for i in bar] for bar in groups.bars],
            "letters": dict(zip(names, groups.letters, strict=True)),
        }
    if prepared.scores is None:
        wilcoxon: dict[str, Any] = {
            "not_applicable": "ranking-only input has no scores to pair across datasets"
        }
    elif prepared.n_datasets < 2:
        wilcoxon = {"not_applicable": "a single dataset gives no paired differences"}
    else:
        signed_rank = significance.wilcoxon_pairwise(
            prepared.scores, correction=settings.correction, alpha=settings.alpha
        )
        mean_ranks = prepared.ranks.mean(axis=0)
        groups = significance.indistinguishable_groups(signed_rank.significant, mean_ranks)
        wilcoxon = {
            "alpha": settings.alpha,
            "correction": settings.correction,
            "pvalues": _pairwise(signed_rank.pvalues_corrected, names),
            "pvalues_raw": _pairwise(signed_rank.pvalues, names),
            "rank_biserial": _pairwise(signed_rank.effect_size, names),
            "groups": [[names[i] for i in bar] for bar in groups.bars],
            "letters": dict(zip(names, groups.letters, strict=True)),
            "not_applicable_pairs": [
                {"a": names[i], "b": names[j], "reason": signed_rank.not_applicable[i][j]}
                for i in range(len(names))
                for j in range(i + 1, len(names))
                if signed_rank.not_applicable[i][j]
            ],
        }
    return {"friedman": friedman, "nemenyi": nemenyi, "wilcoxon": wilcoxon}


def _tests_within_datasets(prepared: PreparedRankings, settings: AnalysisSettings) -> dict:
    names = prepared.algorithms
    if prepared.fold_scores is None:
        reason = "the results have no folds"
        return {
            "significance_rank": None,
            "within_dataset": {"not_applicable": reason},
            "within_dataset_note": None,
        }
    folds = prepared.fold_scores
    aware = within_dataset.significance_aware_ranks(folds, alpha=settings.alpha)
    n, m = len(prepared.datasets), len(names)
    per_dataset: dict[str, Any] = {}
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
    for i, dataset in enumerate(prepared.datasets):
        entry: dict[str, Any] = {
            "significance_rank": _labelled(aware.ranks[i], names),
            "n_folds": int(aware.n_folds[i]),
        }
        if i in aware.not_applicable:
            entry["not_applicable"] = aware.not_applicable[i]
        elif i in tukey:
            signed_rank = within_dataset.fold_wilcoxon_pairwise(
                _complete_folds(folds[i]), correction=settings.correction, alpha=settings.alpha
            )
            entry["tukey"] = _tukey_rows(tukey[i], signed_rank, names)
        per_dataset[dataset] = entry
    note = None
    if not tables:
        note = (
            f"pairwise Tukey tables are computed on demand: {n} datasets x "
            f"{m * (m - 1) // 2} pairs exceed the {MAX_TUKEY_PAIRS} stored with a snapshot"
        )
    return {
        "significance_rank": _labelled(aware.mean_ranks, names),
        "within_dataset": per_dataset,
        "within_dataset_note": note,
    }


def _complete_folds(fold_scores: np.ndarray) -> np.ndarray:
    """The folds on which every algorithm has a score (datasets may have fewer folds)."""
    return fold_scores[np.isfinite(fold_scores).all(axis=1)]


def _tukey_rows(
    result: within_dataset.TukeyResult,
    signed_rank: significance.PairwiseSignedRank,
    names: Sequence[str],
) -> list[dict]:
    """One row per pair: Tukey's difference, Cohen's d and p-value, and the per-fold
    Wilcoxon test (corrected p-value, rank-biserial effect) beside it."""
    assert result.mean_difference is not None and result.cohen_d is not None
    assert result.pvalues is not None and result.significant is not None  # folds checked
    m = len(names)
    return [
        {
            "a": names[i],
            "b": names[j],
            "diff": _plain(result.mean_difference[i, j]),
            "cohens_d": _plain(result.cohen_d[i, j]),
            "pvalue": _plain(result.pvalues[i, j]),
            "significant": bool(result.significant[i, j]),
            "wilcoxon_pvalue": _plain(signed_rank.pvalues_corrected[i, j]),
            "rank_biserial": _plain(signed_rank.effect_size[i, j]),
        }
        for i in range(m)
        for j in range(i + 1, m)
    ]


def _uncertainty(
    prepared: PreparedRankings, K: int, settings: AnalysisSettings, seed: int
) -> dict[str, dict[str, Any]]:
    names = prepared.algorithms
    if settings.bootstrap == 0:
        return {s: {"ci": None, "p_best": None} for s in SCHEMES}
    if prepared.n_datasets < 2:
        reason = "a single dataset: resampling datasets shows no spread"
        return {s: {"ci": None, "p_best": None, "ci_note": reason} for s in SCHEMES}
    result = bootstrap(
        prepared.ranks,
        rng=seed,
        n_boot=settings.bootstrap,
        K=K,
        known_positions=prepared.known_positions,
    )
    return {
        scheme: {
            "ci": {
                a: [_plain(lo), _plain(hi)]
                for a, lo, hi in zip(names, summary.lower, summary.upper, strict=True)
            },
            "p_best": _labelled(summary.p_best, names),
        }
        for scheme, summary in result.schemes.items()
    }


def _evaluation(
    prepared: PreparedRankings, K: int, settings: AnalysisSettings, seed: int
) -> dict[str, Any]:
    if prepared.n_datasets < 2:
        return {"not_applicable": "a single dataset: nothing to hold out"}
    result = evaluate_schemes(
        prepared.ranks,
        rng=seed,
        n_folds=settings.evaluation_folds,
        n_repeats=settings.evaluation_repeats,
        K=K,
        known_positions=prepared.known_positions,
    )
    details = result.to_dict()
    return {
        "log_loss": details["log_loss"]["mean"],
        "tv": details["tv_loss"]["mean"],
        "best": details["log_loss"]["best"],
        "best_tv": details["tv_loss"]["best"],
        "pvalue_vs_best": details["log_loss"]["p_value_vs_best"],
        "pvalue_vs_best_tv": details["tv_loss"]["p_value_vs_best"],
        "n_folds": details["n_folds"],
        "n_repeats": details["n_repeats"],
        "leave_one_out": details["leave_one_out"],
    }


def _rank_matrix(prepared: PreparedRankings) -> dict[str, Any] | None:
    ranks = prepared.ranks
    if ranks.size > MAX_RANK_CELLS:
        return None
    return {
        "datasets": list(prepared.datasets),
        "algorithms": list(prepared.algorithms),
        "ranks": [[float(v) for v in row] for row in ranks],
    }


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
    if prepared.excluded_algorithms:
        notes.append(
            f"{len(prepared.excluded_algorithms)} algorithms have results on fewer than "
            f"{settings.min_coverage:.0%} of the datasets and are not ranked: "
            f"{', '.join(prepared.excluded_algorithms)}."
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
    return notes
