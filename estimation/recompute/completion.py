"""Served versions left incomplete, found by beat's sweep and handed to a worker.

A version is served (ready) before its board's bootstrap and evaluation and its
advisor are stored (estimation.recompute.refresh.snapshot_refresh). On a worker these are a task
of their own, queued at the lowest priority once the run has recorded its revision
(issue 41: every waiting benchmark is served first). So a completion lost with its
worker leaves no stale revision for the stale sweep to find, and neither do the other
ways a served version ends up without its advisor (a database restored from a dump taken
in that window, a version whose advisor gave way to an input since undone). Here the
sweep looks for the newest ready version of each metric that has no advisor section
(the last thing stored; a failed advisor is stored as not applicable) and whose
benchmark no live run holds, and queues its completion
(estimation.tasks.complete_benchmark, behind every waiting recompute), which completes
that version in place. A completion queued already is not queued again until its mark
lapses (``PODIUM_RECOMPUTE_REQUEUE_SECONDS``).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q

from estimation.activity import lease_alive
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.recompute.store import ADVISOR_SECTION
from estimation.requests import completion_dispatch, recompute_request
from estimation.selectors import _servable


def incomplete_served_benchmarks() -> list[int]:
    """Benchmarks whose served version of some metric lacks its advisor, with no live
    lease on them."""
    servable = _servable(ResultSnapshot.objects.all())
    newer = servable.filter(
        benchmark_id=OuterRef("benchmark_id"),
        metric_id=OuterRef("metric_id"),
        version__gt=OuterRef("version"),
    )
    advisor = SnapshotSection.objects.filter(snapshot_id=OuterRef("pk"), name=ADVISOR_SECTION)
    return sorted(
        set(
            servable.filter(~Q(Exists(newer)), ~Q(Exists(advisor)), ~lease_alive())
            .values_list("benchmark_id", flat=True)
            .distinct()
        )
    )


def incomplete_served_enqueue(*, already: Iterable[int] = ()) -> list[int]:
    """Queue the completion of each benchmark :func:`incomplete_served_benchmarks` names
    that is not stale already (the stale sweep, whose ids are ``already``, runs those,
    and each run queues its own completion). A completion already queued is not queued
    again until its mark lapses (estimation/recompute/coalesce.py)."""
    skip = set(already)
    stale = set(
        RecomputeState.objects.filter(computed_revision__lt=F("requested_revision")).values_list(
            "pk", flat=True
        )
    )
    found = [pk for pk in incomplete_served_benchmarks() if pk not in skip | stale]
    for benchmark_id in found:
        if settings.RECOMPUTE_IN_THREAD:
            recompute_request(benchmark_id=benchmark_id)  # the thread's run completes it
        else:
            completion_dispatch(benchmark_id)
    return found
