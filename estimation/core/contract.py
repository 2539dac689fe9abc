"""The snapshot contract: what an analysis publishes, as typed, versioned sections.

An analysis (:func:`estimation.core.analysis.analyze`) returns a :class:`SnapshotPayload`
made of sections that are stored and served apart:

``board``
    O(m): everything the leaderboard table and its headline need (every estimator's
    probabilities with bootstrap intervals, the per-algorithm columns, the tests'
    verdicts and group letters, the evaluation, the notes).
``wins``, ``nemenyi``, ``wilcoxon``
    O(m²): pairwise matrices, stored as the upper triangle of each matrix (and the lower
    one when the matrix is not symmetric), in the order of :func:`pair_index`.
``rank_matrix``
    O(m·n): each algorithm's rank on each dataset.
``within_dataset``
    O(n·m²): per-dataset tests on folds.
``advisor``
    O(m + estimators): the estimator advisor and size planner (METHODS section 8), from
    benchmarks simulated in the background; stored right after the other sections of a
    snapshot (readers do not wait for it) and served whole. It carries the power of the
    #1-vs-#2 comparison (how many more datasets).
``practical``
    O(k²): practical equivalence (a region of practical equivalence per metric) of every
    pair of the board's first ``k`` algorithms (METHODS section 6.1).

Every per-algorithm array is aligned with the section's ``algorithms``. A view that does
not apply (or would be unreadable at this size) is a :class:`NotApplicable` with a reason
in plain words, never a missing key or a NaN; JSON gives it as ``{"not_applicable": ...}``.

Each dataclass documents its fields in their metadata (:func:`describe`): the JSON Schema
(:func:`json_schema`, committed as ``docs/snapshot.schema.json``) and the field reference
(:func:`contract_markdown`, committed as ``docs/snapshot-contract.md``) are generated from
it, so the contract is written once. To add a field: add it to the dataclass with
``describe(...)``, fill it in ``analysis.py``, bump ``SCHEMA_VERSION`` and
``ENGINE_VERSION``, and regenerate both files (``python -m estimation.core.contract``).
"""

from __future__ import annotations

import json
import sys
import types
import typing
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from functools import cache
from typing import Any, Literal, TypeGuard, TypeVar

import numpy as np

from estimation.core.rank_inference import TIE_DIGITS
from estimation.core.registry import ESTIMATOR_KEYS, PODIUM_DEFAULT_ESTIMATOR

__all__ = [
    "SCHEMA_VERSION",
    "SECTION_NAMES",
    "Board",
    "EstimatorResult",
    "NotApplicable",
    "PairwiseMatrix",
    "RankIntervals",
    "ScoreSummary",
    "SnapshotPayload",
    "Verdict",
    "WinInterval",
    "choose_algorithms",
    "contract_markdown",
    "from_json",
    "json_schema",
    "pair_index",
    "restrict",
    "to_json",
]

SCHEMA_VERSION = 5

T = TypeVar("T")


def describe(meaning: str, *, units: str = "", null: str = "", default: Any = MISSING) -> Any:
    """A dataclass field with its documentation: meaning, units and when it is null."""
    metadata = {"meaning": meaning, "units": units, "null": null}
    if default is MISSING:
        return field(metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class NotApplicable:
    """A view that does not apply to this input, or would be unreadable at its size.

    JSON: ``{"not_applicable": "<reason in plain words>"}``.
    """

    reason: str

    def __bool__(self) -> bool:  # ``if section:`` reads as "is there something to show"
        return False


def applicable(value: T | NotApplicable) -> T | None:
    """``value``, or None when it is :class:`NotApplicable`."""
    return None if isinstance(value, NotApplicable) else value


# --- pairs ------------------------------------------------------------------------------


def pair_index(i: int, j: int, m: int) -> int:
    """Position of the pair (i, j), i < j, in a triangle array: row-major over i, then j
    (the order of ``numpy.triu_indices(m, 1)``)."""
    return i * m - i * (i + 1) // 2 + (j - i - 1)


def _triangle(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(m, 1)


def floats(values: Any) -> tuple[float | None, ...]:
    """Plain floats with None for NaN and infinities (JSON has neither)."""
    array = np.asarray(values, dtype=float).ravel()
    finite = np.isfinite(array)
    as_list = array.tolist()
    if finite.all():
        return tuple(as_list)
    return tuple(v if ok else None for v, ok in zip(as_list, finite.tolist(), strict=True))


@dataclass(frozen=True)
class PairwiseMatrix:
    """An m x m matrix without its diagonal, as triangle arrays (see :func:`pair_index`)."""

    upper: tuple[float | None, ...] = describe(
        "value(a_i, a_j) for every pair i < j, in pair order",
        null="the value is not defined for this pair (e.g. no paired differences)",
    )
    lower: tuple[float | None, ...] | None = describe(
        "value(a_j, a_i) for every pair i < j, in pair order",
        null="the matrix is symmetric: value(a_j, a_i) = value(a_i, a_j)",
    )

    @classmethod
    def from_square(cls, matrix: np.ndarray) -> PairwiseMatrix:
        matrix = np.asarray(matrix, dtype=float)
        i, j = _triangle(matrix.shape[0])
        upper, lower = matrix[i, j], matrix[j, i]
        symmetric = np.array_equal(upper, lower, equal_nan=True)
        return cls(upper=floats(upper), lower=None if symmetric else floats(lower))

    def get(self, i: int, j: int, m: int) -> float | None:
        """value(a_i, a_j) for i != j."""
        if i < j:
            return self.upper[pair_index(i, j, m)]
        source = self.upper if self.lower is None else self.lower
        return source[pair_index(j, i, m)]

    def square(self, m: int) -> np.ndarray:
        """The full matrix, NaN on the diagonal and where a value is null."""
        out = np.full((m, m), np.nan)
        i, j = _triangle(m)
        out[i, j] = np.array(self.upper, dtype=float)
        out[j, i] = np.array(self.upper if self.lower is None else self.lower, dtype=float)
        return out

    def restricted(self, keep: Sequence[int], m: int) -> PairwiseMatrix:
        """The same matrix for the algorithms ``keep`` (indices, in that order)."""
        return PairwiseMatrix.from_square(self.square(m)[np.ix_(keep, keep)])


# --- board --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalysisSettings:
    """The analysis choices a benchmark makes (METHODS.md); defaults as documented there."""

    missing: Literal["complete", "worst"] = describe(
        "what a missing result means: 'complete' leaves out datasets with a gap, 'worst' "
        "ranks the algorithm last there",
        default="complete",
    )
    min_coverage: float = describe(
        "algorithms with results on fewer than this share of datasets are not ranked",
        units="share of datasets, 0..1",
        default=0.5,
    )
    tie_tol: float = describe(
        "scores closer than this to the best of a group tie", units="metric units", default=0.0
    )
    k: int = describe("top positions the top-K estimators use (asked for)", default=3)
    alpha: float = describe("significance level of every test", default=0.05)
    correction: Literal["holm", "bonferroni"] = describe(
        "multiple-comparison correction of the pairwise Wilcoxon tests", default="holm"
    )
    bootstrap: int = describe(
        "bootstrap replicates (0 skips the bands; fewer than 100 give no band, with a reason)",
        default=1000,
    )
    evaluation_folds: int = describe("folds over datasets of the evaluation", default=10)
    evaluation_repeats: int = describe("repeats of the evaluation's folds", default=5)
    seed: int = describe("seed of every random draw (bootstrap, evaluation folds)", default=0)
    default_estimator: str = describe(
        "the estimator the benchmark's maintainer chose as its default (a registry key; "
        "Podium's default when none was chosen; see Board.recommended_by)",
        default=PODIUM_DEFAULT_ESTIMATOR,
    )
    control: str | None = describe(
        "the algorithm the comparison with a control uses by default",
        null="none chosen: the algorithm with the best mean rank",
        default=None,
    )
    rope: float | None = describe(
        "half-width of the region of practical equivalence of the metric: differences "
        "within [-rope, rope] do not matter in practice (set by the maintainer per metric)",
        units="metric units",
        null="none set (the default): no practical-equivalence probabilities",
        default=None,
    )

    def __post_init__(self) -> None:
        if self.missing not in ("complete", "worst"):
            raise ValueError(f"missing must be 'complete' or 'worst', got {self.missing!r}")
        if self.correction not in ("holm", "bonferroni"):
            raise ValueError(f"correction must be 'holm' or 'bonferroni', got {self.correction!r}")
        if self.default_estimator not in ESTIMATOR_KEYS:
            raise ValueError(
                f"default_estimator must be one of {list(ESTIMATOR_KEYS)}, "
                f"got {self.default_estimator!r}"
            )
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}")
        if self.k < 1:
            raise ValueError(f"k must be at least 1, got {self.k!r}")
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap must be >= 0 (0 skips it), got {self.bootstrap!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.tie_tol < 0:
            raise ValueError(f"tie_tol must be >= 0, got {self.tie_tol!r}")
        if self.control is not None and (
            not isinstance(self.control, str) or not self.control.strip()
        ):
            raise ValueError(f"control must be an algorithm's name or None, got {self.control!r}")
        if self.rope is not None and (
            isinstance(self.rope, bool) or not np.isfinite(self.rope) or self.rope < 0
        ):
            raise ValueError(
                f"rope must be a finite number >= 0 (metric units) or None, got {self.rope!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        return to_json(self)


@dataclass(frozen=True)
class ExcludedAlgorithm:
    """An algorithm left out of the ranking for lack of results."""

    algorithm: str = describe("its name")
    coverage: float = describe("share of datasets where it has a result", units="0..1")


@dataclass(frozen=True)
class InputFacts:
    """What the numbers were computed from, after the missing-data policy."""

    kind: Literal["score", "rank"] = describe("scores, or published rankings")
    direction: Literal["higher", "lower", "rank"] = describe(
        "which way the metric is better ('rank': the input is rankings, 1 = best)"
    )
    algorithms: tuple[str, ...] = describe(
        "the ranked algorithms: the order of every per-algorithm array of the board"
    )
    datasets: tuple[str, ...] = describe("the datasets used, in input order")
    n_datasets: int = describe("datasets in the input, before the missing-data policy")
    n_datasets_used: int = describe("datasets the analysis used")
    known_positions: int = describe(
        "positions known on every dataset (m for scores; K for a top-K ranking file)"
    )
    has_folds: bool = describe("whether fold-level scores were given")
    n_tied_first: int = describe("datasets with a tie for first place")
    excluded_algorithms: tuple[ExcludedAlgorithm, ...] = describe(
        "algorithms not ranked for lack of results (see settings.min_coverage)"
    )
    dropped_datasets: tuple[str, ...] = describe(
        "datasets left out by the 'complete' policy because some algorithm has no result"
    )
    dropped_by: dict[str, int] = describe(
        "per algorithm, how many dropped datasets it has no result on"
    )


_BEFORE_0_7 = "the percentile band of the replicates (engines before 0.7.0)"


@dataclass(frozen=True)
class BootstrapSummary:
    """An estimator's bootstrap over datasets (resampled with replacement): THE interval
    of that estimator's own estimate (it contains EstimatorResult.p), and P(best).

    Whether the interval may be called a confidence interval for the win probability is
    decided per estimator by the registry's ``interval_kind`` (measured coverage); the
    others are the spread of the estimate (the leave-one-out estimators shrink the
    leader, so their band can miss the true value)."""

    lower: tuple[float | None, ...] = describe(
        "lower end of the estimator's own interval, per algorithm; never above p",
        units="probability",
        null="never for a finished bootstrap",
    )
    upper: tuple[float | None, ...] = describe(
        "upper end of the estimator's own interval; never below p", units="probability"
    )
    p_best: tuple[float | None, ...] = describe(
        "share of replicates in which the algorithm has the highest P(win) (ties split)",
        units="probability",
    )
    level: float = describe("nominal level of the interval", units="probability", default=0.95)
    method: str = describe("how the interval was computed, in words", default=_BEFORE_0_7)
    kind: Literal["confidence", "spread"] = describe(
        "'confidence': a confidence interval for the true win probability (measured "
        "coverage >= 0.93 at nominal 0.95, bench/README.md 'coverage'); 'spread': the "
        "spread of the estimate, not a claim about the true probability",
        default="spread",
    )
    label: str = describe(
        "exactly the words readers see for this interval ('95 % confidence interval' "
        "or '95 % bootstrap spread')",
        default="95 % bootstrap spread",
    )


@dataclass(frozen=True)
class RankIntervals:
    """Simultaneous confidence intervals for every algorithm's rank, and the confidence
    set of the best (METHODS 6; estimation/core/rank_inference.py)."""

    estimator: str = describe("registry key of the estimator whose estimates are ranked")
    target: str = describe("the quantity whose ranks the intervals cover, in words")
    method: str = describe("how the intervals were computed and what they assume, in words")
    level: float = describe(
        "simultaneous confidence level: all intervals hold together with this probability",
        units="probability",
    )
    lower: tuple[int, ...] = describe(
        "best rank the algorithm may have, per algorithm (1 = best)", units="rank"
    )
    upper: tuple[int, ...] = describe("worst rank the algorithm may have", units="rank")
    plausible_winners: tuple[str, ...] = describe(
        "the confidence set of the best: the algorithms whose rank interval starts at 1, "
        "in the order the board lists rows"
    )


@dataclass(frozen=True)
class WinInterval:
    """A confidence interval for each algorithm's probability of winning a new dataset,
    on its tie-split win count (METHODS 6): it belongs to the win rate (registry key
    "mle") and is shown beside it only."""

    level: float = describe("confidence level of every interval", units="probability")
    lower: tuple[float | None, ...] = describe(
        "lower end of the exact (Clopper-Pearson) interval on the tie-split win count, per "
        "algorithm",
        units="probability",
        null="never",
    )
    upper: tuple[float | None, ...] = describe(
        "upper end of the exact interval", units="probability", null="never"
    )
    simultaneous_lower: tuple[float | None, ...] = describe(
        "lower end of the simultaneous interval (the exact interval at level 1 - alpha/m: all "
        "algorithms hold together at the level)",
        units="probability",
        null="never",
    )
    simultaneous_upper: tuple[float | None, ...] = describe(
        "upper end of the simultaneous interval", units="probability", null="never"
    )
    method: str = describe("how the intervals were computed, in words")
    kind: Literal["confidence", "spread"] = describe(
        "'confidence' only when the coverage table (bench/README.md 'coverage') shows "
        ">= 0.93 at nominal 0.95 (registry.WIN_RATE_INTERVAL_KIND); else 'spread'",
        default="spread",
    )
    label: str = describe(
        "exactly the words readers see for the win rate's interval, shown beside it only",
        default="95 % confidence interval",
    )


@dataclass(frozen=True)
class EstimatorResult:
    """One estimator's probability that each algorithm wins a new dataset."""

    key: str = describe("registry key (estimation/core/registry.py gives label and meaning)")
    p: tuple[float | None, ...] = describe(
        "P(win a new dataset), per algorithm; sums to 1", units="probability"
    )
    bootstrap: BootstrapSummary | NotApplicable = describe(
        "uncertainty of p; not applicable when the bootstrap is switched off or there is "
        "a single dataset (and in analyze(uncertainty=False), whose caller runs "
        "analyze_uncertainty later: for a moment a served board says 'being computed', "
        "then the recompute service replaces it with the complete board; a version "
        "superseded before that says 'not computed for this version')"
    )
    K: int | None = describe(
        "positions weighted", null="the estimator uses whole rankings (Borda, Plackett–Luce)"
    )
    weights: tuple[float, ...] | None = describe(
        "weight of positions 1..K (a win at position k counts weights[k-1])",
        null="the estimator uses whole rankings (Borda, Plackett–Luce)",
    )
    loss: float | None = describe(
        "leave-one-out loss of the fitted weights (log loss, TV or Brier)",
        units="nats (loo_kl), TV distance (loo_tv) or Brier score (loo_brier)",
        null="not a leave-one-out estimator, or the loss is infinite",
        default=None,
    )
    loss_mle: float | None = describe(
        "the same loss for the win rate's weights (1, 0, ...), for comparison",
        null="not a leave-one-out estimator, or the loss is infinite",
        default=None,
    )
    n_clipped: int | None = describe(
        "leave-one-out predictions clipped away from 0", null="not loo_kl", default=None
    )
    n_terms: int | None = describe(
        "leave-one-out terms in the loss", null="not a leave-one-out estimator", default=None
    )
    bound: float | None = describe(
        "worst-case TV error bound of the minimax weights", null="not minimax", default=None
    )
    bound_mle: float | None = describe(
        "the same bound for the win rate", null="not minimax", default=None
    )
    bound_k2: float | None = describe(
        "the same bound for the best K = 2 weights", null="not minimax", default=None
    )
    log_likelihood: float | None = describe(
        "log-likelihood of the fitted worths", units="nats", null="not Plackett–Luce", default=None
    )
    iterations: int | None = describe(
        "MM iterations of the fit", null="not Plackett–Luce", default=None
    )
    converged: bool | None = describe(
        "whether the fit converged", null="not Plackett–Luce", default=None
    )
    prior_strength: float | None = describe(
        "strength of the Gamma prior on worths", null="not Plackett–Luce", default=None
    )


@dataclass(frozen=True)
class Friedman:
    """Friedman's test that all algorithms rank alike, and Iman–Davenport's F form."""

    n_datasets: int = describe("datasets (blocks)")
    statistic: float = describe("chi-square statistic, corrected for ties")
    statistic_uncorrected: float = describe("chi-square statistic without the tie correction")
    pvalue: float = describe("p-value of the corrected statistic", units="probability")
    df: int = describe("degrees of freedom (m - 1)")
    iman_davenport: float | NotApplicable = describe(
        "Iman–Davenport F; not applicable when every dataset ranks the algorithms "
        "identically (F is infinite)"
    )
    iman_davenport_uncorrected: float | None = describe(
        "F from the uncorrected statistic", null="F is infinite"
    )
    iman_davenport_pvalue: float | NotApplicable = describe(
        "p-value of F; not applicable when F is (see exact_pvalue)", units="probability"
    )
    iman_davenport_df: tuple[int, int] = describe("F's degrees of freedom")
    exact_pvalue: float | None = describe(
        "exact permutation p-value of Friedman's statistic under perfect agreement: "
        "(m!/prod t!)^(1 - n) (m = 2, n = 2: 0.5)",
        units="probability",
        null="the datasets do not all rank the algorithms identically",
        default=None,
    )


@dataclass(frozen=True)
class NemenyiSummary:
    """Nemenyi's all-pairs test after Friedman: the parts the leaderboard shows."""

    alpha: float = describe("family-wise significance level")
    q_alpha: float = describe("critical value of the studentized range / sqrt 2")
    critical_difference: float = describe(
        "mean ranks further apart than this differ significantly", units="mean rank"
    )
    letters: tuple[str, ...] | NotApplicable = describe(
        "compact letter display per algorithm: algorithms sharing a letter are not "
        "significantly different",
        null="not applicable when an algorithm would carry more than 26 letters or there "
        "are more than 10000 groups (not readable)",
    )


@dataclass(frozen=True)
class WilcoxonSummary:
    """All-pairs Wilcoxon signed-rank tests across datasets: the leaderboard's part."""

    alpha: float = describe("significance level after correction")
    correction: Literal["holm", "bonferroni"] = describe("multiple-comparison correction")
    letters: tuple[str, ...] | NotApplicable = describe(
        "compact letter display per algorithm from the corrected tests",
        null="not applicable when an algorithm would carry more than 26 letters or there "
        "are more than 10000 groups (not readable)",
    )


@dataclass(frozen=True)
class Evaluation:
    """Which estimator predicts held-out datasets best (cross-validation over datasets),
    each compared with the win rate by a test fixed in advance (METHODS 7)."""

    log_loss: dict[str, float | None] = describe(
        "mean held-out log loss per estimator key (lower is better; add-half smoothing)",
        units="nats",
        null="the loss is infinite",
    )
    brier: dict[str, float | None] = describe(
        "mean held-out Brier score per estimator key (lower is better; a proper score)",
        units="Brier score, 0..2",
    )
    tv: dict[str, float | None] = describe(
        "mean held-out total-variation loss per estimator key (an improper score, shown "
        "for the paper's sake; it plays no part in the choice)",
        units="TV distance",
    )
    best: str = describe("estimator with the lowest mean log loss (ties: the earlier scheme)")
    win_share: dict[str, float | None] = describe(
        "share of the (repeat, fold) splits in which each estimator has the lowest held-out "
        "log loss (ties split)",
        units="share of splits, 0..1",
    )
    difference_vs_mle: dict[str, float | None] = describe(
        "mean over splits of the estimator's held-out log loss minus the win rate's "
        "(negative: predicts better than the win rate)",
        units="nats",
        null="the win rate itself",
    )
    pvalue_vs_mle: dict[str, float | None] = describe(
        "two-sided p-value of the Nadeau–Bengio corrected resampled t-test of each "
        "estimator against the win rate (pre-specified, not against a data-selected best)",
        units="probability",
        null="the win rate itself, or the split differences do not vary but are not zero",
    )
    predicts_best: str | None = describe(
        "the estimator that 'predicts best here': the lowest mean log loss, shown only when "
        "it beats the win rate significantly at alpha",
        null="no estimator predicts clearly better than the win rate",
    )
    verdict: str = describe("the sentence a page shows about the evaluation")
    alpha: float = describe("level of the comparison with the win rate")
    test_train_ratio: float = describe(
        "n_test / n_train of a split, in the Nadeau–Bengio variance factor 1/J + n_test/n_train"
    )
    n_folds: int = describe("folds over datasets")
    n_repeats: int = describe("repeats of the folds")
    leave_one_out: bool = describe("whether the folds are leave-one-dataset-out")


@dataclass(frozen=True)
class ControlComparison:
    """Every algorithm against one control (Demšar 2006 §3.2.2): per-algorithm arrays
    aligned with the board's algorithms; the control's own entries are null/false."""

    control: str = describe("the control algorithm")
    chosen_by: Literal["setting", "best_mean_rank", "page"] = describe(
        "where the control came from: the benchmark's setting, the best mean rank (no "
        "setting, or the set control is not ranked), or a page's choice"
    )
    alpha: float = describe("family-wise significance level")
    se: float = describe("sqrt(m (m + 1) / (6 n)), the standard error of a rank difference")
    q_alpha: float = describe(
        "Bonferroni-Dunn critical value: the normal quantile at 1 - alpha / (2 (m - 1))"
    )
    critical_difference: float = describe(
        "Bonferroni-Dunn CD: mean ranks further than this from the control's differ",
        units="mean rank",
    )
    z: tuple[float | None, ...] = describe(
        "(R_control - R_a) / se; z > 0: the algorithm has a better (lower) mean rank than "
        "the control",
        null="the control itself",
    )
    pvalue: tuple[float | None, ...] = describe(
        "two-sided normal p-value before correction", units="probability", null="the control"
    )
    pvalue_holm: tuple[float | None, ...] = describe(
        "Holm-adjusted p-value over the m - 1 comparisons",
        units="probability",
        null="the control",
    )
    pvalue_bonferroni_dunn: tuple[float | None, ...] = describe(
        "Bonferroni-Dunn-adjusted p-value (m - 1 times the raw one, at most 1)",
        units="probability",
        null="the control",
    )
    significant_holm: tuple[bool, ...] = describe("differs from the control by Holm at alpha")
    significant_bonferroni_dunn: tuple[bool, ...] = describe(
        "differs from the control by Bonferroni-Dunn at alpha (|R_a - R_c| > CD)"
    )


_NO_CONTROL = NotApplicable("computed by an engine before 0.5.0")


@dataclass(frozen=True)
class ScoreSummary:
    """The metric itself per algorithm, over the datasets used (in the metric's units)."""

    mean: tuple[float | None, ...] = describe(
        "mean over datasets of the dataset-level score (the fold mean when folds exist)",
        units="metric units",
        null="the algorithm has no score on any dataset used",
    )
    sd: tuple[float | None, ...] = describe(
        "standard deviation over datasets of the dataset-level score (n - 1 denominator)",
        units="metric units",
        null="fewer than two datasets with a score",
    )
    n_datasets: tuple[int, ...] = describe("datasets with a score, per algorithm")


@dataclass(frozen=True)
class MethodSensitivity:
    """Does the order depend on the method? Kendall's tau-b between the orders of every
    estimator and aggregate, and whether their first place and first three agree
    (estimation/core/sensitivity.py)."""

    methods: tuple[str, ...] = describe(
        "the methods compared: the estimators' registry keys, then 'mean_rank' and "
        "'mean_score' (when they apply)"
    )
    labels: tuple[str, ...] = describe("each method's name as readers see it")
    tau: tuple[tuple[float | None, ...], ...] = describe(
        "Kendall's tau-b between the orders of every two methods (a square matrix in "
        "methods order; values equal to 12 decimals tie)",
        units="-1..1",
        null="one of the two methods ties every algorithm",
    )
    leaders: tuple[str, ...] = describe(
        "each method's first algorithm (the board's tie rule: value, mean rank, name)"
    )
    top3: tuple[tuple[str, ...], ...] = describe("each method's first three algorithms")
    top1_agree: bool = describe("whether every method puts the same algorithm first")
    top3_agree: bool = describe("whether every method has the same first three (as a set)")
    min_tau: float | None = describe(
        "the smallest tau between two methods", units="-1..1", null="not defined"
    )
    sentence: str = describe(
        "one sentence: 'The winner does not depend on the method: ...' or 'The winner "
        "depends on the method: ...'"
    )


@dataclass(frozen=True)
class PracticalVersus:
    """The leader against one other algorithm, with the region of practical equivalence."""

    algorithm: str = describe("the other algorithm")
    leader_better: float = describe(
        "P(the leader is practically better: the difference exceeds the rope)",
        units="probability",
    )
    equivalent: float = describe(
        "P(practically equivalent: the difference is within the rope)", units="probability"
    )
    other_better: float = describe("P(the other is practically better)", units="probability")


@dataclass(frozen=True)
class PracticalLeader:
    """Practical equivalence of the board's leader with each other algorithm: what the
    verdict reads (the whole matrix is the 'practical' section)."""

    rope: float = describe(
        "half-width of the region of practical equivalence", units="metric units"
    )
    leader: str = describe("the board's leader under the recommended estimator")
    versus: tuple[PracticalVersus, ...] = describe(
        "the leader against each other algorithm, in the board's order (pairs without two "
        "datasets with both scores left out)"
    )
    decision_level: float = describe(
        "a probability at or above this is a decision (0.95)", units="probability"
    )
    n_samples: int = describe("posterior draws per pair (Monte-Carlo error <= 0.5/sqrt)")


@dataclass(frozen=True)
class Verdict:
    """The plain answer above the table: who is most likely to win the next dataset, and
    how sure we are, as numbers and as the sentences every view shows."""

    estimator: str = describe("the estimator the verdict reads (registry key)")
    leader: str = describe("the most probable winner (ties on P(win): better mean rank, then name)")
    probability: float | None = describe(
        "the leader's P(win)", units="probability", null="not defined"
    )
    lower: float | None = describe(
        "lower end of the leader's interval under the estimator: its own interval "
        "(EstimatorResult.bootstrap), the exact interval only for the win rate",
        units="probability",
        null="no interval",
    )
    upper: float | None = describe(
        "upper end of the leader's interval", units="probability", null="no interval"
    )
    interval: str = describe(
        "the interval's label as readers see it (e.g. '95 % bootstrap spread'; '' when none)"
    )
    tied: tuple[str, ...] = describe(
        "algorithms tied with the leader: equal P(win), or intervals overlapping so much "
        "that each point estimate lies inside the other's interval"
    )
    indistinguishable: tuple[str, ...] = describe(
        "algorithms the group test (see test) cannot tell apart from the leader"
    )
    test: str | None = describe(
        "the test behind indistinguishable ('Nemenyi' or 'Wilcoxon')",
        null="no group test applies",
    )
    leaders: dict[str, str] = describe("each estimator's leader, by registry key")
    p_best_leader: str | None = describe(
        "the algorithm with the highest P(best) under the estimator", null="no bootstrap"
    )
    sentences: tuple[str, ...] = describe(
        "the verdict in plain sentences; the first two carry the answer (the first from "
        "the plausible winners), the rest are detail a page may put behind 'more'"
    )
    groups_note: str | None = describe(
        "why Friedman's test can find a difference that no pair of the group test shows",
        null="there is no such contrast",
    )
    practically_equivalent: tuple[str, ...] = describe(
        "algorithms practically equivalent to the leader: P(equivalent) >= 0.95 under "
        "the Bayesian signed-rank test with the metric's rope (empty without a rope)",
        default=(),
    )


@dataclass(frozen=True)
class Board:
    """Everything the leaderboard table and its headline need: O(m) numbers."""

    schema_version: int = describe("version of this contract (estimation/core/contract.py)")
    engine_version: str = describe("version of the engine that computed the numbers")
    input: InputFacts = describe("what the numbers were computed from")
    settings: AnalysisSettings = describe("the analysis choices")
    k_used: int = describe("positions the top-K estimators used (k, capped by known_positions)")
    recommended: str = describe(
        "the benchmark's default estimator (registry key), chosen by the one rule "
        "recommended_by names; the verdict, the ranks, the evaluation's and the "
        "advisor's sentences and the badge all read it"
    )
    estimators: tuple[EstimatorResult, ...] = describe("every estimator, in registry order")
    win_interval: WinInterval | NotApplicable = describe(
        "confidence intervals for each algorithm's win probability on its win count "
        "(exact, and simultaneous by Bonferroni): they belong to the win rate (registry "
        "key 'mle') only, and are shown only beside it"
    )
    mean_rank: tuple[float | None, ...] | NotApplicable = describe(
        "mean rank per algorithm across datasets (1 = best); not applicable for top-K rankings",
        units="rank",
    )
    significance_rank: tuple[float | None, ...] | NotApplicable = describe(
        "mean significance-aware rank per algorithm (ties where the fold tests cannot "
        "separate algorithms); not applicable without folds",
        units="rank",
    )
    friedman: Friedman | NotApplicable = describe("Friedman's test across datasets")
    nemenyi: NemenyiSummary | NotApplicable = describe(
        "Nemenyi's test (pairwise p-values in the 'nemenyi' section)"
    )
    wilcoxon: WilcoxonSummary | NotApplicable = describe(
        "pairwise Wilcoxon tests (p-values in the 'wilcoxon' section)"
    )
    evaluation: Evaluation | NotApplicable = describe(
        "which estimator predicts best; not applicable for a single dataset (and, like "
        "each estimator's bootstrap, 'being computed' for a moment after the board is "
        "served, or 'not computed for this version' when newer results came first)"
    )
    notes: tuple[str, ...] = describe("what every view should say about the data, in words")
    control: ControlComparison | NotApplicable = describe(
        "comparison of every algorithm with the default control (settings.control, else "
        "the best mean rank); not applicable without complete rankings of two datasets",
        default=_NO_CONTROL,
    )
    scores: ScoreSummary | NotApplicable = describe(
        "the metric's mean and SD per algorithm; not applicable for rankings",
        default=NotApplicable("not computed"),
    )
    verdict: Verdict | NotApplicable = describe(
        "the plain answer for the recommended estimator (estimation/core/verdict.py)",
        default=NotApplicable("not computed"),
    )
    ranks: RankIntervals | NotApplicable = describe(
        "simultaneous rank intervals of the recommended estimator and the plausible "
        "winners; 'being computed' while the bootstrap is (as each estimator's "
        "bootstrap), and not applicable with the bootstrap's reason when it is",
        default=NotApplicable("computed by an engine before 0.7.0"),
    )
    recommended_by: str = describe(
        "one sentence naming the rule that chose the default estimator",
        default="",
    )
    sensitivity: MethodSensitivity | NotApplicable = describe(
        "whether the order depends on the estimator or aggregate (Kendall's tau-b, top-1 "
        "and top-3 agreement)",
        default=NotApplicable("computed by an engine before 0.8.0"),
    )
    practical: PracticalLeader | NotApplicable = describe(
        "practical equivalence of the leader with each other algorithm; not applicable "
        "without a rope (settings.rope) or without scores",
        default=NotApplicable("computed by an engine before 0.8.0"),
    )

    @property
    def algorithms(self) -> tuple[str, ...]:
        return self.input.algorithms

    def estimator(self, key: str) -> EstimatorResult:
        for result in self.estimators:
            if result.key == key:
                return result
        raise KeyError(key)

    @property
    def estimator_keys(self) -> tuple[str, ...]:
        return tuple(result.key for result in self.estimators)

    @property
    def win_rate(self) -> tuple[float | None, ...]:
        return self.estimator("mle").p

    def column(self, values: Sequence[Any] | NotApplicable) -> dict[str, Any]:
        """A per-algorithm array keyed by algorithm ({} when not applicable)."""
        if isinstance(values, NotApplicable):
            return {}
        return dict(zip(self.algorithms, values, strict=True))

    def letters(self) -> tuple[str | None, dict[str, str]]:
        """The group letters a table shows: Nemenyi's, else Wilcoxon's, with the test."""
        for test, summary in (("Nemenyi", self.nemenyi), ("Wilcoxon", self.wilcoxon)):
            if isinstance(summary, (NemenyiSummary, WilcoxonSummary)) and not isinstance(
                summary.letters, NotApplicable
            ):
                return test, self.column(summary.letters)
        return None, {}

    def order(self, estimator: str) -> list[int]:
        """Indices of the algorithms in the order every view lists them: the estimator's
        P(win) (equal to TIE_DIGITS decimals: one value, so float noise decides
        nothing), then the better mean rank, then the name."""
        p = np.round(np.array([v or 0.0 for v in self.estimator(estimator).p], float), TIE_DIGITS)
        ranks = np.full(len(p), np.inf)
        if not isinstance(self.mean_rank, NotApplicable):
            ranks = np.array([np.inf if r is None else r for r in self.mean_rank], dtype=float)
        if not len(p):
            return []
        return np.lexsort((np.array(self.algorithms, dtype=str), ranks, -p)).tolist()

    def top(self, n: int, estimator: str | None = None) -> list[str]:
        """The ``n`` most probable winners under ``estimator`` (default: recommended), in
        the board's order (:meth:`order`)."""
        return [self.algorithms[i] for i in self.order(estimator or self.recommended)[:n]]


# --- the large sections ---------------------------------------------------------------------


@dataclass(frozen=True)
class WinsSection:
    """How often each algorithm ranks above each other one: O(m²)."""

    algorithms: tuple[str, ...] = describe("the algorithms of the matrix, in order")
    wins: PairwiseMatrix = describe(
        "share of datasets where a_i ranks above a_j (ties count one half)",
        units="share of datasets, 0..1",
    )


@dataclass(frozen=True)
class NemenyiSection:
    """Nemenyi's pairwise p-values and the critical-difference groups: O(m²)."""

    algorithms: tuple[str, ...] = describe("the algorithms of the matrix, in order")
    pvalues: PairwiseMatrix = describe(
        "Nemenyi p-value of every pair (family-wise)", units="probability"
    )
    groups: tuple[tuple[int, ...], ...] | NotApplicable = describe(
        "maximal groups of algorithms (indices into algorithms) whose mean ranks are "
        "within the critical difference: the bars of a critical-difference diagram",
        null="not applicable above 200 algorithms (a diagram would not be readable)",
    )


@dataclass(frozen=True)
class PairNote:
    """A pair for which a test does not apply, and why."""

    a: int = describe("index of the first algorithm")
    b: int = describe("index of the second algorithm")
    reason: str = describe("why, in words")


@dataclass(frozen=True)
class WilcoxonSection:
    """All-pairs Wilcoxon signed-rank tests across datasets: O(m²)."""

    algorithms: tuple[str, ...] = describe("the algorithms of the matrices, in order")
    pvalues: PairwiseMatrix = describe(
        "p-value of every pair after the correction", units="probability"
    )
    pvalues_raw: PairwiseMatrix = describe("p-value before the correction", units="probability")
    rank_biserial: PairwiseMatrix = describe(
        "rank-biserial effect size (positive: a_i better than a_j)", units="-1..1"
    )
    groups: tuple[tuple[int, ...], ...] | NotApplicable = describe(
        "maximal groups of algorithms (indices) no pair of which differs significantly",
        null="not applicable above 200 algorithms (a diagram would not be readable)",
    )
    not_applicable_pairs: tuple[PairNote, ...] = describe(
        "pairs whose p-value needs a note, and why: no common dataset (no test, null "
        "p-value), or identical on every dataset (p = 1, counted in the correction like "
        "every tested pair)"
    )


@dataclass(frozen=True)
class RankMatrixSection:
    """Each algorithm's rank on each dataset used: O(m·n)."""

    algorithms: tuple[str, ...] = describe("columns")
    datasets: tuple[str, ...] = describe("rows")
    ranks: tuple[tuple[float, ...], ...] = describe(
        "ranks[d][a]: rank of algorithms[a] on datasets[d] (1 = best, ties averaged; for a "
        "top-K file, unlisted algorithms share the mean of the remaining positions)",
        units="rank",
    )


@dataclass(frozen=True)
class TukeyTable:
    """Repeated-measures Tukey HSD on one dataset's folds, with the per-fold Wilcoxon
    test beside it; every array is in pair order (:func:`pair_index`), a_i before a_j."""

    diff: tuple[float | None, ...] = describe(
        "mean fold score of a_i minus a_j, oriented so positive means a_i is better",
        units="metric units",
    )
    cohens_d: tuple[float | None, ...] = describe(
        "paired Cohen's d of the difference", null="the folds' differences do not vary"
    )
    pvalue: tuple[float | None, ...] = describe("Tukey p-value", units="probability")
    significant: tuple[bool, ...] = describe("whether pvalue < alpha")
    wilcoxon_pvalue: tuple[float | None, ...] = describe(
        "per-fold Wilcoxon p-value after the correction",
        units="probability",
        null="no paired differences",
    )
    rank_biserial: tuple[float | None, ...] = describe(
        "per-fold Wilcoxon rank-biserial effect size", units="-1..1"
    )
    ci_lower: tuple[float | None, ...] = describe(
        "lower end of the simultaneous Tukey interval of diff at level 1 - alpha (it "
        "excludes 0 exactly when the pair is significant); empty from engines before 0.5.0",
        units="metric units",
        default=(),
    )
    ci_upper: tuple[float | None, ...] = describe(
        "upper end of the simultaneous Tukey interval of diff",
        units="metric units",
        default=(),
    )


@dataclass(frozen=True)
class RepeatedMeasuresAnova:
    """The omnibus repeated-measures ANOVA on one dataset's folds: do the algorithms
    differ at all? (Folds are blocks; no sphericity correction.)"""

    statistic: float | None = describe(
        "F = MS_algorithms / MS_residual",
        null="not defined: the scores are exactly additive (no residual variation)",
    )
    pvalue: float | None = describe("upper tail of F(df)", units="probability", null="as statistic")
    df: tuple[int, int] = describe("(m - 1, (f - 1)(m - 1))")
    note: str | None = describe("why F is not defined", null="it is")


@dataclass(frozen=True)
class DatasetTests:
    """The within-dataset results of one dataset."""

    dataset: str = describe("its name")
    n_folds: int = describe("folds on which every algorithm has a score")
    significance_rank: tuple[float | None, ...] = describe(
        "significance-aware rank per algorithm on this dataset", units="rank"
    )
    tukey: TukeyTable | NotApplicable | None = describe(
        "the pairwise table; not applicable when the folds cannot support it",
        null="not stored with the snapshot (too many pairs: see the section's note); a "
        "page computes it on demand",
    )
    anova: RepeatedMeasuresAnova | NotApplicable | None = describe(
        "the omnibus test over all algorithms; not applicable when the folds cannot support it",
        null="computed by an engine before 0.5.0",
        default=None,
    )


@dataclass(frozen=True)
class WithinDatasetSection:
    """Tests on folds within each dataset: O(n·m²) when the tables are stored."""

    algorithms: tuple[str, ...] = describe("the algorithms, in order")
    datasets: tuple[DatasetTests, ...] = describe("one entry per dataset used")
    note: str | None = describe("why the pairwise tables are not stored", null="they are stored")

    def entry(self, dataset: str) -> DatasetTests | None:
        return next((d for d in self.datasets if d.dataset == dataset), None)


# --- the estimator advisor ------------------------------------------------------------------


@dataclass(frozen=True)
class AdvisorEstimator:
    """One estimator's average errors over the simulated benchmarks of one size."""

    key: str = describe("registry key")
    kl: float | None = describe(
        "mean KL divergence from the truth's win probabilities to the estimate (the "
        "estimate with the evaluation's add-half smoothing, for every estimator alike)",
        units="nats",
        null="not finite",
    )
    tv: float | None = describe(
        "mean sum of absolute errors sum_a |p_hat[a] - p[a]| (twice the total-variation "
        "distance; what the minimax bound bounds)",
        units="probability",
        null="not finite",
    )
    leader_first: float | None = describe(
        "share of simulated benchmarks in which the estimator ranks the true leader "
        "first (ties split)",
        units="share, 0..1",
        null="not finite",
    )
    spread_width: float | None = describe(
        "central 95% range of the estimate of the leader's win probability across the "
        "simulated benchmarks",
        units="probability",
        null="not finite",
    )


@dataclass(frozen=True)
class AdvisorSize:
    """Every estimator at one number of datasets."""

    n_datasets: int = describe("datasets in each simulated benchmark")
    factor: int = describe("n_datasets as a multiple of the benchmark's (1, 2 or 4)")
    n_simulations: int = describe("simulated benchmarks")
    interval_width: float | None = describe(
        "mean width of the 95% exact (Clopper-Pearson) interval on the leader's win count "
        "(the win rate's interval, registry.WIN_RATE_INTERVAL_KIND)",
        units="probability",
        null="not finite",
    )
    best: str = describe("the estimator with the lowest mean KL error here")
    estimators: tuple[AdvisorEstimator, ...] = describe("every estimator, in registry order")


@dataclass(frozen=True)
class AdvisorTruth:
    """One model of the benchmark's population and the simulations drawn from it."""

    truth: Literal["plackett_luce", "empirical", "mixture"] = describe(
        "'plackett_luce': the fitted Plackett–Luce model (exact win probabilities); "
        "'empirical': the benchmark's own rankings, resampled (the win shares); "
        "'mixture': each dataset from either, with probability 1/2 (the average of the "
        "two; no estimator's own model, so its recommendation is not circular)"
    )
    p: tuple[float | None, ...] = describe(
        "the truth's win probability per algorithm", units="probability"
    )
    leader: str = describe("the truth's most probable winner")
    sizes: tuple[AdvisorSize, ...] = describe("the simulated sizes, smallest first")


@dataclass(frozen=True)
class AdvisorPower:
    """How many more datasets: the power of Wilcoxon's test of #1 against #2, simulated
    from the observed paired differences (estimation/core/power.py)."""

    first: str = describe("the board's #1 under the recommended estimator")
    second: str = describe("the board's #2")
    alpha: float = describe("level of the two-sided test (the pair alone)")
    power: float = describe("the power asked for (0.8)")
    n_datasets: int = describe("datasets with scores of both")
    observed_difference: float = describe(
        "mean paired difference #1 - #2 (larger is better)", units="metric units"
    )
    detectable_difference: float | None = describe(
        "smallest shift of #1 over #2 the test detects with this power at n_datasets",
        units="metric units",
        null="not found within the search bound",
    )
    power_at_observed: float = describe(
        "simulated power at n_datasets if the differences are as observed", units="share"
    )
    datasets_needed: int | None = describe(
        "smallest number of datasets with this power if the differences are as observed",
        null="identical pairs, or beyond the simulation's bound (see note)",
    )
    n_simulations: int = describe("simulated benchmarks per power evaluation")
    sentence: str = describe("the figures in one sentence")
    note: str | None = describe("why a figure is missing", null="nothing to add")


@dataclass(frozen=True)
class AdvisorSection:
    """The estimator advisor and size planner (METHODS section 8): which estimator is
    closest to the truth at this benchmark's size, and at twice and four times as many
    datasets, on benchmarks simulated from its own fitted model."""

    algorithms: tuple[str, ...] = describe("the algorithms of every p, in order")
    k_used: int = describe("positions the top-K estimators used")
    n_datasets: int = describe("the benchmark's datasets (n)")
    n_simulations: int = describe("simulated benchmarks per size and truth (bounded)")
    seed: int = describe("seed of the simulations")
    truths: tuple[AdvisorTruth, ...] = describe(
        "the Plackett–Luce truth, the empirical, then the mixture (the one the "
        "recommendation reads)"
    )
    notes: tuple[str, ...] = describe("what was cut to bound the cost, in words")
    power: AdvisorPower | NotApplicable = describe(
        "how many more datasets would separate #1 from #2; not applicable for rankings",
        default=NotApplicable("computed by an engine before 0.8.0"),
    )

    def truth(self, name: str) -> AdvisorTruth | None:
        return next((t for t in self.truths if t.truth == name), None)


# --- practical equivalence ----------------------------------------------------------------


@dataclass(frozen=True)
class PracticalSection:
    """Practical equivalence of every pair of the first algorithms (METHODS 6.1): the
    Bayesian signed-rank test over datasets with the metric's region of practical
    equivalence (Benavoli et al. 2017), O(k²) for the k algorithms compared."""

    algorithms: tuple[str, ...] = describe(
        "the algorithms compared (the board's first ones, in the board's algorithm order)"
    )
    rope: float = describe(
        "half-width of the region of practical equivalence", units="metric units"
    )
    better: PairwiseMatrix = describe(
        "P(a_i practically better than a_j) for every ordered pair (upper: i over j, "
        "lower: j over i)",
        units="probability",
    )
    equivalent: PairwiseMatrix = describe(
        "P(a_i and a_j practically equivalent) (symmetric)", units="probability"
    )
    n_datasets: PairwiseMatrix = describe("datasets with scores of both, per pair")
    n_samples: int = describe("posterior draws per pair (shared by every pair)")
    seed: int = describe("seed of the posterior draws")
    decision_level: float = describe(
        "a probability at or above this is a decision (0.95)", units="probability"
    )
    notes: tuple[str, ...] = describe("what was capped to bound the cost, in words")


# --- one section for chosen algorithms ---------------------------------------------------


def _take(values: Sequence[Any], keep: Sequence[int]) -> tuple[Any, ...]:
    return tuple(values[i] for i in keep)


def _pair_positions(keep: Sequence[int], m: int) -> list[int]:
    """Old pair positions of the kept pairs, in the new pair order (``keep`` ascending)."""
    return [pair_index(a, b, m) for x, a in enumerate(keep) for b in keep[x + 1 :]]


def _groups(
    groups: tuple[tuple[int, ...], ...] | NotApplicable, keep: Sequence[int]
) -> tuple[tuple[int, ...], ...] | NotApplicable:
    if isinstance(groups, NotApplicable):  # not computed at full size: still not shown
        return groups
    new = {old: k for k, old in enumerate(keep)}
    out: list[tuple[int, ...]] = []
    for group in groups:
        kept = tuple(new[i] for i in group if i in new)
        if kept and kept not in out:
            out.append(kept)
    return tuple(out)


def restrict(section: Any, keep: Sequence[int]) -> Any:
    """``section`` for the algorithms at indices ``keep`` only (in the section's order).

    Every value is the stored one: a pair's p-value, a group's members, a dataset's ranks.
    A :class:`NotApplicable` section stays as it is.
    """
    if isinstance(section, NotApplicable):
        return section
    keep = sorted(set(keep))
    m = len(section.algorithms)
    names = _take(section.algorithms, keep)
    if isinstance(section, WinsSection):
        return WinsSection(algorithms=names, wins=section.wins.restricted(keep, m))
    if isinstance(section, NemenyiSection):
        return NemenyiSection(
            algorithms=names,
            pvalues=section.pvalues.restricted(keep, m),
            groups=_groups(section.groups, keep),
        )
    if isinstance(section, WilcoxonSection):
        new = {old: k for k, old in enumerate(keep)}
        return WilcoxonSection(
            algorithms=names,
            pvalues=section.pvalues.restricted(keep, m),
            pvalues_raw=section.pvalues_raw.restricted(keep, m),
            rank_biserial=section.rank_biserial.restricted(keep, m),
            groups=_groups(section.groups, keep),
            not_applicable_pairs=tuple(
                PairNote(a=new[p.a], b=new[p.b], reason=p.reason)
                for p in section.not_applicable_pairs
                if p.a in new and p.b in new
            ),
        )
    if isinstance(section, RankMatrixSection):
        return RankMatrixSection(
            algorithms=names,
            datasets=section.datasets,
            ranks=tuple(_take(row, keep) for row in section.ranks),
        )
    if isinstance(section, WithinDatasetSection):
        positions = _pair_positions(keep, m)

        def table(tukey: TukeyTable | NotApplicable | None) -> TukeyTable | NotApplicable | None:
            if not isinstance(tukey, TukeyTable):
                return tukey
            return TukeyTable(
                **{
                    f.name: _take(values, positions) if values else values
                    for f in fields(TukeyTable)
                    for values in [getattr(tukey, f.name)]
                }
            )

        return WithinDatasetSection(
            algorithms=names,
            datasets=tuple(
                DatasetTests(
                    dataset=d.dataset,
                    n_folds=d.n_folds,
                    significance_rank=_take(d.significance_rank, keep),
                    tukey=table(d.tukey),
                    anova=d.anova,
                )
                for d in section.datasets
            ),
            note=section.note,
        )
    if isinstance(section, AdvisorSection):
        return section  # about the estimators, O(m): served whole
    if isinstance(section, PracticalSection):
        return PracticalSection(
            algorithms=names,
            rope=section.rope,
            better=section.better.restricted(keep, m),
            equivalent=section.equivalent.restricted(keep, m),
            n_datasets=section.n_datasets.restricted(keep, m),
            n_samples=section.n_samples,
            seed=section.seed,
            decision_level=section.decision_level,
            notes=section.notes,
        )
    raise TypeError(f"cannot restrict a {type(section).__name__}")


MAX_CHOSEN_ALGORITHMS = 1000


class UnknownAlgorithmsError(ValueError):
    """Names chosen by :func:`choose_algorithms` that the snapshot does not have."""


def choose_algorithms(
    algorithms: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    top: Sequence[str] | None = None,
) -> list[int]:
    """Indices into ``algorithms`` of the chosen ``names`` (every one must exist, at most
    :data:`MAX_CHOSEN_ALGORITHMS`), or of ``top`` (already the chosen names, e.g.
    :meth:`Board.top`). A ``ValueError`` names the parameter and the unknown names."""
    if names is not None and top is not None:
        raise ValueError("algorithms and top: give one or the other")
    chosen = list(names if names is not None else top or [])
    if names is not None:
        if not chosen:
            raise ValueError("algorithms: name at least one algorithm")
        if len(chosen) > MAX_CHOSEN_ALGORITHMS:
            raise ValueError(f"algorithms: at most {MAX_CHOSEN_ALGORITHMS} names")
    position = {name: i for i, name in enumerate(algorithms)}
    unknown = [name for name in chosen if name not in position]
    if unknown:
        shown = ", ".join(repr(n[:100]) for n in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise UnknownAlgorithmsError(f"algorithms: not in this snapshot: {shown}{more}")
    return sorted({position[name] for name in chosen})


SECTION_TYPES: dict[str, Any] = {
    "board": Board,
    "wins": WinsSection | NotApplicable,
    "nemenyi": NemenyiSection | NotApplicable,
    "wilcoxon": WilcoxonSection | NotApplicable,
    "rank_matrix": RankMatrixSection | NotApplicable,
    "within_dataset": WithinDatasetSection | NotApplicable,
    "advisor": AdvisorSection | NotApplicable,
    "practical": PracticalSection | NotApplicable,
}
SECTION_NAMES: tuple[str, ...] = tuple(SECTION_TYPES)


@dataclass(frozen=True)
class SnapshotPayload:
    """A whole analysis: every section (what ``analyze --json`` prints)."""

    schema_version: int = describe("version of this contract")
    engine_version: str = describe("version of the engine")
    board: Board = describe("the leaderboard's O(m) section")
    wins: WinsSection | NotApplicable = describe(
        "pairwise wins, O(m²); not applicable above the stored number of pairs "
        "(analysis.MAX_WINS_PAIRS)"
    )
    nemenyi: NemenyiSection | NotApplicable = describe(
        "Nemenyi's pairwise p-values; not applicable for top-K rankings or at a size "
        "where the matrix is not stored"
    )
    wilcoxon: WilcoxonSection | NotApplicable = describe(
        "pairwise Wilcoxon tests; not applicable for rankings or a single dataset"
    )
    rank_matrix: RankMatrixSection | NotApplicable = describe(
        "ranks per dataset; not applicable above the stored size"
    )
    within_dataset: WithinDatasetSection | NotApplicable = describe(
        "tests on folds; not applicable without folds"
    )
    advisor: AdvisorSection | NotApplicable = describe(
        "the estimator advisor; not applicable for a single algorithm or dataset, or "
        "beyond the simulation budget (and in analyze(advisor=False), whose caller runs "
        "analyze_advisor later: the recompute service stores it right after the other "
        "sections, so for a moment a served snapshot may not have it yet)",
        default=NotApplicable("computed by an engine before 0.5.0"),
    )
    practical: PracticalSection | NotApplicable = describe(
        "practical equivalence of every pair of the board's first algorithms; not "
        "applicable without a rope or without scores",
        default=NotApplicable("computed by an engine before 0.8.0"),
    )

    def sections(self) -> dict[str, Any]:
        """{name: typed section} in :data:`SECTION_NAMES` order."""
        return {name: getattr(self, name) for name in SECTION_NAMES}

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SnapshotPayload:
        return from_json(cls, data)


def section_to_json(name: str, section: Any) -> dict[str, Any]:
    if name not in SECTION_TYPES:
        raise ValueError(f"section must be one of {list(SECTION_NAMES)}, got {name!r}")
    return to_json(section)


def section_from_json(name: str, data: Any) -> Any:
    if name not in SECTION_TYPES:
        raise ValueError(f"section must be one of {list(SECTION_NAMES)}, got {name!r}")
    return from_json(SECTION_TYPES[name], data)


# --- JSON <-> dataclasses -------------------------------------------------------------------

_PRIMITIVES = (str, int, float, bool)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))


def _is_dataclass_type(tp: Any) -> TypeGuard[type]:
    return isinstance(tp, type) and is_dataclass(tp)


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def to_json(value: Any) -> Any:
    """Plain JSON (dicts, lists, str, numbers, bools, None) of a contract object."""
    if isinstance(value, NotApplicable):
        return {"not_applicable": value.reason}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        if not value or isinstance(value[0], (*_PRIMITIVES, type(None))):
            if all(v is None or isinstance(v, _PRIMITIVES) for v in value):
                return list(value)
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def _is_flat_sequence(tp: Any) -> bool:
    """tuple[<primitive or primitive | None>, ...]: converted with one tuple() call."""
    if typing.get_origin(tp) is not tuple:
        return False
    args = typing.get_args(tp)
    if len(args) != 2 or args[1] is not Ellipsis:
        return False
    item = args[0]
    if item in _PRIMITIVES:
        return True
    return _is_union(item) and all(a in (*_PRIMITIVES, type(None)) for a in typing.get_args(item))


def from_json(tp: Any, data: Any) -> Any:
    """The contract object of type ``tp`` from its JSON; a ``ValueError`` says where the
    data do not fit."""
    return _from_json(tp, data, "$")


def _from_json(tp: Any, data: Any, path: str) -> Any:
    if tp is Any:
        return data
    if _is_union(tp):
        args = typing.get_args(tp)
        if data is None:
            if type(None) in args:
                return None
            raise ValueError(f"{path}: null is not allowed here")
        if isinstance(data, dict) and "not_applicable" in data and NotApplicable in args:
            return NotApplicable(str(data["not_applicable"]))
        others = [a for a in args if a not in (type(None), NotApplicable)]
        if len(others) == 1:
            return _from_json(others[0], data, path)
        if all(a in _PRIMITIVES for a in others):
            return data
        raise TypeError(f"{path}: ambiguous union {tp}")
    origin = typing.get_origin(tp)
    if origin is Literal:
        if data not in typing.get_args(tp):
            raise ValueError(f"{path}: {data!r} is not one of {list(typing.get_args(tp))}")
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise ValueError(f"{path}: expected a list")
        if _is_flat_sequence(tp):
            if _float_items(tp):
                return tuple(float(v) if type(v) is int else v for v in data)
            return tuple(data)
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(args[0], v, f"{path}[{k}]") for k, v in enumerate(data))
        return tuple(
            _from_json(a, v, f"{path}[{k}]")
            for k, (a, v) in enumerate(zip(args, data, strict=True))
        )
    if origin is dict:
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object")
        value_type = typing.get_args(tp)[1]
        return {k: _from_json(value_type, v, f"{path}.{k}") for k, v in data.items()}
    if _is_dataclass_type(tp):
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in fields(tp):
            if f.name in data:
                kwargs[f.name] = _from_json(hints[f.name], data[f.name], f"{path}.{f.name}")
            elif f.default is MISSING:
                raise ValueError(f"{path}: {tp.__name__} needs {f.name!r}")
        return tp(**kwargs)
    if tp is float:
        if not isinstance(data, (int, float)) or isinstance(data, bool):
            raise ValueError(f"{path}: expected a number")
        return float(data)
    if tp in (str, int, bool):
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise ValueError(f"{path}: expected {tp.__name__}")
        return data
    raise TypeError(f"{path}: unsupported type {tp!r}")


@cache
def _float_items(tp: Any) -> bool:
    item = typing.get_args(tp)[0]
    return item is float or (_is_union(item) and float in typing.get_args(item))


# --- JSON Schema and the field reference ---------------------------------------------------

SCHEMA_ID = "https://podium.invalid/schemas/snapshot.schema.json"


def _schema_of(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if tp is NotApplicable:
        _define(NotApplicable, defs)
        return {"$ref": "#/$defs/NotApplicable"}
    if _is_union(tp):
        args = typing.get_args(tp)
        primitives = [a for a in args if a in (*_PRIMITIVES, type(None))]
        if len(primitives) == len(args):
            return {"type": [_JSON_TYPES[a] for a in args]}
        return {"anyOf": [_schema_of(a, defs) for a in args]}
    origin = typing.get_origin(tp)
    if origin is Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema_of(args[0], defs)}
        return {
            "type": "array",
            "prefixItems": [_schema_of(a, defs) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema_of(typing.get_args(tp)[1], defs)}
    if _is_dataclass_type(tp):
        _define(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if tp in _JSON_TYPES:
        return {"type": _JSON_TYPES[tp]}
    raise TypeError(f"no JSON Schema for {tp!r}")


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _summary(cls: type) -> str:
    return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())


def _field_text(f: Any) -> str:
    text = f.metadata.get("meaning", "")
    if f.metadata.get("units"):
        text += f" [{f.metadata['units']}]"
    if f.metadata.get("null"):
        text += f". Null when: {f.metadata['null']}"
    return text


def _define(cls: type, defs: dict[str, Any]) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # placeholder against recursion
    if cls is NotApplicable:
        defs[cls.__name__] = {
            "description": _summary(cls),
            "type": "object",
            "properties": {"not_applicable": {"type": "string", "minLength": 1}},
            "required": ["not_applicable"],
            "additionalProperties": False,
        }
        return
    hints = _hints(cls)
    properties = {}
    for f in fields(cls):
        schema = _schema_of(hints[f.name], defs)
        properties[f.name] = {**schema, "description": _field_text(f)}
    defs[cls.__name__] = {
        "description": _summary(cls),
        "type": "object",
        "properties": properties,
        "required": [f.name for f in fields(cls)],
        "additionalProperties": False,
    }


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a whole payload; each section is a ``$defs`` entry and
    ``#/$defs/sections/<name>`` validates one section alone."""
    defs: dict[str, Any] = {}
    root = _schema_of(SnapshotPayload, defs)
    sections = {name: _schema_of(tp, defs) for name, tp in SECTION_TYPES.items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"Podium snapshot payload, schema version {SCHEMA_VERSION}",
        "description": _summary(SnapshotPayload),
        **root,
        "$defs": {**dict(sorted(defs.items())), "sections": sections},
    }


def section_schema(name: str) -> dict[str, Any]:
    """A schema that validates one section alone (refers into :func:`json_schema`)."""
    whole = json_schema()
    return {
        "$schema": whole["$schema"],
        "title": f"Podium snapshot section {name!r}, schema version {SCHEMA_VERSION}",
        **whole["$defs"]["sections"][name],
        "$defs": whole["$defs"],
    }


def _type_text(tp: Any) -> str:
    if tp is type(None):
        return "null"
    if _is_union(tp):
        return " or ".join(_type_text(a) for a in typing.get_args(tp))
    origin = typing.get_origin(tp)
    if origin is Literal:
        return " | ".join(f"`{v}`" for v in typing.get_args(tp))
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"array of {_type_text(args[0])}"
        return f"[{', '.join(_type_text(a) for a in args)}]"
    if origin is dict:
        return f"object of {_type_text(typing.get_args(tp)[1])}"
    if _is_dataclass_type(tp):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(tp, str(tp))


def contract_markdown() -> str:
    """The field reference (``docs/snapshot-contract.md``), generated from the metadata."""
    defs: dict[str, Any] = {}
    _schema_of(SnapshotPayload, defs)
    order = [SnapshotPayload, *(t for t in _dataclasses_in_order() if t is not SnapshotPayload)]
    lines = [
        "# The snapshot contract",
        "",
        "<!-- Generated by `python -m estimation.core.contract`; edit the field metadata in",
        "estimation/core/contract.py, not this file. -->",
        "",
        f"Schema version **{SCHEMA_VERSION}**. JSON Schema: `docs/snapshot.schema.json` "
        "(served at `/api/contract/snapshot.schema.json`).",
        "",
        *(line.rstrip() for line in (sys.modules[__name__].__doc__ or "").strip().splitlines()),
        "",
        "Every number is a JSON number or null; NaN and infinities never appear. A view "
        'that does not apply is `{"not_applicable": "<reason>"}` (type NotApplicable).',
        "",
    ]
    for cls in order:
        lines += [f"## {cls.__name__}", "", _summary(cls), ""]
        if cls is NotApplicable:
            lines += [
                "| field | type | meaning |",
                "|---|---|---|",
                "| `not_applicable` | string | why the view does not apply, in words |",
                "",
            ]
            continue
        lines += ["| field | type | units | meaning | null when |", "|---|---|---|---|---|"]
        hints = _hints(cls)
        for f in fields(cls):
            meta = f.metadata
            lines.append(
                f"| `{f.name}` | {_type_text(hints[f.name])} | {meta.get('units', '')} | "
                f"{meta.get('meaning', '')} | {meta.get('null', '')} |"
            )
        lines.append("")
    return "\n".join(lines)


def _dataclasses_in_order() -> list[type]:
    seen: list[type] = []

    def visit(tp: Any) -> None:
        if _is_union(tp) or typing.get_origin(tp) in (tuple, dict):
            for arg in typing.get_args(tp):
                if arg is not Ellipsis:
                    visit(arg)
            return
        if _is_dataclass_type(tp) and tp not in seen:
            seen.append(tp)
            for hint in _hints(tp).values():
                visit(hint)

    visit(SnapshotPayload)
    return seen


def main() -> None:
    """Regenerate docs/snapshot.schema.json and docs/snapshot-contract.md."""
    from pathlib import Path

    docs = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    docs.mkdir(exist_ok=True)
    (docs / "snapshot.schema.json").write_text(json.dumps(json_schema(), indent=2) + "\n")
    (docs / "snapshot-contract.md").write_text(contract_markdown())


if __name__ == "__main__":
    main()
