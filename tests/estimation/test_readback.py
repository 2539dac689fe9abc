"""The packed read-back (numpy over each submission's packed row) gives the ResultTable of
the row-by-row construction.

The reference below is the construction the service used before the packed path:
accepted rows newest submission first, the first row of each (dataset,
algorithm, fold) kept, fold means (:func:`estimation.core.table.fold_means`) where folds
exist.
"""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from estimation.core.table import ResultTable, fold_means
from estimation.services import result_table_build
from leaderboard.models import Algorithm, Dataset, Metric, Submission
from leaderboard.selectors import accepted_score_rows
from tests.factories import make_benchmark, store_scores

pytestmark = pytest.mark.django_db


def reference_table(benchmark, metric) -> ResultTable:
    cells: dict = {}
    for dataset, algorithm, fold, value in accepted_score_rows(benchmark=benchmark, metric=metric):
        cells.setdefault((dataset, algorithm, fold), value)
    datasets = tuple(sorted({d for d, _, _ in cells}))
    algorithms = tuple(sorted({a for _, a, _ in cells}))
    folds = sorted({f for _, _, f in cells if f is not None})
    row = {name: i for i, name in enumerate(datasets)}
    col = {name: j for j, name in enumerate(algorithms)}
    fold_index = {fold: k for k, fold in enumerate(folds)}
    values = np.full((len(datasets), len(algorithms)), np.nan)
    fold_values = np.full((len(datasets), len(folds), len(algorithms)), np.nan) if folds else None
    for (dataset, algorithm, fold), value in cells.items():
        if fold is None:
            values[row[dataset], col[algorithm]] = value
        else:
            fold_values[row[dataset], fold_index[fold], col[algorithm]] = value
    if fold_values is not None:
        # fold means by the one definition (METHODS 1, exact summation), not numpy's nanmean
        means = fold_means(fold_values)
        values = np.where(np.isnan(means), values, means)
    return ResultTable(
        datasets=datasets,
        algorithms=algorithms,
        values=values,
        kind="rank" if benchmark.ranking_only else "score",
        higher_is_better=metric.higher_is_better,
        fold_values=fold_values,
    )


def assert_same(table: ResultTable, expected: ResultTable) -> None:
    assert table.datasets == expected.datasets
    assert table.algorithms == expected.algorithms
    assert table.kind == expected.kind and table.higher_is_better == expected.higher_is_better
    np.testing.assert_array_equal(table.values, expected.values)  # NaN == NaN here
    if expected.fold_values is None:
        assert table.fold_values is None
    else:
        np.testing.assert_array_equal(table.fold_values, expected.fold_values)


def random_benchmark(seed: int):
    """Several metrics, folds on some datasets, missing cells, pending and superseded
    submissions; submission times deliberately out of id order."""
    rng = np.random.default_rng(seed)
    benchmark = make_benchmark(slug=f"random-{seed}")
    Metric.objects.create(benchmark=benchmark, name="time", direction="lower")
    metrics = list(benchmark.metrics.all())
    # Names out of id order, so that the name sort is really exercised.
    datasets = Dataset.objects.bulk_create(
        [Dataset(benchmark=benchmark, name=f"d{rng.integers(10**6)}-{i}") for i in range(12)]
    )
    algorithms = Algorithm.objects.bulk_create(
        [Algorithm(benchmark=benchmark, name=f"a{rng.integers(10**6)}-{j}") for j in range(6)]
    )
    now = timezone.now()
    scores = []
    for _ in range(20):
        algorithm = algorithms[int(rng.integers(len(algorithms)))]
        status = Submission.Status.ACCEPTED if rng.random() < 0.8 else Submission.Status.PENDING
        submission = Submission.objects.create(
            benchmark=benchmark, algorithm=algorithm, status=status
        )
        created = now - timedelta(minutes=int(rng.integers(1000)))
        Submission.objects.filter(pk=submission.pk).update(created_at=created)
        for dataset in datasets:
            if rng.random() < 0.3:
                continue  # a missing cell
            for metric in metrics:
                if rng.random() < 0.5:
                    folds = [None]
                else:
                    folds = sorted(rng.choice(8, size=int(rng.integers(1, 6)), replace=False))
                for fold in folds:
                    fold = None if fold is None else int(fold)
                    scores.append((submission, dataset, metric, fold, float(rng.normal())))
    store_scores(scores)
    return benchmark, metrics


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_packed_read_back_matches_the_row_by_row_table(seed):
    benchmark, metrics = random_benchmark(seed)
    for metric in metrics:
        expected = reference_table(benchmark, metric)
        assert expected.fold_values is not None and np.isnan(expected.values).any()
        assert_same(result_table_build(benchmark=benchmark, metric=metric), expected)


def test_newer_submission_overrides_by_time_not_by_id():
    benchmark = make_benchmark(slug="override")
    metric = benchmark.metrics.get()
    dataset = Dataset.objects.create(benchmark=benchmark, name="d")
    algorithm = Algorithm.objects.create(benchmark=benchmark, name="a")
    accepted = Submission.Status.ACCEPTED
    newer = Submission.objects.create(benchmark=benchmark, algorithm=algorithm, status=accepted)
    older = Submission.objects.create(benchmark=benchmark, algorithm=algorithm, status=accepted)
    Submission.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(days=1))
    store_scores([(newer, dataset, metric, 0, 1.0)])
    store_scores([(older, dataset, metric, 0, 9.0), (older, dataset, metric, 1, 3.0)])
    table = result_table_build(benchmark=benchmark, metric=metric)
    np.testing.assert_array_equal(table.fold_values[0, :, 0], [1.0, 3.0])
    assert table.values[0, 0] == 2.0


def test_empty_benchmark_reads_back_an_empty_table():
    benchmark = make_benchmark(slug="empty")
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    assert table.datasets == () and table.algorithms == () and table.fold_values is None
