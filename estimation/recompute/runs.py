"""A recompute run: the per-benchmark lease, its passes, the hand-over to a fresh task,
the back-off after a failure, and the sweeps that find benchmarks left due.

Writers call :func:`estimation.requests.recompute_request` inside their transaction: it
bumps the benchmark's requested revision and enqueues ``recompute_benchmark`` after
commit. A run (:func:`recompute_run`) takes a per-benchmark lease, computes every metric
whose input fingerprint changed (:func:`estimation.recompute.refresh.snapshot_refresh`),
records the revision it computed, and hands the benchmark to a fresh task if changes
arrived meanwhile (``PODIUM_RECOMPUTE_MAX_PASSES``). Duplicate tasks find nothing to do;
a dead worker's lease expires, and the stale sweep abandons its version and queues the
benchmark again. On a worker, a served version's bootstrap, evaluation and advisor are a
task of their own (:func:`estimation.recompute.uncertainty.snapshots_complete`), queued
behind every waiting recompute.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db.models import Case, DateTimeField, F, Q, Value, When
from django.utils import timezone

from estimation import requests
from estimation.activity import lease_alive
from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import SCHEMA_VERSION
from estimation.latest_cache import latest_invalidate
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute.background import recompute_threads_join
from estimation.recompute.inputs import revision_newer_than
from estimation.recompute.leases import (
    LeaseHeartbeat,
    LeaseLost,
    lease_acquire,
    lease_heartbeat,
    lease_release,
    lease_seconds,
)
from estimation.recompute.refresh import snapshot_refresh
from estimation.selectors import recompute_pending

logger = logging.getLogger(__name__)

ABANDONED = "abandoned"
# Failures that say nothing about the input (reading or storing): retried with back-off.
RETRIED = (ResultSnapshot.FailedDuring.LOAD, ResultSnapshot.FailedDuring.STORE)


def recompute_stale_enqueue(*, now: datetime | None = None) -> list[int]:
    """Enqueue a recompute for every benchmark whose input changed since its last run, or
    whose results an older engine computed (so a deployment of a new engine recomputes
    every benchmark without being asked). Not while a live run holds its lease, nor
    before the back-off of its last failure (``retry_at``) has passed.

    Versions left "computing" by a run that is gone are marked abandoned first
    (:func:`snapshots_orphaned_abandon`), and a queued task that has not started for
    ``PODIUM_RECOMPUTE_REQUEUE_SECONDS`` counts as lost (estimation/coalesce.py)."""
    now = now or timezone.now()
    recompute_outdated_request(enqueue=False)
    snapshots_orphaned_abandon(now=now)
    stale = list(
        RecomputeState.objects.filter(computed_revision__lt=F("requested_revision"))
        .filter(Q(lease_owner="") | Q(lease_expires_at__lt=now))
        .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
        .values_list("benchmark_id", flat=True)
    )
    requeue = django_settings.PODIUM_RECOMPUTE_REQUEUE_SECONDS
    for benchmark_id in stale:
        requests.recompute_dispatch(benchmark_id, stale_after=requeue)
    return stale


def snapshots_orphaned_abandon(*, now: datetime | None = None) -> list[int]:
    """Mark abandoned every version left "computing" whose benchmark no live run holds
    (its worker was killed, or its task gave up during a database outage), so that no
    version shows "computing" with nothing running it; its benchmark stays due (a version
    is computing only before its run records the revision) and the stale sweep queues it
    again. Returns the benchmarks whose versions were abandoned."""
    now = now or timezone.now()
    orphans = ResultSnapshot.objects.filter(status=ResultSnapshot.Status.COMPUTING).filter(
        ~lease_alive(now=now)
    )
    benchmark_ids = sorted(set(orphans.values_list("benchmark_id", flat=True)))
    if not benchmark_ids:
        return []
    abandoned = orphans.filter(benchmark_id__in=benchmark_ids).update(
        status=ResultSnapshot.Status.FAILED,
        failed_during=ResultSnapshot.FailedDuring.ABANDONED,
        error=f"{ABANDONED}: the worker computing it stopped before finishing",
        stage="",
        finished_at=now,
    )
    if abandoned:
        logger.warning("abandoned %s version(s) of benchmarks %s", abandoned, benchmark_ids)
    for benchmark_id in benchmark_ids:
        latest_invalidate(benchmark_id=benchmark_id)
        state = RecomputeState.objects.filter(pk=benchmark_id).first()
        if state is not None and not state.is_stale:
            requests.revision_bump(benchmark_id=benchmark_id)
    return benchmark_ids


def recompute_run(
    *,
    benchmark_id: int,
    owner: str,
    clock: Callable[[], float] = time.monotonic,
    max_passes: int | None = None,
    on_beat: Callable[[], None] | None = None,
    on_release: Callable[[], None] | None = None,
    completion: Callable[[], object] | None = None,
) -> list[ResultSnapshot]:
    """Bring a benchmark's snapshots up to date; see the module docstring. ``clock``
    paces the progress writes (:class:`ProgressPace`); tests pass one of their own.

    At most ``max_passes`` passes (``PODIUM_RECOMPUTE_MAX_PASSES`` by default), each
    computing the newest input when it starts: if newer input arrived meanwhile, the
    benchmark is then handed to a fresh task at the back of its queue, so that no run
    holds a worker across a steady stream of changes. ``on_beat`` is called at every
    renewal of the lease and ``on_release`` once the lease is given back, before any
    hand-over (the task's lane slot: the fresh task may take it). With ``completion``,
    each version's bootstrap, evaluation and advisor are left to the completion task,
    which ``completion()`` queues once the run has served its versions (the Celery task:
    every waiting benchmark is then served before any completion work); without, they
    are computed here.

    A metric whose input cannot be read (or whose result cannot be stored) is recorded
    as a failed version; the revision then stays uncomputed and the sweep retries it
    with exponential back-off (:func:`_failure_back_off`). An input the engine cannot
    analyse is recorded as failed and computed: it fails the same way until it changes.
    """
    read_at = timezone.now()
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    if state is not None and not state.is_stale:
        return []  # a duplicate task: an earlier run already computed this revision
    if not lease_acquire(benchmark_id=benchmark_id, owner=owner, state_exists=state is not None):
        return []  # another worker is running and will pick up the new revision
    created: list[ResultSnapshot] = []
    heartbeat = lease_heartbeat(benchmark_id=benchmark_id, owner=owner, on_beat=on_beat)
    try:
        with heartbeat or contextlib.nullcontext():
            _abandon_orphaned_snapshots(benchmark_id=benchmark_id)
            target, backing_off = _passes(
                benchmark_id=benchmark_id,
                pass_=_Pass(owner=owner, lease=heartbeat, clock=clock, complete=completion is None),
                known=state.requested_revision if state is not None else None,
                read_at=read_at,
                max_passes=max_passes,
                created=created,
            )
    except LeaseLost:
        logger.warning("recompute of benchmark %s by %s was taken over", benchmark_id, owner)
        return created  # the new owner finishes the job
    finally:
        lease_release(benchmark_id=benchmark_id, owner=owner)
    if on_release is not None:
        on_release()
    if completion is not None and not backing_off:
        completion()
    _hand_over(benchmark_id=benchmark_id, target=target, backing_off=backing_off)
    return created


@dataclass(frozen=True)
class _Pass:
    """What each pass of a run hands to :func:`snapshot_refresh`."""

    owner: str
    lease: LeaseHeartbeat | None
    clock: Callable[[], float]
    complete: bool


def _passes(
    *,
    benchmark_id: int,
    pass_: _Pass,
    known: int | None,
    read_at: datetime,
    max_passes: int | None,
    created: list[ResultSnapshot],
) -> tuple[int, bool]:
    """Passes until the newest request is computed, a failure backs off, or
    ``max_passes`` are done; returns the last pass's target revision and whether the
    run backs off. The versions written are added to ``created`` as they are written (a
    run whose lease is lost midway returns them).

    The first target is ``known``, the revision read before the lease: the input is read
    after it, so it is at least that new; a request that arrived since is caught by the
    check at the end of the pass (a fresh task, which finds its input computed or
    computes it)."""
    passes_allowed = max(
        max_passes if max_passes is not None else django_settings.PODIUM_RECOMPUTE_MAX_PASSES, 1
    )
    passes = 0
    while True:
        if known is not None:
            target, known = known, None
        else:
            read_at = timezone.now()
            target = RecomputeState.objects.get(pk=benchmark_id).requested_revision
        passes += 1
        done = snapshot_refresh(
            benchmark_id=benchmark_id,
            owner=pass_.owner,
            lease=pass_.lease,
            superseded=revision_newer_than(benchmark_id, target),
            clock=pass_.clock,
            complete=pass_.complete,
        )
        created += done
        if any(s.failed_during in RETRIED for s in done):
            _failure_back_off(benchmark_id=benchmark_id)
            return target, True
        _revision_computed(benchmark_id=benchmark_id, target=target, read_at=read_at)
        if RecomputeState.objects.get(pk=benchmark_id).requested_revision == target:
            return target, False
        if passes >= passes_allowed:
            logger.info(
                "recompute of benchmark %s hands over after %s pass(es)", benchmark_id, passes
            )
            return target, False


def _hand_over(*, benchmark_id: int, target: int, backing_off: bool) -> None:
    """Newer input than the last pass computed (it arrived during the run, or between the
    last check and the release and had its own task turned away by the lease): a fresh
    task at the back of the queue runs it. A run that failed and backs off is retried
    by the sweep (or at once by a newer request than the one it failed)."""
    state = RecomputeState.objects.get(pk=benchmark_id)
    if state.is_stale and (not backing_off or state.requested_revision > target):
        requests.recompute_dispatch(benchmark_id)


def _revision_computed(*, benchmark_id: int, target: int, read_at: datetime) -> None:
    """Record ``target`` as computed; what arrived after it waits since ``read_at`` at
    most (the pass read its input then)."""
    RecomputeState.objects.filter(pk=benchmark_id, computed_revision__lt=target).update(
        computed_revision=target,
        failures=0,
        retry_at=None,
        pending_since=Case(
            When(requested_revision__gt=target, then=Value(read_at)),
            default=Value(None),
            output_field=DateTimeField(),
        ),
    )


def recompute_here(*, benchmark_id: int, owner: str) -> list[ResultSnapshot]:
    """Bring a benchmark's results up to date in this process before returning (the
    management commands): every metric whose input no ready snapshot matches is computed.

    A new revision is recorded but not enqueued, so the run checks every metric against
    its fingerprint even when an earlier run counted the revision as done (a run killed
    with its process, as a command's background thread is). This process's own
    background runs are waited for first; a lease another process holds is waited for
    until that run ends or, when it died, the lease expires and is taken over (a live run
    longer than that is left to finish: :func:`recompute_pending` then says so).
    """
    recompute_threads_join()
    requests.revision_bump(benchmark_id=benchmark_id)
    deadline = time.monotonic() + 2 * lease_seconds() + 5
    while True:
        created = recompute_run(benchmark_id=benchmark_id, owner=owner)
        pending = recompute_pending(benchmark_id=benchmark_id)
        if created or not pending or time.monotonic() > deadline:
            return created
        time.sleep(0.5)  # another run holds the lease


def _retry_delay(failures: int) -> float:
    base = django_settings.RECOMPUTE_RETRY_BASE_SECONDS
    cap = django_settings.RECOMPUTE_RETRY_MAX_SECONDS
    return float(min(cap, base * 2 ** min(failures - 1, 30)))


def _failure_back_off(*, benchmark_id: int) -> None:
    """One more consecutive failure: the sweep waits twice as long as last time."""
    RecomputeState.objects.filter(pk=benchmark_id).update(failures=F("failures") + 1)
    failures = RecomputeState.objects.get(pk=benchmark_id).failures
    RecomputeState.objects.filter(pk=benchmark_id).update(
        retry_at=timezone.now() + timedelta(seconds=_retry_delay(failures))
    )


def _abandon_orphaned_snapshots(*, benchmark_id: int) -> None:
    """Snapshots left 'computing' by a worker that died are never served; say why."""
    abandoned = ResultSnapshot.objects.filter(
        benchmark_id=benchmark_id, status=ResultSnapshot.Status.COMPUTING
    ).update(
        status=ResultSnapshot.Status.FAILED,
        failed_during=ResultSnapshot.FailedDuring.ABANDONED,
        error=f"{ABANDONED}: the worker computing it stopped before finishing",
        stage="",
        finished_at=timezone.now(),
    )
    if abandoned:
        latest_invalidate(benchmark_id=benchmark_id)


def snapshot_outdated_benchmark_ids() -> list[int]:
    """Benchmarks with a metric served by an older engine or contract: its newest ready
    snapshot has another ``engine_version`` or ``schema_version`` than this code's."""
    ready = ResultSnapshot.objects.filter(status=ResultSnapshot.Status.READY)
    current = set(
        ready.filter(engine_version=ENGINE_VERSION, schema_version=SCHEMA_VERSION).values_list(
            "benchmark_id", "metric_id"
        )
    )
    older = set(
        ready.exclude(engine_version=ENGINE_VERSION, schema_version=SCHEMA_VERSION).values_list(
            "benchmark_id", "metric_id"
        )
    )
    return sorted({benchmark for benchmark, metric in older - current})


def recompute_outdated_request(*, enqueue: bool = True) -> list[int]:
    """Ask for a recompute of every benchmark served by an older engine or contract (the
    fingerprint includes both versions, so the run computes new snapshots). A benchmark
    whose input fails under the new engine is asked for once: its failed snapshot has the
    current versions' fingerprint, and a run does not retry a deterministic failure."""
    outdated = snapshot_outdated_benchmark_ids()
    for benchmark_id in outdated:
        if _outdated_already_requested(benchmark_id):
            continue
        if enqueue:
            requests.recompute_request(benchmark_id=benchmark_id)
        else:
            requests.revision_bump(benchmark_id=benchmark_id)
    return outdated


def _outdated_already_requested(benchmark_id: int) -> bool:
    """A pending request or a run of the current engine that failed: nothing to add."""
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    if state is not None and state.is_stale:
        return True
    return ResultSnapshot.objects.filter(
        benchmark_id=benchmark_id,
        engine_version=ENGINE_VERSION,
        status=ResultSnapshot.Status.FAILED,
    ).exists()
