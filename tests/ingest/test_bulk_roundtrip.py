"""An upload of the bench's shape (algorithms x datasets x folds, as a long CSV) goes from
the file to the scores table whole, and the recompute reads back every score as sent."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.services import result_table_build
from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Submission
from leaderboard.services import submission_entries_from_csv, submissions_create
from tests.factories import make_benchmark, stored_scores

pytestmark = pytest.mark.django_db  # on_commit (the recompute) does not run

M, N, FOLDS = 12, 700, 10  # 84,000 rows: more than one block of the quick read


def _values(seed: int = 7) -> np.ndarray:
    """(dataset, fold, algorithm) scores, written with repr so the file holds them exactly."""
    return np.random.default_rng(seed).normal(size=(N, FOLDS, M))


def _file(values: np.ndarray) -> bytes:
    lines = ["dataset,algorithm,score,fold"]
    for j in range(M):
        lines.extend(
            f"dataset-{i:05d},algorithm-{j:03d},{float(values[i, f, j])!r},{f}"
            for i in range(N)
            for f in range(FOLDS)
        )
    return ("\n".join(lines) + "\n").encode()


def test_every_score_is_stored_and_read_back_as_sent():
    values = _values()
    benchmark = make_benchmark(slug="bulk", submission_policy="open")
    parsed = parse_results_csv_text(_file(values))
    assert parsed.n_records == M * N * FOLDS
    entries = submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
    submissions_create(
        benchmark=benchmark, submitter=None, entries=entries, source=Submission.Source.IMPORT
    )
    assert len(stored_scores(submission__benchmark=benchmark)) == M * N * FOLDS
    metric = benchmark.metrics.get()
    table = result_table_build(benchmark=benchmark, metric=metric)
    assert table.datasets == tuple(f"dataset-{i:05d}" for i in range(N))
    assert table.algorithms == tuple(f"algorithm-{j:03d}" for j in range(M))
    assert table.fold_values is not None
    # repr round-trips a float64 exactly: the stored value is the one generated
    np.testing.assert_array_equal(table.fold_values, values)
