"""Repeated-measures Tukey, per-fold Wilcoxon and significance-aware ranks (METHODS 5)."""

import json
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.anova import AnovaRM

from estimation.core import studentized_range, within_dataset
from estimation.core.within_dataset import (
    fold_wilcoxon_pairwise,
    repeated_measures_anova,
    repeated_measures_tukey,
    repeated_measures_tukey_batch,
    significance_aware_ranks,
    tukey_intervals,
)

# 4 folds x 3 algorithms, small enough to work by hand.
HAND = np.array(
    [
        [0.80, 0.82, 0.70],
        [0.78, 0.81, 0.72],
        [0.83, 0.86, 0.71],
        [0.79, 0.85, 0.69],
    ]
)


def _scipy_studentized_range(method, *args):
    """scipy's studentized range distribution: ``method`` ("sf", "isf", "ppf") at ``args``."""
    return getattr(stats.studentized_range, method)(*args)


def _scipy_sf(peer_reference, q, m, df):
    """scipy's studentized-range survival function, kept between runs (its numerical
    integration is most of these tests' time; tests/reference_memo.py)."""
    return peer_reference(
        "scipy-studentized-range",
        _scipy_studentized_range,
        "sf",
        np.asarray(q, dtype=float),
        m,
        df,
        under_test=studentized_range,
    )


def _scipy_wilcoxon(differences):
    """scipy's two-sided Wilcoxon test (its "auto" method) on the differences: p-value."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.wilcoxon(differences).pvalue)


def test_tukey_hand_computation(peer_reference):
    result = repeated_measures_tukey(HAND)
    column_means = np.array([0.80, 0.835, 0.705])
    np.testing.assert_allclose(result.mean_scores, column_means, atol=1e-12)
    residuals = HAND - HAND.mean(1, keepdims=True) - column_means + HAND.mean()
    assert result.df == 6
    se = np.sqrt((residuals**2).sum() / 6 / 4)
    assert result.se == pytest.approx(se, rel=1e-12)
    assert result.mean_difference[0, 2] == pytest.approx(0.095, abs=1e-12)
    assert result.q[0, 2] == pytest.approx(0.095 / se, rel=1e-12)
    # Our studentized range (own quadrature) is within 1e-6 relative of scipy; measured
    # far closer here (1e-7 relative holds).
    assert result.pvalues[0, 2] == pytest.approx(
        float(_scipy_sf(peer_reference, 0.095 / se, 3, 6)), rel=1e-7, abs=1e-13
    )
    # Paired Cohen's d of a vs b: fold differences -0.02, -0.03, -0.03, -0.06.
    differences = np.array([-0.02, -0.03, -0.03, -0.06])
    assert result.cohen_d[0, 1] == pytest.approx(
        differences.mean() / differences.std(ddof=1), rel=1e-9
    )
    assert result.cohen_d[1, 0] == pytest.approx(-result.cohen_d[0, 1], rel=1e-12)
    json.dumps(result.to_dict(), allow_nan=False)


def test_tukey_residual_variance_matches_statsmodels_anova_rm():
    fold_scores = np.random.default_rng(10).normal(size=(8, 5)) + np.linspace(0, 1, 5)
    long = pd.DataFrame(
        [
            {"fold": fold, "algorithm": algorithm, "score": fold_scores[fold, algorithm]}
            for fold in range(8)
            for algorithm in range(5)
        ]
    )
    table = AnovaRM(long, "score", "fold", within=["algorithm"]).fit().anova_table
    f_value = table["F Value"].iloc[0]
    means = fold_scores.mean(0)
    mean_square_algorithm = 8 * ((means - means.mean()) ** 2).sum() / 4
    mean_square_residual = mean_square_algorithm / f_value
    result = repeated_measures_tukey(fold_scores)
    assert result.se == pytest.approx(np.sqrt(mean_square_residual / 8), rel=1e-10)
    assert table["Den DF"].iloc[0] == result.df


def test_tukey_degenerate_cases():
    additive = np.array([[1.0, 2.0, 2.0], [3.0, 4.0, 4.0]])  # residuals vanish
    result = repeated_measures_tukey(additive)
    assert result.se == pytest.approx(0.0, abs=1e-15)
    # se is rounding noise, so q about 1e16: p tiny (scipy's 1 - cdf says 0; ours keeps
    # the power-law tail)
    assert result.pvalues[0, 1] < 1e-20 and result.pvalues[1, 2] == 1.0
    data = result.to_dict()
    assert data["cohen_d"][0][1] is None and data["cohen_d"][1][2] is None
    assert data["cohen_d_note"][0][1] == "every fold shows the same difference"
    assert data["cohen_d_note"][1][2] == "all fold differences are zero"
    json.dumps(data, allow_nan=False)
    assert "two folds" in repeated_measures_tukey(np.ones((1, 3))).not_applicable
    assert "two algorithms" in repeated_measures_tukey(np.ones((5, 1))).not_applicable


def test_fold_wilcoxon_matches_scipy(peer_reference):
    fold_scores = np.round(np.random.default_rng(11).normal(size=(10, 4)), 1)
    result = fold_wilcoxon_pairwise(fold_scores, correction="bonferroni")
    for a in range(4):
        for b in range(a + 1, 4):
            # On the exact decimal differences: equal ones tie (the fold-mean rule).
            exact = np.array(
                [
                    float(Fraction(repr(float(x))) - Fraction(repr(float(y))))
                    for x, y in zip(fold_scores[:, a], fold_scores[:, b], strict=True)
                ]
            )
            pvalue = peer_reference(
                "scipy-wilcoxon-folds", _scipy_wilcoxon, exact, under_test=within_dataset
            )
            assert result.pvalues[a, b] == pvalue
            assert result.pvalues_corrected[a, b] == pytest.approx(min(1.0, 6 * pvalue), rel=1e-12)
    assert fold_wilcoxon_pairwise(np.ones((5, 2))).not_applicable[0][1] == (
        "identical on every fold: all 5 paired differences are zero, p = 1"
    )
    missing = np.array([[1.0, np.nan], [np.nan, 2.0]])
    assert fold_wilcoxon_pairwise(missing).not_applicable[0][1] == (
        "no fold with results for both algorithms"
    )


def test_significance_aware_ranks_equal_per_dataset_tukey():
    rng = np.random.default_rng(12)
    folds = rng.normal(size=(7, 10, 4)) * 0.5 + np.array([0.0, 0.3, 0.6, 1.5])
    folds[2, 5:] = np.nan  # a dataset with 5 folds (NaN padding)
    folds[3, 1:] = np.nan  # one fold only: not applicable
    result = significance_aware_ranks(folds)
    for i in range(7):
        complete = folds[i][np.isfinite(folds[i]).all(axis=1)]
        if i == 3:
            assert np.isnan(result.ranks[i]).all()
            assert "two folds" in result.not_applicable[3]
            continue
        tukey = repeated_measures_tukey(complete)
        better = tukey.significant & (tukey.mean_scores[None, :] > tukey.mean_scores[:, None])
        np.testing.assert_array_equal(result.ranks[i], 1 + better.sum(axis=1))
    np.testing.assert_allclose(result.mean_ranks, np.nanmean(result.ranks, axis=0), rtol=1e-12)
    assert list(result.n_folds) == [10, 10, 5, 1, 10, 10, 10]
    json.dumps(result.to_dict(), allow_nan=False)


def test_significance_aware_ranks_with_ties_equal_per_dataset_tukey():
    """Tied means and exactly additive scores (se 0): the counts of the sorted search are
    the pairwise test's."""
    rng = np.random.default_rng(14)
    folds = rng.integers(0, 3, size=(6, 5, 9)) / 3.0  # many tied means
    folds[4] = np.arange(9)[None, :] / 9.0 + np.arange(5)[:, None]  # additive: se 0
    result = significance_aware_ranks(folds)
    for i in range(6):
        tukey = repeated_measures_tukey(folds[i])
        better = tukey.significant & (tukey.mean_scores[None, :] > tukey.mean_scores[:, None])
        np.testing.assert_array_equal(result.ranks[i], 1 + better.sum(axis=1))


def test_significance_aware_ranks_of_many_algorithms_hold_no_m_by_m_array():
    """At m = 3000 an (m, m) float array is 72 MB and a boolean one 9 MB; the ranks need
    (datasets, m) ones. Measured on a second call: the first also builds the critical
    value of (m, df) once per process (about 22 MiB, no (m, m) array)."""
    import tracemalloc

    rng = np.random.default_rng(15)
    folds = rng.normal(size=(2, 10, 3000)) + np.linspace(0, 3, 3000)
    significance_aware_ranks(folds)
    tracemalloc.start()
    try:
        result = significance_aware_ranks(folds)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, f"{peak / 2**20:.0f} MiB"
    assert result.ranks.shape == (2, 3000) and result.ranks[:, -1].max() < result.ranks[:, 0].min()


def test_significance_aware_rank_punishes_erratic_winner():
    # "erratic" wins 6 of 8 datasets by an insignificant 0.001 and loses 2 badly;
    # "steady" is never significantly beaten.
    rng = np.random.default_rng(13)
    alternating = 0.01 * (-1.0) ** np.arange(10)  # fold noise with mean exactly 0
    datasets = []
    for i in range(8):
        steady = 0.80 + rng.normal(0, 0.01, 10)
        erratic = steady + (0.001 if i < 6 else -0.2) + alternating
        datasets.append(np.column_stack([erratic, steady]))
    result = significance_aware_ranks(datasets)
    wins = np.mean([block.mean(0).argmax() == 0 for block in datasets])
    assert wins == pytest.approx(0.75)
    assert result.mean_ranks[0] == pytest.approx(1.25)  # significantly beaten twice
    assert result.mean_ranks[1] == pytest.approx(1.0)


@pytest.mark.parametrize(("m", "df"), [(2, 9), (12, 99), (100, 891), (4, np.inf), (100, np.inf)])
def test_studentized_range_sf_matches_scipy(m, df, peer_reference):
    rng = np.random.default_rng(m)
    q = np.concatenate(
        [np.exp(rng.uniform(np.log(1e-3), np.log(300), 120)), rng.uniform(0, 12, 60), [0.0]]
    )
    expected = _scipy_sf(peer_reference, q, m, df)
    interpolated = studentized_range.studentized_range_sf(q, m, df)
    np.testing.assert_allclose(interpolated, expected, rtol=0, atol=1e-6)
    # decreasing, up to the interpolant's 1e-10 relative error where sf is flat
    ordered = interpolated[np.argsort(q)]
    assert (np.diff(ordered) <= 1e-10 * ordered[1:]).all()


def test_tukey_with_many_pairs_is_within_1e6_of_scipy(peer_reference):
    rng = np.random.default_rng(11)
    fold_scores = rng.normal(size=(10, 12)) * 0.3 + np.linspace(0, 1.5, 12)
    result = repeated_measures_tukey(fold_scores)
    upper = np.triu_indices(12, 1)
    expected = _scipy_sf(peer_reference, result.q[upper], 12, result.df)
    np.testing.assert_allclose(result.pvalues[upper], expected, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(result.significant[upper], expected < 0.05)


@pytest.mark.parametrize(("m", "df"), [(3, 18), (5, 36), (20, 171), (4, np.inf)])
def test_studentized_range_sf_is_within_1e6_relative_of_scipy_in_the_tail(m, df, peer_reference):
    """Relative accuracy wherever scipy's own value is reliable (sf >= 1e-7): before,
    the interpolant was checked to 1e-7 absolute only, which is 0.06 % at sf = 1.7e-6
    (the blog seed's 1.7147e-6 against scipy's 1.7157e-6) and 10 % at 1e-6. The
    interpolant is verified within 1e-7 * sf + 1e-13 of scipy, hence 1e-6 relative down
    to sf = 1.2e-7; the test goes down to 2e-7 (scipy's own sf, 1 - cdf, is accurate to
    about 4e-14 absolute there, 2e-7 relative at worst)."""
    rng = np.random.default_rng(m)
    upper_q = float(
        peer_reference(
            "scipy-studentized-range",
            _scipy_studentized_range,
            "isf",
            2e-7,
            m,
            df,
            under_test=studentized_range,
        )
    )
    q = np.exp(rng.uniform(np.log(0.5), np.log(upper_q), 60))  # more than one batch of 40
    expected = _scipy_sf(peer_reference, q, m, df)
    got = studentized_range.studentized_range_sf(q, m, df)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0)


def test_a_datasets_tukey_pvalues_do_not_depend_on_the_other_datasets(peer_reference):
    """Before, one table of 3 algorithms (3 pairs) went to scipy and the same table in a
    batch of 100 through the interpolant (more than 40 statistics in one call): its
    p-values changed with the number of datasets in the benchmark. Now one path: the same
    numbers alone and in any batch (the same code on the same machine, so compared
    exactly)."""
    rng = np.random.default_rng(24)
    tables = [rng.normal(size=(10, 3)) * 0.02 + [0.0, 0.01, 0.04] for _ in range(100)]
    alone = repeated_measures_tukey(tables[0]).pvalues
    in_batch = repeated_measures_tukey_batch(tables)[0].pvalues
    np.testing.assert_array_equal(alone, in_batch)
    expected = _scipy_sf(peer_reference, repeated_measures_tukey(tables[0]).q, 3, 18)
    np.testing.assert_allclose(alone, np.minimum(expected, 1), rtol=1e-6)


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_rm_anova_matches_statsmodels_anova_rm(seed):
    rng = np.random.default_rng(seed)
    f, m = 6 + seed % 3, 3 + seed % 4
    fold_scores = rng.normal(size=(f, m)) + np.linspace(0, 0.8, m) + rng.normal(size=(f, 1))
    long = pd.DataFrame(
        [
            {"fold": fold, "algorithm": a, "score": fold_scores[fold, a]}
            for fold in range(f)
            for a in range(m)
        ]
    )
    table = AnovaRM(long, "score", "fold", within=["algorithm"]).fit().anova_table
    result = repeated_measures_anova(fold_scores)
    assert result.statistic == pytest.approx(table["F Value"].iloc[0], rel=1e-10)
    assert result.pvalue == pytest.approx(table["Pr > F"].iloc[0], rel=1e-8)
    assert result.df == (int(table["Num DF"].iloc[0]), int(table["Den DF"].iloc[0]))


def test_rm_anova_hand_computation():
    result = repeated_measures_anova(HAND)
    means = HAND.mean(0)
    ss_algorithms = 4 * ((means - HAND.mean()) ** 2).sum()
    residuals = HAND - HAND.mean(1, keepdims=True) - means + HAND.mean()
    ss_residual = (residuals**2).sum()
    f_value = (ss_algorithms / 2) / (ss_residual / 6)
    assert result.statistic == pytest.approx(f_value, rel=1e-12)
    assert result.pvalue == pytest.approx(stats.f.sf(f_value, 2, 6), rel=1e-12)
    assert result.df == (2, 6) and result.note is None


def test_rm_anova_degenerate_cases_say_why():
    additive = np.add.outer([0.0, 0.1, 0.2], [0.5, 0.6, 0.9])  # no residual at all
    result = repeated_measures_anova(additive)
    assert result.statistic is None and result.pvalue is None
    assert "infinite" in result.note
    same = np.full((4, 3), 0.7)
    assert "undefined" in repeated_measures_anova(same).note
    one_fold = repeated_measures_anova(np.ones((1, 3)))
    assert one_fold.df is None and "two folds" in one_fold.note


def test_tukey_intervals_are_simultaneous_and_agree_with_the_test(peer_reference):
    fold_scores = np.random.default_rng(3).normal(size=(10, 4)) * 0.02 + [0.8, 0.81, 0.83, 0.9]
    result = repeated_measures_tukey(fold_scores)
    lower, upper = tukey_intervals(result)
    q = peer_reference(
        "scipy-studentized-range",
        _scipy_studentized_range,
        "ppf",
        0.95,
        4,
        result.df,
        under_test=studentized_range,
    )
    np.testing.assert_allclose(
        upper - lower, np.where(np.eye(4, dtype=bool), np.nan, 2 * q * result.se)
    )
    off = ~np.eye(4, dtype=bool)
    excludes_zero = (lower > 0) | (upper < 0)
    assert (excludes_zero[off] == result.significant[off]).all()
    np.testing.assert_allclose(lower, -upper.T)


def test_tukey_intervals_cover_the_true_differences_at_the_family_level():
    """Simulated: all 6 true differences inside their intervals in >= 93 % of 400 runs
    (nominal 95 % family-wise; binomial SE about 1.1 %)."""
    rng = np.random.default_rng(0)
    true = np.array([0.0, 0.1, 0.15, 0.3])
    covered = 0
    runs = [true + rng.normal(size=(8, 1)) + rng.normal(scale=0.1, size=(8, 4)) for _ in range(400)]
    d = true[:, None] - true[None, :]
    off = ~np.eye(4, dtype=bool)
    for result in repeated_measures_tukey_batch(runs):
        lower, upper = tukey_intervals(result)
        covered += bool(((lower[off] <= d[off]) & (d[off] <= upper[off])).all())
    assert covered / 400 >= 0.93


def _hand_statistics(scores):
    """F, Tukey p-values and Cohen's d of the HAND-like table, computed at ordinary scale."""
    anova = repeated_measures_anova(scores)
    tukey = repeated_measures_tukey(scores)
    return anova.statistic, anova.pvalue, tukey.q, tukey.pvalues, tukey.cohen_d


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("scale", [1e308 / 0.86, -1e308 / 0.86, 1e-308 / 0.69, 2.0**-1060])
def test_scores_near_the_float_limits_give_the_statistics_of_the_same_scores_scaled(scale):
    """F, q, the Tukey p-values and Cohen's d do not depend on the scale. On HAND times
    1e308 the squares overflowed (OverflowError in the ANOVA, inf and NaN in Tukey); on
    HAND times 1e-308 they underflowed to zero (F 'infinite', every p 0). The reference
    is the same stored scores brought to ordinary size by a power of two (exact), and for
    normal scores also HAND itself: multiplying by a scale that is not a power of two
    rounds each score once (relative 1.1e-16), which the statistics amplify by the
    conditioning of the differences (about 1e2 here), so 1e-12 leaves room. (Subnormal
    scores, 2**-1060 times HAND, keep 14 bits: only the exact reference applies.)"""
    scores = HAND * scale
    shift = 1060 if abs(scale) < 1e-310 else -int(np.frexp(scores)[1].max())
    references = [np.ldexp(scores, shift)]
    if abs(scale) > 1e-310:
        references.append(HAND * np.sign(scale))
    got = _hand_statistics(scores)
    upper = np.triu_indices(3, 1)
    for reference in references:
        expected = _hand_statistics(reference)
        assert got[0] == pytest.approx(expected[0], rel=1e-12)
        assert got[1] == pytest.approx(expected[1], rel=1e-12)
        np.testing.assert_allclose(got[2][upper], expected[2][upper], rtol=1e-12)
        np.testing.assert_allclose(got[3][upper], expected[3][upper], rtol=1e-12)
        np.testing.assert_allclose(got[4][upper], expected[4][upper], rtol=1e-12)
    # Differences of means in the scores' own units.
    difference = repeated_measures_tukey(scores).mean_difference[upper]
    at_ordinary_size = repeated_measures_tukey(references[0]).mean_difference[upper]
    np.testing.assert_allclose(difference, np.ldexp(at_ordinary_size, -shift), rtol=1e-12)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_differences_beyond_the_float_range_are_refused_with_the_values_named():
    """Scores of both signs near 1.7e308: their differences exceed the float range, so
    the Tukey table says so (naming the largest score); F is still computed (it does not
    depend on the scale) and equals that of the scores divided by 1e300."""
    scores = np.array([[1.0, -1.0, 0.5], [0.9, -0.95, 0.4], [0.97, -0.9, 0.45]]) * 1.7e308
    tukey = repeated_measures_tukey(scores)
    assert tukey.not_applicable is not None
    assert "1.7e+308" in tukey.not_applicable and "exceed the float range" in tukey.not_applicable
    anova = repeated_measures_anova(scores)
    reference = repeated_measures_anova(scores / 1e300)
    assert anova.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert anova.ss_algorithms is None and anova.ss_residual is None
    # The signed-rank test over the folds does not depend on the scale either.
    signed = fold_wilcoxon_pairwise(scores)
    np.testing.assert_array_equal(signed.pvalues, fold_wilcoxon_pairwise(scores / 1e300).pvalues)
