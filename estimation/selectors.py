"""Reads of result snapshots."""

from __future__ import annotations

from estimation.models import ResultSnapshot


def snapshot_latest(*, benchmark, metric=None, ready_only: bool = True) -> ResultSnapshot | None:
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark)
    if metric is not None:
        snapshots = snapshots.filter(metric=metric)
    if ready_only:
        snapshots = snapshots.filter(status=ResultSnapshot.Status.READY)
    return snapshots.order_by("-version", "-id").first()
