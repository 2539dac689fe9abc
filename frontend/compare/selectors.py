"""Reads for the comparison pages: a few algorithms' dataset-level values per metric."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from leaderboard.models import Benchmark, Metric, Score, Submission


def dataset_values(
    *, benchmark: Benchmark, metric: Metric, algorithms: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """{algorithm: {dataset: value}}: the mean over folds of the accepted scores of
    ``algorithms`` (every public one when None). A later accepted submission supersedes
    an earlier one cell by cell, as in the analysis."""
    rows = Score.objects.filter(
        metric=metric,
        submission__benchmark=benchmark,
        submission__status=Submission.Status.ACCEPTED,
    )
    if algorithms is not None:
        rows = rows.filter(submission__algorithm__name__in=list(algorithms))
    cells: dict[tuple[str, str, int | None], float] = {}
    for algorithm, dataset, fold, value in rows.order_by(
        "-submission__created_at", "-submission_id"
    ).values_list("submission__algorithm__name", "dataset__name", "fold", "value"):
        cells.setdefault((algorithm, dataset, fold), value)
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (algorithm, dataset, _fold), value in cells.items():
        running = sums[(algorithm, dataset)]
        running[0] += value
        running[1] += 1
    values: dict[str, dict[str, float]] = defaultdict(dict)
    for (algorithm, dataset), (total, count) in sums.items():
        values[algorithm][dataset] = total / count
    return dict(values)
