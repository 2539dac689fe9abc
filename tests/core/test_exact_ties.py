"""Paired differences equal in exact arithmetic are ties: decimal scores and
means of decimal folds go on a grid of exact integers (estimation.core.table.decimal_grid),
continuous scores are paired as floats, as scipy pairs them."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from estimation.core import table as table_module
from estimation.core.significance import wilcoxon_pairwise
from estimation.core.table import decimal_grid, fold_means
from estimation.core.within_dataset import fold_wilcoxon_pairwise

# Three folds per dataset: the mean of each cell is a repeating decimal, and the exact
# differences A - B are 2/3, 2/3, -13/30, 2/5, -2/3 (three tie in magnitude).
FOLDS_A = [[0.8, 0.8, 0.9], [0.9, 0.9, 0.9], [0.1, 0.1, 0.2], [0.5, 0.6, 0.6], [0.2, 0.2, 0.3]]
FOLDS_B = [[0.1, 0.2, 0.2], [0.2, 0.2, 0.3], [0.5, 0.6, 0.6], [0.2, 0.2, 0.1], [0.9, 0.9, 0.9]]


def _exact_fold_differences(first, second):
    """Differences of fold means as exact fractions of the decimals as written."""
    return [
        (sum(Fraction(str(x)) for x in a) - sum(Fraction(str(x)) for x in b)) / len(a)
        for a, b in zip(first, second, strict=True)
    ]


def _rank_biserial(differences):
    nonzero = differences[differences != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    plus, minus = ranks[nonzero > 0].sum(), ranks[nonzero < 0].sum()
    return (plus - minus) / (plus + minus)


def test_three_fold_means_tie_where_their_exact_differences_do():
    """The 15-digit means split the tie of 0.833333333333333 - 0.166666666666667 and
    0.9 - 0.233333333333333 (both 2/3): the rounding rule gave p 0.875 and rank-biserial
    0.133. scipy on the exact differences (times 30: the integers 20, 20, -13, 12, -20,
    exactly tied) gives p 0.8125 and 0.2. Exact and permutation p-values are sums of
    exact counts, so 1e-15 absolute is far above any rounding in either."""
    folds = np.stack([np.array(FOLDS_A), np.array(FOLDS_B)], axis=2)
    means = fold_means(folds)
    exact = _exact_fold_differences(FOLDS_A, FOLDS_B)
    assert exact == [Fraction(2, 3), Fraction(2, 3), Fraction(-13, 30), Fraction(2, 5), -exact[0]]
    integers = np.array([float(d * 30) for d in exact])
    expected = stats.wilcoxon(integers)
    assert expected.pvalue == pytest.approx(0.8125, abs=1e-15)
    assert _rank_biserial(integers) == pytest.approx(0.2, abs=1e-15)
    # The float means do not tie: the test is about the rule, not about the data.
    float_differences = means[:, 0] - means[:, 1]
    assert float_differences[0] != float_differences[1]
    result = wilcoxon_pairwise(means)
    assert result.pvalues[0, 1] == pytest.approx(expected.pvalue, abs=1e-15)
    assert result.effect_size[0, 1] == pytest.approx(0.2, abs=1e-15)
    assert result.statistic[0, 1] == expected.statistic


def test_continuous_scores_give_scipys_pvalues_on_the_floats():
    """Where ties are not at stake the p-values are scipy's on the very floats, bit for
    bit: every regime (exact up to 50, normal approximation above), missing values too."""
    rng = np.random.default_rng(43)
    for n in (7, 30, 80):
        scores = rng.normal(size=(n, 4)) * np.array([1.0, 1e-3, 1e5, 0.3])
        scores[rng.random(n) < 0.1, 3] = np.nan
        grid = decimal_grid(scores)
        assert (grid.denominators == 0).all()  # no column is on a decimal grid
        result = wilcoxon_pairwise(scores)
        for a, b in zip(*np.triu_indices(4, 1), strict=True):
            both = ~np.isnan(scores[:, a]) & ~np.isnan(scores[:, b])
            expected = stats.wilcoxon(scores[both, a], scores[both, b])
            assert result.pvalues[a, b] == expected.pvalue
            assert result.statistic[a, b] == expected.statistic


def test_decimal_scores_without_ties_give_scipys_pvalues_on_the_floats():
    """Decimals whose differences are all distinct: the exact integers rank as the floats
    do, so the answer is scipy's on the floats, bit for bit."""
    rng = np.random.default_rng(7)
    scores = np.round(rng.uniform(0, 1, size=(40, 3)), 6)
    result = wilcoxon_pairwise(scores)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        d = scores[:, a] - scores[:, b]
        assert len(np.unique(np.abs(d))) == len(d)
        assert result.pvalues[a, b] == stats.wilcoxon(scores[:, a], scores[:, b]).pvalue


def test_the_grid_of_each_kind_of_column():
    plain = np.array([0.8534, 0.85, 0.1, 0.0])  # 4 decimals
    thirds = fold_means(np.array([[[0.8], [0.8], [0.9]], [[0.2], [0.2], [0.3]]]).reshape(2, 3, 1))
    grid = decimal_grid(np.column_stack([plain[:2], thirds[:, 0], [np.pi, np.e]]))
    assert grid.denominators.tolist() == [10_000, 2520, 0]
    assert grid.numerators[:, 0].tolist() == [8534.0, 8500.0]
    assert grid.numerators[:, 1].tolist() == [2100.0, 588.0]  # 2.5 / 3 and 0.7 / 3
    # Missing values are left out (also in the first row); a column without any value is
    # on every grid.
    gaps = decimal_grid(
        np.array([[np.nan, 0.5, np.nan], [0.25, np.nan, np.nan], [0.125, 0.75, np.nan]])
    )
    assert gaps.denominators.tolist() == [1000, 100, 1]
    assert np.isnan(gaps.numerators[0, 0]) and gaps.numerators[2].tolist()[:2] == [125.0, 75.0]


def test_a_pair_does_not_depend_on_the_other_columns():
    """A column whose numerators do not fit over the table's common denominator (twelve
    digit integers against 3-fold means and six decimals: 63e6 times too many) takes its
    pairs apart: each pair gives what the two columns alone give, and the tie among the
    3-fold means holds in the table."""
    folds = np.stack([np.array(FOLDS_A), np.array(FOLDS_B)], axis=2)
    means = fold_means(folds)
    rng = np.random.default_rng(1)
    large = rng.integers(10**11, 9 * 10**11, 5).astype(float)
    six_decimals = np.round(rng.uniform(0, 1, 5), 6)
    continuous = rng.normal(size=5)
    scores = np.column_stack([means, large, six_decimals, continuous])
    grid = decimal_grid(scores)
    assert grid.denominators.tolist() == [2520, 2520, 1, 10**6, 0]
    whole = wilcoxon_pairwise(scores)
    for a, b in zip(*np.triu_indices(5, 1), strict=True):
        alone = wilcoxon_pairwise(scores[:, [a, b]])
        assert whole.pvalues[a, b] == alone.pvalues[0, 1]
        assert whole.effect_size[a, b] == alone.effect_size[0, 1]
    assert whole.effect_size[0, 1] == pytest.approx(0.2, abs=1e-15)


def test_exact_differences_are_the_nearest_doubles():
    grid = decimal_grid(np.array([[0.70, 0.68], [0.52, 0.50]]))
    assert grid.pair_differences(0, 1).tolist() == [0.02, 0.02]
    thirds = fold_means(np.stack([np.array(FOLDS_A), np.array(FOLDS_B)], axis=2))
    d = decimal_grid(thirds).pair_differences(0, 1)
    assert d.tolist() == [float(x) for x in _exact_fold_differences(FOLDS_A, FOLDS_B)]


def test_folds_with_decimal_ties_tie_over_folds_too():
    a = np.array([0.70, 0.50, 0.33, 0.26])
    b = np.array([0.68, 0.52, 0.30, 0.30])
    result = fold_wilcoxon_pairwise(np.column_stack([a, b]))
    assert result.effect_size[0, 1] == pytest.approx(-0.1, abs=1e-15)


def test_a_table_of_one_kind_takes_no_pair_apart(monkeypatch):
    """The work is bounded: on a table whose columns share a grid (or none is on one) the
    pairs are plain subtractions of per-column numerators, none goes through the per-pair
    path."""
    calls = []
    original = table_module.DecimalGrid.pair_numerators

    def counted(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(table_module.DecimalGrid, "pair_numerators", counted)
    rng = np.random.default_rng(5)
    for scores in (np.round(rng.uniform(0, 1, (30, 12)), 3), rng.normal(size=(30, 12))):
        wilcoxon_pairwise(scores)
    assert calls == []
    mixed = np.round(rng.uniform(0, 1, (30, 12)), 3)
    mixed[:, 0] = rng.normal(size=30)  # one continuous column: its 11 pairs apart
    wilcoxon_pairwise(mixed)
    assert sum(len(np.atleast_1d(args[1])) for args in calls) == 11


def test_a_table_with_no_rows_has_every_column_on_the_unit_grid():
    grid = decimal_grid(np.zeros((0, 3)))
    assert grid.denominators.tolist() == [1, 1, 1] and grid.numerators.shape == (0, 3)
