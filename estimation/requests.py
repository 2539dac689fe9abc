"""The one way into estimation for the apps below it: "this benchmark's input changed".

``leaderboard`` records a change inside its own transaction with
:func:`recompute_request`; the recompute itself is asked for by task name
(:data:`RECOMPUTE_TASK`), so nothing here imports the pipeline that runs it
(``estimation.services``), and the pipeline may import ``leaderboard`` freely.
"""

from __future__ import annotations

import logging

from celery import current_app as celery_app
from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from config.queues import default_queue
from estimation.models import RecomputeState
from estimation.recompute.background import RECOMPUTE_TASK, thread_start
from estimation.recompute.coalesce import (
    completion_claim,
    completion_release,
    recompute_claim,
    recompute_release,
)
from estimation.recompute.lanes import lane_release, recompute_lane

logger = logging.getLogger(__name__)

COMPLETION_TASK = "estimation.complete_benchmark"  # estimation.tasks.complete_benchmark
# Redis priorities run 0 (first, every recompute) to 9 (last): a worker takes every
# waiting recompute, whose ready versions readers wait for, before any completion.
COMPLETION_PRIORITY = 9


def recompute_request(*, benchmark_id: int) -> None:
    """Record that a benchmark's input changed; enqueue a recompute after commit.

    If the broker is down the change is still recorded (the caller's transaction commits
    normally); the stale sweep (``estimation.recompute_stale``) picks it up once the
    broker is back.
    """
    revision_bump(benchmark_id=benchmark_id)

    def enqueue() -> None:
        try:
            recompute_dispatch(benchmark_id)
        except Exception:  # the broker client raises many unrelated types
            logger.warning(
                "could not enqueue the recompute of benchmark %s; the stale sweep will retry",
                benchmark_id,
                exc_info=True,
            )

    transaction.on_commit(enqueue)


def revision_bump(*, benchmark_id: int) -> None:
    """Count one more change of the benchmark's input (what a run must catch up with).

    One UPDATE when the benchmark has its state row (every change but its first): a
    submission's write waits on each round trip, and a savepoint and a read were three.
    """
    if _revision_increment(benchmark_id):
        return
    with transaction.atomic():
        RecomputeState.objects.get_or_create(benchmark_id=benchmark_id)
        _revision_increment(benchmark_id)


def _revision_increment(benchmark_id: int) -> int:
    """One UPDATE; ``pending_since`` moves only when this is the first change the results
    lack (the row's old values decide: the results had caught up, or it was never set)."""
    now = timezone.now()
    already_waiting = Q(computed_revision__lt=F("requested_revision"), pending_since__isnull=False)
    return RecomputeState.objects.filter(pk=benchmark_id).update(
        requested_revision=F("requested_revision") + 1,
        requested_at=now,
        pending_since=Case(When(already_waiting, then=F("pending_since")), default=Value(now)),
    )


def recompute_dispatch(benchmark_id: int, *, stale_after: float | None = None) -> bool:
    """Start a recompute of ``benchmark_id``: on the workers, or in a background thread.
    False when one is queued already (it computes the newest input); ``stale_after``: a
    queued mark older than this many seconds counts as lost (estimation/recompute/coalesce.py)."""
    if settings.RECOMPUTE_IN_THREAD:
        thread_start(benchmark_id)
        return True
    if not recompute_claim(benchmark_id, stale_after=stale_after):
        return False
    lane = recompute_lane(benchmark_id)
    try:
        celery_app.tasks[RECOMPUTE_TASK].apply_async(
            (benchmark_id,), {"slot": lane.slot}, queue=lane.queue
        )
    except BaseException:
        recompute_release(benchmark_id)  # not queued after all: the sweep must see it
        lane_release(lane.slot)
        raise
    return True


def completion_dispatch(benchmark_id: int, *, queue: str | None = None) -> bool:
    """Queue the completion (bootstrap, evaluation, advisor) of the benchmark's served
    versions behind every waiting recompute (:data:`COMPLETION_PRIORITY`); False when
    one is queued already (its mark expires after ``PODIUM_RECOMPUTE_REQUEUE_SECONDS``,
    so a completion lost with its worker is queued again by the sweep)."""
    if not completion_claim(benchmark_id):
        return False
    try:
        celery_app.tasks[COMPLETION_TASK].apply_async(
            (benchmark_id,), queue=queue or default_queue(), priority=COMPLETION_PRIORITY
        )
    except BaseException:
        completion_release(benchmark_id)
        raise
    return True
