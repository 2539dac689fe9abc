"""The ``board`` section: O(m), everything the leaderboard table and its headline need."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from estimation.core.contract.basics import NotApplicable, describe
from estimation.core.contract.codec import to_json
from estimation.core.rank_inference import TIE_DIGITS
from estimation.core.registry import ESTIMATOR_KEYS, PODIUM_DEFAULT_ESTIMATOR

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
        "lower end of the estimator's own interval, per algorithm; never above p (a Borda "
        "or minimax share that every dataset gave alike: the exact bound for values that "
        "never varied, see method)",
        units="probability",
        null="a Plackett-Luce worth share where every dataset ranked the algorithms alike "
        "(a point would claim certainty)",
    )
    upper: tuple[float | None, ...] = describe(
        "upper end of the estimator's own interval; never below p",
        units="probability",
        null="as lower",
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

    estimator: str = describe(
        "registry key of the estimator whose estimand is ranked ('borda' for expected ranks)"
    )
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
        "the confidence set of the best, in the order the board lists rows: every member's "
        "rank interval starts at 1 (an interval may start at 1 outside it: the set needs "
        "only the best's own comparisons, the intervals every pair's)"
    )
    question: Literal["best_on_average", "next_win"] = describe(
        "which question the set and the intervals answer: 'best_on_average', the best "
        "expected rank across datasets (paired comparisons of ranks), or 'next_win', the "
        "highest probability of winning the next dataset (top-K input, whose lower ranks "
        "are unknown)",
        default="next_win",
    )
    question_words: str = describe(
        "the question in the words the page uses", default="most likely to win the next dataset"
    )
    separating_datasets: int | None = describe(
        "best_on_average only: about how many datasets with paired rank differences like "
        "the observed ones would leave the best mean rank alone in the set of the best (a "
        "rough plug-in figure)",
        units="datasets",
        null="the set has one member, the question is next_win, or no number of such "
        "datasets would separate them",
        default=None,
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
        "lower end of the leader's interval under the estimator (verdict.win_band): beside "
        "an estimate of P(win), the exact interval of the true P(win) (Board.win_interval); "
        "beside a Borda score, a worth share or a minimax share, its own interval "
        "(EstimatorResult.bootstrap)",
        units="probability",
        null="no interval",
    )
    upper: float | None = describe(
        "upper end of the leader's interval", units="probability", null="no interval"
    )
    interval: str = describe(
        "the interval's label as readers see it (e.g. '95 % confidence interval of the true "
        "P(win)', '95 % bootstrap spread'; '' when none)"
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

    schema_version: int = describe("version of this contract (estimation/core/contract/)")
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
        "simultaneous rank intervals and the plausible winners: of the expected rank on "
        "whole rankings (paired comparisons, no bootstrap: present on the board served "
        "first), of the recommended estimator's P(win) on top-K lists (from its bootstrap: "
        "'being computed' while the bootstrap is, and not applicable with the "
        "bootstrap's reason when it is)",
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
