"""Reads for the explore pages: one dataset's or one algorithm's accepted scores."""

from __future__ import annotations

from collections import defaultdict

from leaderboard.models import Algorithm, Benchmark, Dataset, Metric, Score, Submission
from leaderboard.selectors import accepted_score_rows, algorithms_public, datasets_public


def dataset_get(*, benchmark: Benchmark, name: str) -> Dataset:
    """A public dataset; raises ``Dataset.DoesNotExist`` (also for unaccepted names)."""
    return datasets_public(Dataset.objects.filter(benchmark=benchmark)).get(name=name)


def algorithm_get(*, benchmark: Benchmark, name: str) -> Algorithm:
    """A public algorithm; raises ``Algorithm.DoesNotExist`` (also for unaccepted names)."""
    return algorithms_public(Algorithm.objects.filter(benchmark=benchmark)).get(name=name)


def dataset_fold_scores(
    *, benchmark: Benchmark, metric: Metric, dataset: Dataset
) -> dict[str, dict[int | None, float]]:
    """{algorithm: {fold: value}} of accepted scores on one dataset (fold None: no folds).

    A later accepted submission supersedes an earlier one cell by cell, as in the analysis.
    """
    rows = (
        Score.objects.filter(
            metric=metric,
            dataset=dataset,
            submission__benchmark=benchmark,
            submission__status=Submission.Status.ACCEPTED,
        )
        .order_by("-submission__created_at", "-submission_id")
        .values_list("submission__algorithm__name", "fold", "value")
    )
    cells: dict[str, dict[int | None, float]] = defaultdict(dict)
    for algorithm, fold, value in rows:
        cells[algorithm].setdefault(fold, value)
    return dict(cells)


def dataset_level_scores(*, benchmark: Benchmark, metric: Metric) -> dict[str, dict[str, float]]:
    """{dataset: {algorithm: score}}: the mean over folds, newest accepted submission first."""
    cells: dict[tuple[str, str, int | None], float] = {}
    for dataset, algorithm, fold, value in accepted_score_rows(benchmark=benchmark, metric=metric):
        cells.setdefault((dataset, algorithm, fold), value)
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (dataset, algorithm, _fold), value in cells.items():
        total = sums[(dataset, algorithm)]
        total[0] += value
        total[1] += 1
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    for (dataset, algorithm), (total, count) in sums.items():
        scores[dataset][algorithm] = total / count
    return dict(scores)
