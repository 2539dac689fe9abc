"""Edge cases of the analysis settings and inputs (too few bootstrap replicates, a
negative seed, an algorithm with no result, one dataset), each with its reproducing input."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import BootstrapSummary, NotApplicable
from estimation.core.table import ResultTable

SCORES = np.array([[0.9, 0.8, 0.7], [0.6, 0.9, 0.5], [0.8, 0.7, 0.1], [0.9, 0.1, 0.2]])


def _table(values=SCORES, algorithms=("x", "y", "z")) -> ResultTable:
    return ResultTable(("d1", "d2", "d3", "d4"), algorithms, values)


def test_too_few_bootstrap_replicates_give_no_band_with_a_reason():
    board = analyze(_table(), AnalysisSettings(bootstrap=1)).payload.board
    for result in board.estimators:
        assert isinstance(result.bootstrap, NotApplicable)
        assert "at least 100" in result.bootstrap.reason
    board = analyze(_table(), AnalysisSettings(bootstrap=100)).payload.board
    assert all(isinstance(r.bootstrap, BootstrapSummary) for r in board.estimators)


def test_a_negative_seed_is_refused_by_name():
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        AnalysisSettings(seed=-1)


def test_worst_policy_leaves_out_an_algorithm_without_any_result():
    values = np.column_stack([SCORES, np.full(4, np.nan)])
    table = _table(values, ("x", "y", "z", "ghost"))
    board = analyze(
        table, AnalysisSettings(missing="worst", min_coverage=0.0, bootstrap=0)
    ).payload.board
    assert "ghost" not in board.algorithms
    assert board.input.excluded_algorithms[0].algorithm == "ghost"
    assert any("no result on any dataset" in note and "ghost" in note for note in board.notes)
    assert board.friedman.df == 2  # three algorithms enter Friedman, not four


def test_loo_with_one_dataset_is_the_win_rate_and_says_so():
    table = ResultTable(("d1",), ("x", "y"), np.array([[0.9, 0.5]]))
    board = analyze(table, AnalysisSettings(bootstrap=0)).payload.board
    assert board.estimator("loo_kl").p == board.win_rate == (1.0, 0.0)
    assert board.estimator("loo_brier").p == board.win_rate
    assert any("equal the win rate" in note for note in board.notes)
