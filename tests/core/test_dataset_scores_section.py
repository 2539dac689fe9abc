"""The snapshot's dataset-level values (``dataset_scores``): exactly what the analysis
ranked, on the datasets and algorithms it used, bounded in size."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core import analysis as analysis_module
from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import DatasetScoresSection, NotApplicable
from estimation.core.table import ResultTable, fold_means

nan = np.nan
SETTINGS = AnalysisSettings(bootstrap=20, min_coverage=0.5)


def _folded_table() -> ResultTable:
    # 4 datasets x 4 algorithms x 3 folds; "d" has results on one dataset only (excluded
    # by min_coverage 0.5) and "c" lacks dataset "w" (dropped by the 'complete' policy).
    rng = np.random.default_rng(7)
    folds = rng.uniform(0.5, 0.9, size=(4, 3, 4))
    folds[:, :, 3] = nan
    folds[0, :, 3] = 0.7
    folds[3, :, 2] = nan
    means = fold_means(folds)
    return ResultTable(
        datasets=("t", "u", "v", "w"),
        algorithms=("a", "b", "c", "d"),
        values=means,
        fold_values=folds,
    )


def test_the_section_holds_the_values_the_analysis_ranked():
    table = _folded_table()
    payload = analyze(table, SETTINGS, advisor=False).payload
    section = payload.dataset_scores
    assert isinstance(section, DatasetScoresSection)
    board = payload.board
    assert section.algorithms == board.algorithms == ("a", "b", "c")  # "d" not ranked
    assert section.datasets == board.input.datasets == ("t", "u", "v")  # "w" dropped
    expected = fold_means(table.fold_values)
    for i, dataset in enumerate(section.datasets):
        for j, algorithm in enumerate(section.algorithms):
            # the same array's values, carried as Python floats: equal to the bit
            assert section.values[i][j] == float(
                expected[table.datasets.index(dataset), table.algorithms.index(algorithm)]
            )
    assert section.column("u") == dict(zip(section.algorithms, section.values[1], strict=True))
    assert section.column("w") == {}


def test_a_missing_result_is_none_under_the_worst_policy():
    values = np.array([[0.9, 0.8, nan], [0.7, 0.6, 0.5], [0.6, 0.9, 0.4]])
    table = ResultTable(datasets=("x", "y", "z"), algorithms=("a", "b", "c"), values=values)
    settings = AnalysisSettings(bootstrap=20, missing="worst")
    section = analyze(table, settings, advisor=False).payload.dataset_scores
    assert section.datasets == ("x", "y", "z")
    assert section.values[0] == (0.9, 0.8, None)  # not the imputed worst value
    assert section.column("x") == {"a": 0.9, "b": 0.8}


def test_published_positions_are_kept_for_a_ranking_file():
    ranks = np.array([[1, 2, 3, nan], [2, 1, nan, 3], [1, 3, 2, nan]])
    table = ResultTable(
        datasets=("d1", "d2", "d3"), algorithms=tuple("abcd"), values=ranks, kind="rank"
    )
    section = analyze(table, AnalysisSettings(bootstrap=20), advisor=False).payload
    assert section.dataset_scores.values[1] == (2.0, 1.0, None, 3.0)


def test_the_section_is_bounded(monkeypatch):
    monkeypatch.setattr(analysis_module, "MAX_SCORE_CELLS", 8)
    section = analyze(_folded_table(), SETTINGS, advisor=False).payload.dataset_scores
    assert isinstance(section, NotApplicable)
    assert "3 datasets x 3 algorithms exceed the 8 dataset-level values" in section.reason


@pytest.mark.parametrize("n, m", [(100, 130), (6, 5000)])
def test_the_bound_covers_the_sizes_the_project_serves(n, m):
    # the large shapes: 130 x 100 boards and 5000 x 6 ones keep their values
    assert n * m <= analysis_module.MAX_SCORE_CELLS


def test_the_notes_count_one_dataset_and_one_algorithm_in_the_singular():
    # "1 of 4 datasets were left out", "1 algorithms have results ...": said to users.
    board = analyze(_folded_table(), SETTINGS, advisor=False).payload.board
    assert board.notes[:2] == (
        "1 of 4 datasets was left out because some algorithms have no result there: c (1).",
        "1 algorithm has results on fewer than 50% of the datasets and is not ranked: d.",
    )
