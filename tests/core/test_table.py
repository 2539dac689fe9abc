"""Fold means (METHODS 1): exact, order-independent, and a regression test of the
fold-mean bug (equal means that compared unequal)."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.table import ResultTable, fold_means


def _d1_table() -> ResultTable:
    # The fold-mean bug: A's folds (0.8, 0.9) and B's (0.85, 0.85) have the same mean.
    folds = np.array([[[0.8, 0.85], [0.9, 0.85]]])
    return ResultTable(
        datasets=("d1",), algorithms=("A", "B"), values=fold_means(folds), fold_values=folds
    )


def test_equal_decimal_means_tie_at_zero_tolerance():
    table = _d1_table()
    assert table.values[0, 0] == table.values[0, 1] == 0.85
    board = analyze(table, AnalysisSettings(tie_tol=0.0, bootstrap=0)).payload.board
    assert board.win_rate == (0.5, 0.5)


def test_fold_order_does_not_change_a_single_bit():
    rng = np.random.default_rng(11)
    for n_folds in (5, 13, 25):
        folds = rng.random((40, n_folds, 30)).round(4)
        shuffled = folds[:, rng.permutation(n_folds), :]
        np.testing.assert_array_equal(fold_means(folds), fold_means(shuffled))


def test_missing_folds_are_skipped_and_empty_cells_are_nan():
    folds = np.array([[[1.0, np.nan], [np.nan, np.nan], [3.0, np.nan]]])
    means = fold_means(folds)
    assert means[0, 0] == 2.0 and np.isnan(means[0, 1])


def test_means_agree_with_fsum():
    import math

    rng = np.random.default_rng(3)
    folds = rng.normal(size=(20, 17, 9)) * 10.0 ** rng.integers(-3, 4, size=(20, 1, 9))
    expected = np.array([[math.fsum(folds[i, :, j]) / 17 for j in range(9)] for i in range(20)])
    # Rounding to 15 significant digits moves a mean by at most 5e-15 of itself.
    np.testing.assert_allclose(fold_means(folds), expected, rtol=5e-15, atol=0)


def test_a_sum_beyond_the_float_range_still_gives_the_finite_mean():
    big = np.finfo(float).max
    folds = np.array([[[big, 1e308], [big, 1e308]]])
    means = fold_means(folds)
    assert means[0, 0] == big and means[0, 1] == 1e308


def test_infinite_fold_scores_are_refused_by_name():
    with pytest.raises(ValueError, match="fold_values must be finite"):
        fold_means(np.array([[[np.inf]]]))
