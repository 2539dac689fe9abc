"""The large sections (pairwise matrices, ranks per dataset, tests within datasets) and
the estimator advisor's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from estimation.core.contract.basics import NotApplicable, PairwiseMatrix, describe, pair_index

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
class PairwiseScope:
    """Which algorithms the pairwise sections (wins, nemenyi, wilcoxon) cover when the
    board is too large for every pair, and what a pair outside them needs to be computed
    on demand, exactly, from the stored O(m·n) ranks and scores: O(m) at the most."""

    n_algorithms: int = describe("algorithms on the board")
    algorithms: tuple[str, ...] = describe(
        "the algorithms the pairwise sections cover (the first by mean rank, then name), "
        "in the board's order"
    )
    reason: str = describe("why only these, in words")
    n_datasets: int = describe("datasets of the rank tests (Nemenyi's n)")
    wilcoxon_family: int | None = describe(
        "pairs in the Wilcoxon correction's family (every pair with a common dataset)",
        null="the Wilcoxon tests are not applicable",
    )
    holm_raw: tuple[float, ...] = describe(
        "Holm: the raw p-values at which the corrected p-value steps up, ascending (only "
        "below the point where it reaches 1)",
        units="probability",
    )
    holm_corrected: tuple[float, ...] = describe(
        "Holm: the corrected p-value of a pair whose raw p-value is at or above holm_raw[k] "
        "(and below holm_raw[k + 1])",
        units="probability",
    )
    holm_one_from: float | None = describe(
        "Holm: a pair whose raw p-value is at or above this has corrected p-value 1",
        null="no pair reaches 1 (or the correction is not Holm's)",
        units="probability",
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
class DatasetScoresSection:
    """The dataset-level values the analysis ranked, O(m·n): what a page shows as one
    dataset's column of a version, whatever scores arrive after it."""

    algorithms: tuple[str, ...] = describe("columns: the ranked algorithms (the board's)")
    datasets: tuple[str, ...] = describe("rows: the datasets used (the board's)")
    values: tuple[tuple[float | None, ...], ...] = describe(
        "values[d][a]: the score of algorithms[a] on datasets[d] as the analysis read it "
        "(the engine's mean over folds where folds were given; the published position "
        "for a ranking file), before the missing-data policy fills anything in",
        units="metric units",
        null="no result of that algorithm on that dataset",
    )

    def column(self, dataset: str) -> dict[str, float]:
        """{algorithm: value} of one dataset (algorithms without a result left out)."""
        if dataset not in self.datasets:
            return {}
        row = self.values[self.datasets.index(dataset)]
        return {a: v for a, v in zip(self.algorithms, row, strict=True) if v is not None}


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
class StandardErrorTable:
    """z-tests of every pair on one dataset without folds, from the standard errors its
    source gave with each score; every array is in pair order (:func:`pair_index`), a_i
    before a_j, ``None`` where a pair was not tested (a score or a standard error
    missing)."""

    diff: tuple[float | None, ...] = describe(
        "score of a_i minus a_j, oriented so positive means a_i is better",
        units="metric units",
        null="not tested",
    )
    se: tuple[float | None, ...] = describe(
        "combined standard error sqrt(se_i^2 + se_j^2)", units="metric units", null="not tested"
    )
    z: tuple[float | None, ...] = describe(
        "diff / se", null="not tested, or infinite (both standard errors 0, scores differ)"
    )
    pvalue: tuple[float | None, ...] = describe(
        "two-sided normal p-value of z after the correction across this dataset's pairs",
        units="probability",
        null="not tested",
    )
    significant: tuple[bool, ...] = describe(
        "whether pvalue < alpha; false: not separable by the standard errors"
    )
    correction: Literal["holm", "bonferroni"] = describe(
        "the family-wise correction across this dataset's tested pairs"
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
    standard_errors: StandardErrorTable | None = describe(
        "where the dataset has no folds: the z-tests by the source's standard errors, "
        "which its significance_rank then counts",
        null="the dataset has folds, or its scores came without standard errors, or an "
        "engine before 0.16.0",
        default=None,
    )


@dataclass(frozen=True)
class WithinDatasetSection:
    """Tests within each dataset, on its folds or else on the standard errors its source
    gave with each score: O(n·m²) when the tables are stored."""

    algorithms: tuple[str, ...] = describe("the algorithms, in order")
    datasets: tuple[DatasetTests, ...] = describe("one entry per dataset used")
    note: str | None = describe("why the pairwise tables are not stored", null="they are stored")

    def entry(self, dataset: str) -> DatasetTests | None:
        return next((d for d in self.datasets if d.dataset == dataset), None)

    def standard_error_test(self, dataset: str, a: str, b: str) -> StandardErrorPair | None:
        """The stored z-test of ``a`` against ``b`` on ``dataset`` by the files' standard
        errors, oriented so that a positive difference means ``a`` did better: the one
        reading of the engine's decision that every page shares. None where the snapshot
        did not test the pair there (the dataset has folds or no table, a score or a
        standard error is missing, either is not one of the algorithms)."""
        entry = self.entry(dataset)
        return None if entry is None else self._standard_error_pair(entry, a, b)

    def standard_error_tests(self, a: str, b: str) -> dict[str, StandardErrorPair]:
        """:meth:`standard_error_test` of the pair on every dataset that tested it."""
        found = {}
        for entry in self.datasets:
            test = self._standard_error_pair(entry, a, b)
            if test is not None:
                found[entry.dataset] = test
        return found

    def _standard_error_pair(self, entry: DatasetTests, a: str, b: str) -> StandardErrorPair | None:
        table = entry.standard_errors
        if table is None or a == b or a not in self.algorithms or b not in self.algorithms:
            return None
        i, j = self.algorithms.index(a), self.algorithms.index(b)
        k = pair_index(min(i, j), max(i, j), len(self.algorithms))
        if table.se[k] is None:
            return None
        flip = -1.0 if i > j else 1.0
        diff, z = table.diff[k], table.z[k]
        return StandardErrorPair(
            diff=None if diff is None else flip * diff,
            se=table.se[k],
            z=None if z is None else flip * z,
            pvalue=table.pvalue[k],
            significant=table.significant[k],
            correction=table.correction,
        )


@dataclass(frozen=True)
class StandardErrorPair:
    """One pair's stored z-test on one dataset, read from its :class:`StandardErrorTable`
    by :meth:`WithinDatasetSection.standard_error_test` (not a field of the payload)."""

    diff: float | None  # a minus b, positive: a better
    se: float | None  # sqrt(se_a^2 + se_b^2)
    z: float | None  # None: infinite (both standard errors 0, scores differ)
    pvalue: float | None  # after the correction across the dataset's pairs
    significant: bool  # False: not separable by the standard errors
    correction: str


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
    datasets_needed_low: int | None = describe(
        "lower end of the 95 % confidence interval of datasets_needed (the outer ends of "
        "two scalings: by the interval of P(d_i + d_j > 0), which the signed-rank test's "
        "sample size follows (Noether), and by the exact interval of mean/sd for normal "
        "differences)",
        null="no datasets_needed, or the differences do not vary",
    )
    datasets_needed_high: int | None = describe(
        "upper end of that interval",
        null="no upper end (either effect's interval reaches 0, or the search bound), or no "
        "datasets_needed",
    )


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
    folds_power: FoldsPower | NotApplicable = describe(
        "how many more folds would separate #1 from #2, from the hierarchical model (the "
        "practical section's figure when its pair is the same); not applicable without folds",
        default=NotApplicable("computed by an engine before 0.10.0"),
    )

    def truth(self, name: str) -> AdvisorTruth | None:
        return next((t for t in self.truths if t.truth == name), None)


# --- practical equivalence ----------------------------------------------------------------


@dataclass(frozen=True)
class HierarchicalVersus:
    """The leader against one other algorithm under the hierarchical model."""

    algorithm: str = describe("the other algorithm")
    leader_better: float = describe(
        "P(the leader practically better on a new dataset)", units="probability"
    )
    equivalent: float = describe("P(practically equivalent on a new dataset)", units="probability")
    other_better: float = describe("P(the other practically better)", units="probability")
    n_datasets: int = describe("datasets with at least two folds of both")
    n_folds: int = describe("folds per dataset used (the fewest complete folds among them)")
    mc_se: float | None = describe(
        "Monte-Carlo standard error of the three probabilities (the largest; batch means "
        "over the chains)",
        units="probability",
        null="computed by an engine before 0.10.0",
        default=None,
    )


@dataclass(frozen=True)
class FoldsPower:
    """How many more folds would separate #1 from #2: the power of Wilcoxon's test on
    fold means, simulated from the fitted hierarchical model
    (estimation/core/hierarchical_power.py)."""

    first: str = describe("the board's #1")
    second: str = describe("the board's #2")
    n_datasets: int = describe("datasets with at least two folds of both")
    n_folds: int = describe("folds per dataset now")
    alpha: float = describe("level of the two-sided test")
    power: float = describe("the power asked for (0.8)")
    power_at_current: float = describe("simulated power at the present folds", units="share")
    folds_needed: int | None = describe(
        "fewest folds per dataset (K, 2K, 4K, ...) reaching the power",
        null="more folds alone do not reach it within max_folds",
    )
    max_folds: int = describe("the largest number of folds tried")
    n_simulations: int = describe("simulated benchmarks per size")
    sentence: str = describe("the figures in one sentence")


@dataclass(frozen=True)
class HierarchicalComparison:
    """The hierarchical model over datasets x folds (Corani et al. 2017), the leader
    against the next algorithms: a bounded number of pairs, each a seeded Gibbs run."""

    leader: str = describe("the board's leader")
    versus: tuple[HierarchicalVersus, ...] = describe("the leader against the next algorithms")
    n_draws: int = describe("posterior draws per pair (chains x kept steps, autocorrelated)")
    seed: int = describe("seed of the sampler")
    notes: tuple[str, ...] = describe("what was capped to bound the cost, in words")
    folds_power: FoldsPower | NotApplicable = describe(
        "how many more folds would separate #1 from #2; not applicable without two "
        "datasets with folds of both"
    )


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
    hierarchical: HierarchicalComparison | NotApplicable = describe(
        "the hierarchical model over folds, the leader against the next algorithms; not "
        "applicable without folds or a rope",
        default=NotApplicable("computed by an engine before 0.9.0"),
    )
