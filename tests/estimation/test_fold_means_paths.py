"""The CSV parser and the database service build fold means with one
function, so the two cannot disagree."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core.table import fold_means
from estimation.services import result_table_build
from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission


def test_csv_fold_means_tie_in_any_row_order():
    rows = ["d1,A,0.8,1", "d1,A,0.9,2", "d1,B,0.85,1", "d1,B,0.85,2"]
    for order in (rows, rows[::-1], [rows[1], rows[2], rows[0], rows[3]]):
        content = "dataset,algorithm,score,fold\n" + "\n".join(order) + "\n"
        table = parse_results_csv_text(content).to_table()
        assert table.values.tolist() == [[0.85, 0.85]]
        np.testing.assert_array_equal(table.values, fold_means(table.fold_values))


@pytest.mark.django_db
def test_service_fold_means_tie_like_the_csv_path():
    benchmark = make_benchmark()
    submission_accept(submission=make_submission(benchmark, "A", {"d1": [0.8, 0.9]}, folds=True))
    submission_accept(submission=make_submission(benchmark, "B", {"d1": [0.85, 0.85]}, folds=True))
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    assert table.values.tolist() == [[0.85, 0.85]]
