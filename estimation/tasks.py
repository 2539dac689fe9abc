"""Thin Celery tasks: ids in, a service call, nothing else."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from estimation.services import snapshot_refresh


@shared_task(
    name="estimation.recompute_benchmark",
    acks_late=True,
    time_limit=settings.RECOMPUTE_TIME_LIMIT,
    soft_time_limit=settings.RECOMPUTE_TIME_LIMIT - 30,
)
def recompute_benchmark(benchmark_id: int) -> list[int]:
    return [snapshot.pk for snapshot in snapshot_refresh(benchmark_id=benchmark_id)]
