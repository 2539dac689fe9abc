"""Reads of benchmarks and their accepted results."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from leaderboard.models import Benchmark, Metric, Score, Submission


def benchmark_list() -> QuerySet[Benchmark]:
    return Benchmark.objects.annotate(
        n_algorithms=Count("algorithms", distinct=True),
        n_datasets=Count("datasets", distinct=True),
    ).order_by("title")


def benchmark_get(*, slug: str) -> Benchmark:
    return Benchmark.objects.get(slug=slug)


def primary_metric(*, benchmark: Benchmark) -> Metric | None:
    return benchmark.metrics.order_by("-is_primary", "name").first()


def accepted_score_rows(
    *, benchmark: Benchmark, metric: Metric
) -> list[tuple[str, str, int | None, float]]:
    """(dataset, algorithm, fold, value) of accepted scores, newest submission first.

    When an algorithm has several accepted submissions, a later one supersedes an earlier
    one cell by cell; callers keep the first row they see for each (dataset, algorithm, fold).
    """
    return list(
        Score.objects.filter(
            metric=metric,
            submission__benchmark=benchmark,
            submission__status=Submission.Status.ACCEPTED,
        )
        .order_by("-submission__created_at", "-submission_id")
        .values_list("dataset__name", "submission__algorithm__name", "fold", "value")
    )
