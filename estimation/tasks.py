"""Thin Celery tasks: ids in, a service call, nothing else."""

from __future__ import annotations

import functools

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from estimation.recompute.coalesce import completion_release, recompute_release
from estimation.recompute.completion import incomplete_served_enqueue
from estimation.recompute.lanes import lane_release, lane_running
from estimation.recompute.retention import snapshots_prune
from estimation.recompute.runs import recompute_run, recompute_stale_enqueue
from estimation.recompute.uncertainty import snapshots_complete
from estimation.requests import completion_dispatch

# Only a lost database connection is worth retrying; a failing analysis is recorded
# on its snapshot and retrying it would fail the same way.
TRANSIENT_ERRORS = (OperationalError, InterfaceError)


def retry_budget_seconds(
    *, retries: int | None = None, backoff: float | None = None, cap: float | None = None
) -> float:
    """How long a task keeps retrying a lost database in all: the sum of its back-offs
    (Celery's ``retry_backoff``: ``backoff * 2 ** n`` capped at ``cap``, no jitter)."""
    retries = settings.RECOMPUTE_TASK_RETRIES if retries is None else retries
    backoff = settings.RECOMPUTE_TASK_BACKOFF_SECONDS if backoff is None else backoff
    cap = settings.RECOMPUTE_TASK_BACKOFF_MAX_SECONDS if cap is None else cap
    return float(sum(min(cap, backoff * 2**n) for n in range(retries)))


# Retries of a lost database (no jitter: the budget above is what they wait in all).
# A task out of retries leaves its benchmark due; the stale sweep queues it again.
RETRYING = {
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": settings.RECOMPUTE_TASK_BACKOFF_SECONDS,
    "retry_backoff_max": settings.RECOMPUTE_TASK_BACKOFF_MAX_SECONDS,
    "retry_jitter": False,
    "max_retries": settings.RECOMPUTE_TASK_RETRIES,
}


@shared_task(
    bind=True,
    name="estimation.recompute_benchmark",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.RECOMPUTE_TIME_LIMIT,
    soft_time_limit=settings.RECOMPUTE_TIME_LIMIT - 30,
    **RETRYING,
)
def recompute_benchmark(self, benchmark_id: int, slot: str | None = None) -> list[int]:
    # ``slot``: the account's share of the default queue this task holds (estimation/recompute/lanes.py);
    # it counts while the run's lease heartbeat beats, and is given back at the end.
    recompute_release(benchmark_id)
    lane_running(slot)
    owner = self.request.id or f"inline-{benchmark_id}"
    # On a worker, the completion (bootstrap, evaluation, advisor) is a task of its own
    # behind every waiting recompute; run eagerly (a background thread), it is done here.
    deferred = not self.request.is_eager and not settings.RECOMPUTE_IN_THREAD
    queue = (self.request.delivery_info or {}).get("routing_key")
    try:
        created = recompute_run(
            benchmark_id=benchmark_id,
            owner=owner,
            on_beat=functools.partial(lane_running, slot),
            on_release=functools.partial(lane_release, slot),
            completion=(
                functools.partial(completion_dispatch, benchmark_id, queue=queue)
                if deferred
                else None
            ),
        )
        return [snapshot.pk for snapshot in created]
    finally:
        lane_release(slot)


@shared_task(
    name="estimation.complete_benchmark",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.RECOMPUTE_TIME_LIMIT,
    soft_time_limit=settings.RECOMPUTE_TIME_LIMIT - 30,
    **RETRYING,
)
def complete_benchmark(benchmark_id: int) -> list[int]:
    completion_release(benchmark_id)
    return snapshots_complete(benchmark_id=benchmark_id)


@shared_task(name="estimation.recompute_stale", acks_late=True, time_limit=60)
def recompute_stale() -> list[int]:
    stale = recompute_stale_enqueue()
    return stale + incomplete_served_enqueue(already=stale)


@shared_task(name="estimation.prune_snapshots", acks_late=True, time_limit=600)
def prune_snapshots() -> int:
    return len(snapshots_prune().snapshot_ids)
