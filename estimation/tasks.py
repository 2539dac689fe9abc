"""Thin Celery tasks: ids in, a service call, nothing else."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from estimation.coalesce import recompute_release
from estimation.completion import incomplete_served_enqueue
from estimation.lanes import lane_release
from estimation.retention import snapshots_prune
from estimation.services import recompute_run, recompute_stale_enqueue

# Only a lost database connection is worth retrying; a failing analysis is recorded
# on its snapshot and retrying it would fail the same way.
TRANSIENT_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    bind=True,
    name="estimation.recompute_benchmark",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    max_retries=5,
    time_limit=settings.RECOMPUTE_TIME_LIMIT,
    soft_time_limit=settings.RECOMPUTE_TIME_LIMIT - 30,
)
def recompute_benchmark(self, benchmark_id: int, slot: str | None = None) -> list[int]:
    # ``slot``: the account's share of the default queue this task holds (estimation/lanes.py).
    recompute_release(benchmark_id)
    owner = self.request.id or f"inline-{benchmark_id}"
    try:
        return [snapshot.pk for snapshot in recompute_run(benchmark_id=benchmark_id, owner=owner)]
    finally:
        lane_release(slot)


@shared_task(name="estimation.recompute_stale", acks_late=True, time_limit=60)
def recompute_stale() -> list[int]:
    stale = recompute_stale_enqueue()
    return stale + incomplete_served_enqueue(already=stale)


@shared_task(name="estimation.prune_snapshots", acks_late=True, time_limit=600)
def prune_snapshots() -> int:
    return len(snapshots_prune().snapshot_ids)
