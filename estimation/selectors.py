"""Reads of result snapshots."""

from __future__ import annotations

from django.db.models import QuerySet

from estimation.models import ResultSnapshot
from leaderboard.models import Benchmark, Metric


def snapshot_latest(*, benchmark, metric=None, ready_only: bool = True) -> ResultSnapshot | None:
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark)
    if metric is not None:
        snapshots = snapshots.filter(metric=metric)
    if ready_only:
        snapshots = snapshots.filter(status=ResultSnapshot.Status.READY)
    return snapshots.order_by("-version", "-id").first()


def snapshot_history(*, benchmark: Benchmark, metric: Metric) -> QuerySet[ResultSnapshot]:
    """Every snapshot of a benchmark's metric, newest first, without the payload."""
    return (
        ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
        .select_related("benchmark", "metric")
        .defer("payload")
        .order_by("-version", "-id")
    )


def snapshot_get(*, benchmark: Benchmark, metric: Metric, version: int) -> ResultSnapshot:
    """Raises ``ResultSnapshot.DoesNotExist``."""
    return ResultSnapshot.objects.select_related("benchmark", "metric").get(
        benchmark=benchmark, metric=metric, version=version
    )


def snapshot_computing(*, benchmark: Benchmark, metric: Metric) -> ResultSnapshot | None:
    """The newest snapshot still being computed, if any (its stage and progress)."""
    return (
        ResultSnapshot.objects.filter(
            benchmark=benchmark, metric=metric, status=ResultSnapshot.Status.COMPUTING
        )
        .defer("payload")
        .order_by("-version", "-id")
        .first()
    )
