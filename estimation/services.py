"""Database -> arrays -> core -> snapshot, and the coalescing recompute pipeline.

Writers call :func:`recompute_request` inside their transaction: it bumps the
benchmark's requested revision and enqueues ``recompute_benchmark`` after commit. A run
(:func:`recompute_run`) takes a per-benchmark lease, computes every metric whose input
fingerprint changed, records the revision it computed, and hands the benchmark to a
fresh task if changes arrived meanwhile (``PODIUM_RECOMPUTE_MAX_PASSES``). Duplicate
tasks find nothing to do; a dead worker's lease expires, and the stale sweep abandons
its version and queues the benchmark again. On a worker, a served version's bootstrap,
evaluation and advisor are a task of their own (:func:`snapshots_complete`), queued
behind every waiting recompute.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import Case, DateTimeField, Exists, F, OuterRef, Q, Value, When
from django.utils import timezone

from estimation import requests
from estimation.background import recompute_threads_join
from estimation.commits import derived_atomic, snapshot_read_atomic
from estimation.core.advisor import AdvisorStopped
from estimation.core.analysis import (
    ENGINE_VERSION,
    UNCERTAINTY_GAVE_WAY,
    AnalysisSettings,
    UncertaintyStopped,
    analyze,
    analyze_advisor,
    analyze_uncertainty,
    uncertainty_deferred,
    uncertainty_failed,
    uncertainty_pending,
)
from estimation.core.contract import (
    SCHEMA_VERSION,
    Board,
    NotApplicable,
    SnapshotPayload,
    to_json,
)
from estimation.core.table import ResultTable
from estimation.latest_cache import latest_invalidate
from estimation.leases import (
    LeaseHeartbeat,
    LeaseLost,
    lease_acquire,
    lease_heartbeat,
    lease_release,
    lease_renew,
    lease_seconds,
)
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.selectors import (
    recompute_pending,
    snapshot_latest,
    snapshot_section,
    snapshot_section_etag,
)
from estimation.tables import (
    NotRanked,
    analysis_settings_for,
    analysis_table_build,
    fingerprint,
    not_ranked_noted,
    result_table_build,
)
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import accepted_submissions

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
    leased = RecomputeState.objects.filter(
        pk=OuterRef("benchmark_id"), lease_expires_at__gte=now
    ).exclude(lease_owner="")
    orphans = ResultSnapshot.objects.filter(status=ResultSnapshot.Status.COMPUTING).filter(
        ~Exists(leased)
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


# --- runs -----------------------------------------------------------------------------


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
    each version's
    bootstrap, evaluation and advisor are left to the completion task, which
    ``completion()`` queues once the run has served its versions (the Celery task:
    every waiting benchmark is then served before any completion work); without, they
    are computed here.

    A metric whose input cannot be read (or whose result cannot be stored) is recorded
    as a failed version; the revision then stays uncomputed and the sweep retries it
    with exponential back-off (:func:`_failure_back_off`). An input the engine cannot
    analyse is recorded as failed and computed: it fails the same way until it changes.
    """
    passes_allowed = max(
        max_passes if max_passes is not None else django_settings.PODIUM_RECOMPUTE_MAX_PASSES, 1
    )
    read_at = timezone.now()
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    if state is not None and not state.is_stale:
        return []  # a duplicate task: an earlier run already computed this revision
    if not lease_acquire(benchmark_id=benchmark_id, owner=owner, state_exists=state is not None):
        return []  # another worker is running and will pick up the new revision
    created: list[ResultSnapshot] = []
    heartbeat = lease_heartbeat(benchmark_id=benchmark_id, owner=owner, on_beat=on_beat)
    # The first target is the revision read above: the input is read after it, so it is
    # at least that new; a request that arrived since is caught by the check at the end
    # of the pass (a fresh task, which finds its input computed or computes it).
    known = state.requested_revision if state is not None else None
    target = 0
    passes = 0
    backing_off = False
    try:
        with heartbeat or contextlib.nullcontext():
            _abandon_orphaned_snapshots(benchmark_id=benchmark_id)
            while True:
                if known is not None:
                    target, known = known, None
                else:
                    read_at = timezone.now()
                    target = RecomputeState.objects.get(pk=benchmark_id).requested_revision
                passes += 1
                done = snapshot_refresh(
                    benchmark_id=benchmark_id,
                    owner=owner,
                    lease=heartbeat,
                    superseded=_newer_than(benchmark_id, target),
                    clock=clock,
                    complete=completion is None,
                )
                created += done
                if any(s.failed_during in RETRIED for s in done):
                    _failure_back_off(benchmark_id=benchmark_id)
                    backing_off = True
                    break
                _revision_computed(benchmark_id=benchmark_id, target=target, read_at=read_at)
                if RecomputeState.objects.get(pk=benchmark_id).requested_revision == target:
                    break
                if passes >= passes_allowed:
                    logger.info(
                        "recompute of benchmark %s hands over after %s pass(es)",
                        benchmark_id,
                        passes,
                    )
                    break
    except LeaseLost:
        logger.warning("recompute of benchmark %s by %s was taken over", benchmark_id, owner)
        return created  # the new owner finishes the job
    finally:
        lease_release(benchmark_id=benchmark_id, owner=owner)
    if on_release is not None:
        on_release()
    if completion is not None and not backing_off:
        completion()
    # Newer input than the last pass computed (it arrived during the run, or between our
    # last check and the release and had its own task turned away by our lease): a fresh
    # task at the back of the queue runs it. A run that failed and backs off is retried
    # by the sweep (or at once by a newer request than the one it failed).
    state = RecomputeState.objects.get(pk=benchmark_id)
    if state.is_stale and (not backing_off or state.requested_revision > target):
        requests.recompute_dispatch(benchmark_id)
    return created


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


def _newer_than(benchmark_id: int, revision: int) -> Callable[[], bool]:
    """Whether a revision newer than ``revision`` has been requested (one indexed read)."""
    return RecomputeState.objects.filter(pk=benchmark_id, requested_revision__gt=revision).exists


def snapshot_refresh(
    *,
    benchmark_id: int,
    owner: str = "",
    lease: LeaseHeartbeat | None = None,
    superseded: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.monotonic,
    complete: bool = True,
) -> list[ResultSnapshot]:
    """Recompute every metric of a benchmark whose input changed; return the versions
    written (ready or failed; a load failure repeated returns its recorded version).
    ``complete=False`` leaves each version's completion (below) to
    :func:`snapshots_complete`.

    A version is served (ready) before its board's bootstrap and evaluation and its
    advisor: :func:`snapshot_uncertainty_store` then completes the board in place, and
    :func:`snapshot_advisor_store` adds the advisor.

    ``superseded`` (asked before the bootstrap and the evaluation, and while an advisor is
    simulated, after the version is served) says a newer input is waiting: the rest is
    then left out, so that the newer version is computed at once; the newer version gets
    its own (and a run that finds this version still current completes it).
    """
    benchmark = Benchmark.objects.get(pk=benchmark_id)
    settings = analysis_settings_for(benchmark=benchmark)
    created = []
    for metric in benchmark.metrics.all():
        snapshot = _snapshot_compute(
            benchmark=benchmark,
            metric=metric,
            settings=replace(settings, rope=metric.rope),  # the ROPE is the metric's
            owner=owner,
            lease=lease,
            superseded=superseded,
            clock=clock,
            complete=complete,
        )
        if snapshot is not None:
            created.append(snapshot)
    return created


def _input_read(
    *, benchmark: Benchmark, metric: Metric
) -> tuple[list[int], ResultTable, tuple[NotRanked, ...]]:
    """The accepted submissions' ids and the table the engine analyses (the benchmark's
    rule for algorithms with empty cells applied), read from one database snapshot
    (REPEATABLE READ on PostgreSQL, unless the caller's transaction is already open)."""
    with snapshot_read_atomic():
        accepted = accepted_submissions(benchmark=benchmark)  # read once, for both
        table = result_table_build(benchmark=benchmark, metric=metric, submissions=accepted)
    table, not_ranked = analysis_table_build(table, benchmark=benchmark)
    return sorted(pk for pk, _ in accepted), table, not_ranked


NO_SCORES = "ValueError: no accepted scores of this metric"
# A stage's progress is written only when this long has passed since the last write (or
# the start of the analysis): the quick analysis of a small board writes none.
PROGRESS_SECONDS = 0.2


class ProgressPace:
    """Whether a stage's progress is worth a write now: at most one per
    :data:`PROGRESS_SECONDS` of ``clock``, counted from the start of the analysis.

    The clock comes in as an argument so that a test decides how much time passes (a
    statement count must not depend on how fast the machine is that day).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last = clock()

    def due(self) -> bool:
        now = self._clock()
        if now - self._last < PROGRESS_SECONDS:
            return False
        self._last = now
        return True


def _benchmark_lock(benchmark_id: int) -> tuple[str, list[str]]:
    """Lock the benchmark's row (inside the caller's transaction) and read its slug and
    metric names with it, one round trip: what invalidating its cached answers needs
    (:func:`latest_invalidate` would read them again)."""
    rows = list(
        Benchmark.objects.select_for_update(of=("self",))
        .filter(pk=benchmark_id)
        .order_by()
        .values_list("slug", "metrics__name")
    )
    if not rows:
        raise Benchmark.DoesNotExist(benchmark_id)
    return rows[0][0], [name for _, name in rows if name is not None]


# The newest version of a metric, its newest ready one and its newest analysis failure of
# an input, in one statement (each the highest version of its kind: an index scan
# backwards each). Written out: the same query built with the ORM (three Subquery
# expressions under an OR) took 1.8 ms of Python to compile, against 0.03 ms to run.
_VERSIONS_KNOWN = """
SELECT * FROM {table} WHERE id IN (
    (SELECT id FROM {table} WHERE benchmark_id = %s AND metric_id = %s
     ORDER BY version DESC LIMIT 1),
    (SELECT id FROM {table} WHERE benchmark_id = %s AND metric_id = %s AND status = %s
     ORDER BY version DESC LIMIT 1),
    (SELECT id FROM {table} WHERE benchmark_id = %s AND metric_id = %s AND status = %s
     AND fingerprint = %s AND failed_during = %s ORDER BY version DESC LIMIT 1)
)
"""


def _versions_known(
    *, benchmark: Benchmark, metric: Metric, key: str
) -> tuple[ResultSnapshot | None, ResultSnapshot | None, ResultSnapshot | None]:
    """The metric's newest version, its newest ready one and its newest analysis failure
    of the input ``key``, in one query (:data:`_VERSIONS_KNOWN`)."""
    rows = list(
        ResultSnapshot.objects.raw(
            _VERSIONS_KNOWN.format(table=ResultSnapshot._meta.db_table),  # our table name
            [
                *(benchmark.pk, metric.pk),
                *(benchmark.pk, metric.pk, ResultSnapshot.Status.READY),
                *(benchmark.pk, metric.pk, ResultSnapshot.Status.FAILED),
                *(key, ResultSnapshot.FailedDuring.ANALYSIS),
            ],
        )
    )

    def highest(rows: list[ResultSnapshot]) -> ResultSnapshot | None:
        return max(rows, key=lambda row: row.version, default=None)

    return (
        highest(rows),
        highest([r for r in rows if r.status == ResultSnapshot.Status.READY]),
        highest(
            [
                r
                for r in rows
                if r.status == ResultSnapshot.Status.FAILED
                and r.fingerprint == key
                and r.failed_during == ResultSnapshot.FailedDuring.ANALYSIS
            ]
        ),
    )


def _snapshot_insert(*, slug: str, metric_names: list[str], **fields) -> ResultSnapshot:
    """A new version's row, and the benchmark's cached answers dropped with the names the
    caller read under its row lock (as the model's post_save signal would, without
    reading them again)."""
    (snapshot,) = ResultSnapshot.objects.bulk_create([ResultSnapshot(**fields)])
    latest_invalidate(slug=slug, metrics=metric_names)
    return snapshot


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _snapshot_compute(
    *,
    benchmark: Benchmark,
    metric: Metric,
    settings: AnalysisSettings,
    owner: str,
    lease: LeaseHeartbeat | None = None,
    superseded: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.monotonic,
    complete: bool = True,
) -> ResultSnapshot | None:
    """Everything from reading to storing happens inside the failure path: whatever
    raises is recorded on a version (see :class:`ResultSnapshot.FailedDuring`).
    ``clock`` paces the progress writes only; the timings stored are wall seconds."""
    started = time.perf_counter()
    try:
        submissions, table, not_ranked = _input_read(benchmark=benchmark, metric=metric)
        key = fingerprint(table, settings, not_ranked=not_ranked)
    except Exception as exc:
        logger.exception("reading %s / %s failed", benchmark.slug, metric.name)
        return _load_failure_record(benchmark=benchmark, metric=metric, error=_error_text(exc))
    empty = table.n_datasets == 0 or table.n_algorithms == 0
    with derived_atomic():
        # The row lock serialises version numbers between concurrent writers.
        slug, metric_names = _benchmark_lock(benchmark.pk)
        newest, latest_ready, known = _versions_known(benchmark=benchmark, metric=metric, key=key)
        if empty and newest is None:
            return None  # nothing submitted yet, nothing served: nothing to say
        served: ResultSnapshot | None = None
        repeated: ResultSnapshot | None = None
        if latest_ready is not None and latest_ready.fingerprint == key:
            if newest is not None and newest.pk != latest_ready.pk:
                # Newer versions failed since, and the input is back to the one served:
                # a new version with its results says that the newest input is fine.
                repeated = _snapshot_repeat(
                    source=latest_ready, version=newest.version + 1, submissions=submissions
                )
            else:
                served = latest_ready  # the input being served: at most its completion to do
        else:
            if (
                newest is not None
                and newest.status == ResultSnapshot.Status.FAILED
                and newest.failed_during == ResultSnapshot.FailedDuring.ANALYSIS
                and newest.fingerprint == key
            ):
                return None  # this input's failure is already the newest version
            version = (newest.version if newest is not None else 0) + 1
            if empty or known is not None:
                # The analysis is deterministic: this input fails again. Recorded as the
                # newest version (readers are told), without running it.
                return _snapshot_insert(
                    slug=slug,
                    metric_names=metric_names,
                    benchmark=benchmark,
                    metric=metric,
                    version=version,
                    fingerprint=key,
                    engine_version=ENGINE_VERSION,
                    status=ResultSnapshot.Status.FAILED,
                    failed_during=ResultSnapshot.FailedDuring.ANALYSIS,
                    error=NO_SCORES if empty or known is None else known.error,
                    submissions=submissions,
                    finished_at=timezone.now(),
                )
            snapshot = _snapshot_insert(
                slug=slug,
                metric_names=metric_names,
                benchmark=benchmark,
                metric=metric,
                version=version,
                fingerprint=key,
                engine_version=ENGINE_VERSION,
                stage="loading",
                submissions=submissions,
            )
    if (served is not None or repeated is not None) and not complete:
        return repeated
    if served is not None or repeated is not None:
        # A worker that stopped between serving a snapshot and completing its board or
        # storing its advisor (or gave way to a newer input since undone) left them out:
        # this run adds them (a no-op when they are there), to a repeat as well.
        finishing = served or repeated
        assert finishing is not None
        if snapshot_uncertainty_store(
            snapshot=finishing, table=table, settings=settings, stop=superseded
        ):
            snapshot_advisor_store(snapshot=finishing, table=table, settings=settings)
        return repeated
    loaded = time.perf_counter()
    pace = ProgressPace(clock)

    def report(stage: str, fraction: float) -> None:
        if lease is not None and lease.lost.is_set():
            raise LeaseLost(owner)
        if not pace.due():
            # A stage this soon after the last one written is not worth a round trip
            # (m = 20 reports five in 60 ms): readers see "loading" or the stage before.
            # Whether the version is still ours is checked when it is stored.
            return
        still_ours = ResultSnapshot.objects.filter(
            pk=snapshot.pk, status=ResultSnapshot.Status.COMPUTING
        ).update(stage=stage, progress=fraction)
        if not still_ours:
            raise LeaseLost(owner)
        if owner and lease is None and not lease_renew(benchmark_id=benchmark.pk, owner=owner):
            raise LeaseLost(owner)

    try:
        # The bootstrap and evaluation (most of the analysis) and the advisor (about 1 s
        # at m = 20, n = 100) follow once the rest is served: readers do not wait.
        analysis = analyze(table, settings, progress=report, advisor=False, uncertainty=False)
        payload = not_ranked_noted(analysis.payload, not_ranked)
        sections = section_bodies(payload)
        sections.pop(ADVISOR_SECTION)
    except LeaseLost:
        raise
    except Exception as exc:
        logger.exception("analysis of %s / %s failed", benchmark.slug, metric.name)
        return _snapshot_fail(
            snapshot=snapshot, during=ResultSnapshot.FailedDuring.ANALYSIS, error=_error_text(exc)
        )
    finished = time.perf_counter()
    timings = {
        "load_s": loaded - started,
        "analyse_s": finished - loaded,
        "stages": analysis.timings,
    }
    try:
        ready = _snapshot_ready(
            snapshot=snapshot,
            bodies=sections,
            payload=payload,
            timings=timings,
            owner=owner,
        )
    except LeaseLost:
        raise
    except Exception as exc:
        logger.exception("storing %s / %s failed", benchmark.slug, metric.name)
        return _snapshot_fail(
            snapshot=snapshot, during=ResultSnapshot.FailedDuring.STORE, error=_error_text(exc)
        )
    if not complete:
        return ready
    if snapshot_uncertainty_store(
        snapshot=ready,
        table=table,
        settings=settings,
        board=payload.board,
        stop=superseded,
    ):
        snapshot_advisor_store(snapshot=ready, table=table, settings=settings, stop=superseded)
    return ready


ADVISOR_SECTION = "advisor"
BOARD_SECTION = "board"


def snapshot_uncertainty_store(
    *,
    snapshot: ResultSnapshot,
    table: ResultTable,
    settings: AnalysisSettings,
    board: Board | None = None,
    stop: Callable[[], bool] | None = None,
) -> bool:
    """Complete a ready snapshot's board with the bootstrap and evaluation that
    ``analyze(..., uncertainty=False)`` left out; return whether the board is complete
    (False: ``stop`` said a newer input waits, and the board was left as it was).

    Idempotent: a complete board stays, and the write only replaces the deferred board it
    read (two runs completing it write the same bytes). The new board's etag, the
    snapshot's ``finished_at`` (in :func:`selectors.snapshots_etag` and Last-Modified) and
    the latest-snapshot cache all change in one transaction, so pollers refetch. A failure
    is stored as not applicable with its reason, and logged. ``board`` is the deferred
    board when the caller has it (else it is read back).
    """
    etag = snapshot_section_etag(snapshot_id=snapshot.pk, name=BOARD_SECTION)
    if etag is None:
        return True  # deleted meanwhile (retention): nothing to complete
    if board is None:
        board = snapshot_section(snapshot_id=snapshot.pk, name=BOARD_SECTION, etag=etag)
        if board is None:
            return True  # deleted between the two reads
    if not uncertainty_deferred(board):
        return True
    started = time.perf_counter()
    stages: dict[str, float] = {}
    try:
        completion = analyze_uncertainty(table, settings, board, stop=stop)
        complete, stages = completion.board, completion.timings
    except UncertaintyStopped:
        # Newer results are computed next; this version's permalink says its spread is
        # not coming rather than "being computed" for good (a run that finds its input
        # current again still completes it).
        logger.info("the board of snapshot %s gave way to a newer input", snapshot.pk)
        _board_replace(snapshot, etag, uncertainty_failed(board, UNCERTAINTY_GAVE_WAY))
        return False
    except Exception as exc:
        logger.exception("completing the board of snapshot %s failed", snapshot.pk)
        complete = uncertainty_failed(
            board, f"the bootstrap and evaluation failed: {type(exc).__name__}: {exc}"
        )
    _board_replace(snapshot, etag, complete, stages, time.perf_counter() - started)
    return True


def _board_replace(
    snapshot: ResultSnapshot,
    etag: str,
    board: Board,
    stages: dict[str, float] | None = None,
    seconds: float | None = None,
) -> None:
    """Store ``board`` as ``snapshot``'s board if its stored board is still ``etag`` (and
    differs from it); its etag, ``finished_at`` and the latest cache move together."""
    new_body, new_etag = _section_body(board)
    if new_etag == etag:
        return  # nothing changes: no validator moves
    timings = dict(snapshot.timings or {})
    if seconds is not None:
        timings["uncertainty_s"] = seconds
    served_stages = timings.get("stages", {})  # its ranking stage is the quick analysis's
    timings["stages"] = {
        **served_stages,
        **{k: v for k, v in (stages or {}).items() if k not in served_stages},
    }
    finished_at = timezone.now()
    # Derived data (estimation/commits.py): a completion a crash loses leaves the board
    # deferred, and the completion sweep (estimation/completion.py) computes it again.
    with derived_atomic():
        replaced = SnapshotSection.objects.filter(
            snapshot=snapshot, name=BOARD_SECTION, etag=etag
        ).update(body=new_body, etag=new_etag)
        if replaced:
            ResultSnapshot.objects.filter(pk=snapshot.pk).update(
                finished_at=finished_at, timings=timings
            )
            latest_invalidate(benchmark_id=snapshot.benchmark_id)
    if replaced:
        snapshot.finished_at, snapshot.timings = finished_at, timings
    else:  # another run wrote it first: its timings stand
        snapshot.refresh_from_db(fields=["finished_at", "timings"])


def snapshot_advisor_store(
    *,
    snapshot: ResultSnapshot,
    table: ResultTable,
    settings: AnalysisSettings,
    stop: Callable[[], bool] | None = None,
) -> None:
    """Compute and store a ready snapshot's advisor section (idempotent: a stored one
    stays). A failure is stored as not applicable with its reason, and logged; when
    ``stop`` says so (a newer input waits), nothing is stored."""
    if SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists():
        return
    started = time.perf_counter()
    section: object
    try:
        section = analyze_advisor(table, settings, stop=stop)
    except AdvisorStopped:
        logger.info("the advisor of snapshot %s gave way to a newer input", snapshot.pk)
        return
    except Exception as exc:
        logger.exception("the advisor of snapshot %s failed", snapshot.pk)
        section = NotApplicable(f"the advisor failed: {type(exc).__name__}: {exc}")
    body, etag = _section_body(section)
    SnapshotSection.objects.get_or_create(
        snapshot=snapshot,
        name=ADVISOR_SECTION,
        defaults={"body": body, "etag": etag},
    )
    timings = dict(snapshot.timings or {})
    timings["advisor_s"] = time.perf_counter() - started
    ResultSnapshot.objects.filter(pk=snapshot.pk).update(timings=timings)
    latest_invalidate(benchmark_id=snapshot.benchmark_id)  # the timings are in the body


def snapshots_complete(*, benchmark_id: int) -> list[int]:
    """Complete the served version of each of the benchmark's metrics: its bootstrap and
    evaluation, then its advisor (each idempotent). Returns the ids of the versions it
    completed or found complete.

    Served first, completed later (the completion task runs behind every waiting
    recompute): when newer input waits for its ready version, nothing is done here (that
    recompute queues its own completion), and a newer request during the work stops it
    (the version's spread then says it gave way, as in :func:`snapshot_refresh`). A
    version whose input has changed since is left alone for the same reason.
    """
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    if state is None or state.is_stale:
        return []
    benchmark = Benchmark.objects.filter(pk=benchmark_id).first()
    if benchmark is None:
        return []
    superseded = _newer_than(benchmark_id, state.requested_revision)
    settings = analysis_settings_for(benchmark=benchmark)
    done: list[int] = []
    for metric in benchmark.metrics.all():
        if superseded():
            break
        served = snapshot_latest(benchmark=benchmark, metric=metric)
        if served is not None:
            _superseded_give_way(served)
        if served is None or _complete(served):
            if served is not None:
                done.append(served.pk)
            continue
        _, table, not_ranked = _input_read(benchmark=benchmark, metric=metric)
        metric_settings = replace(settings, rope=metric.rope)
        if fingerprint(table, metric_settings, not_ranked=not_ranked) != served.fingerprint:
            continue  # the input changed: its own version is computed and completed next
        if snapshot_uncertainty_store(
            snapshot=served, table=table, settings=metric_settings, stop=superseded
        ):
            snapshot_advisor_store(
                snapshot=served, table=table, settings=metric_settings, stop=superseded
            )
            done.append(served.pk)
    return done


def _superseded_give_way(served: ResultSnapshot) -> None:
    """Versions served before ``served`` whose completion never ran (newer input was
    waiting each time) say that their spread is not coming, rather than "being computed"
    for good. Only those above the newest completed version are read (the ones below
    were settled when it was completed)."""
    completed = (
        ResultSnapshot.objects.filter(
            benchmark_id=served.benchmark_id,
            metric_id=served.metric_id,
            sections__name=ADVISOR_SECTION,
            version__lt=served.version,
        )
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )
    left = (
        ResultSnapshot.objects.filter(
            benchmark_id=served.benchmark_id,
            metric_id=served.metric_id,
            status=ResultSnapshot.Status.READY,
            version__lt=served.version,
            version__gt=completed or 0,
        )
        .exclude(sections__name=ADVISOR_SECTION)
        .order_by("version")
    )
    for snapshot in left:
        etag = snapshot_section_etag(snapshot_id=snapshot.pk, name=BOARD_SECTION)
        board = (
            snapshot_section(snapshot_id=snapshot.pk, name=BOARD_SECTION, etag=etag)
            if etag is not None
            else None
        )
        if etag is not None and board is not None and uncertainty_pending(board):
            _board_replace(snapshot, etag, uncertainty_failed(board, UNCERTAINTY_GAVE_WAY))


def _complete(snapshot: ResultSnapshot) -> bool:
    """Its advisor is stored (the last thing a completion stores)."""
    return SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()


def _snapshot_fail(*, snapshot: ResultSnapshot, during: str, error: str) -> ResultSnapshot:
    """Mark a computing version failed, unless another run abandoned it meanwhile."""
    snapshot.status = ResultSnapshot.Status.FAILED
    snapshot.failed_during = during
    snapshot.error = error
    snapshot.stage = ""
    snapshot.finished_at = timezone.now()
    updated = ResultSnapshot.objects.filter(
        pk=snapshot.pk, status=ResultSnapshot.Status.COMPUTING
    ).update(
        status=snapshot.status,
        failed_during=during,
        error=error,
        stage="",
        finished_at=snapshot.finished_at,
    )
    if not updated:
        raise LeaseLost(snapshot.pk)
    latest_invalidate(benchmark_id=snapshot.benchmark_id)
    return snapshot


def _load_failure_record(*, benchmark: Benchmark, metric: Metric, error: str) -> ResultSnapshot:
    """A version saying the input could not be read; the same failure again (a retry)
    updates that version rather than adding one per attempt."""
    with transaction.atomic():
        Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        existing = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
        newest = existing.order_by("-version").first()
        now = timezone.now()
        if (
            newest is not None
            and newest.status == ResultSnapshot.Status.FAILED
            and newest.failed_during == ResultSnapshot.FailedDuring.LOAD
            and newest.error == error
        ):
            newest.finished_at = now
            newest.save(update_fields=["finished_at"])
            return newest
        return ResultSnapshot.objects.create(
            benchmark=benchmark,
            metric=metric,
            version=(newest.version if newest is not None else 0) + 1,
            fingerprint="",
            engine_version=ENGINE_VERSION,
            status=ResultSnapshot.Status.FAILED,
            failed_during=ResultSnapshot.FailedDuring.LOAD,
            error=error,
            finished_at=now,
        )


def _snapshot_repeat(
    *, source: ResultSnapshot, version: int, submissions: list[int]
) -> ResultSnapshot:
    """A new ready version with ``source``'s results (copied in the database)."""
    snapshot = ResultSnapshot.objects.create(
        benchmark_id=source.benchmark_id,
        metric_id=source.metric_id,
        version=version,
        fingerprint=source.fingerprint,
        engine_version=source.engine_version,
        schema_version=source.schema_version,
        status=ResultSnapshot.Status.READY,
        progress=1.0,
        timings={"copied_from_version": source.version},
        submissions=submissions,
        leader=source.leader,
        finished_at=timezone.now(),
    )
    table = SnapshotSection._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (snapshot_id, name, body, etag) "  # our table name, no input
            f"SELECT %s, name, body, etag FROM {table} WHERE snapshot_id = %s",
            [snapshot.pk, source.pk],
        )
    return snapshot


def _sections_write(*, snapshot: ResultSnapshot, bodies: dict[str, tuple[str, str]]) -> None:
    """One multi-row INSERT, a placeholder per value. Not ``bulk_create``: on PostgreSQL
    it sends each column as one array (``INSERT ... SELECT * FROM UNNEST``), and quoting
    an array of JSON texts escapes their every quote with a regex in Python (12 ms of
    CPU for an m = 20 board's sections), which the server then parses back; a plain text
    parameter is escaped by libpq."""
    if not bodies:
        return
    table = SnapshotSection._meta.db_table
    rows = ", ".join(["(%s, %s, %s, %s)"] * len(bodies))
    values = [v for name, (body, etag) in bodies.items() for v in (snapshot.pk, name, body, etag)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (snapshot_id, name, body, etag) VALUES {rows}",  # no input
            values,
        )


def snapshot_ready_store(
    *, snapshot: ResultSnapshot, payload: SnapshotPayload, timings: dict | None = None
) -> ResultSnapshot:
    """Store ``payload``'s sections on ``snapshot`` and mark it ready (what a run does
    after the analysis; tests store prepared payloads with it)."""
    return _snapshot_ready(
        snapshot=snapshot, bodies=section_bodies(payload), payload=payload, timings=timings or {}
    )


def _snapshot_ready(
    *,
    snapshot: ResultSnapshot,
    bodies: dict[str, tuple[str, str]],
    payload: SnapshotPayload,
    timings: dict,
    owner: str = "",
) -> ResultSnapshot:
    """The sections and the ready status in one transaction: a reader sees both or neither.

    Saved only by the run that still owns the version: its lease (locked, so no other
    run can take it until this commits) and a status still 'computing' (a run that took
    over marks it abandoned). Otherwise :class:`LeaseLost`, and nothing is written.
    """
    finished_at = timezone.now()
    with derived_atomic():
        names: tuple[str, list[str]] | None = None
        if owner:
            # The lease row locked, and the slug and metric names read with it (what the
            # invalidation below needs): one round trip.
            held = list(
                RecomputeState.objects.select_for_update(of=("self",))
                .filter(pk=snapshot.benchmark_id, lease_owner=owner)
                .order_by()
                # A column of the locked row: Django names it in FOR UPDATE OF only then.
                .values_list("lease_owner", "benchmark__slug", "benchmark__metrics__name")
            )
            if not held:
                raise LeaseLost(owner)
            names = held[0][1], [name for _, _, name in held if name is not None]
        updated = ResultSnapshot.objects.filter(
            pk=snapshot.pk, status=ResultSnapshot.Status.COMPUTING
        ).update(
            status=ResultSnapshot.Status.READY,
            stage="",
            progress=1.0,
            finished_at=finished_at,
            timings=timings,
            schema_version=payload.schema_version,
            engine_version=payload.engine_version,
            leader=board_leader(payload.board),
        )
        if updated != 1:
            raise LeaseLost(owner or snapshot.pk)
        _sections_write(snapshot=snapshot, bodies=bodies)
        if names is not None:
            latest_invalidate(slug=names[0], metrics=names[1])
        else:
            latest_invalidate(benchmark_id=snapshot.benchmark_id)
    snapshot.status = ResultSnapshot.Status.READY
    snapshot.stage = ""
    snapshot.progress = 1.0
    snapshot.finished_at = finished_at
    snapshot.schema_version = payload.schema_version
    snapshot.engine_version = payload.engine_version
    snapshot.timings = timings
    snapshot.leader = board_leader(payload.board)
    return snapshot


def board_leader(board: Board) -> str:
    """The algorithm a board lists first (its default estimator's order, as the table)."""
    top = board.top(1)
    return top[0][:200] if top else ""


def snapshot_cite(*, benchmark_id: int, metric_id: int, version: int) -> None:
    """A reader asked for this ready version's permalink, an export or its version URL:
    it may be cited from now on, so retention keeps it (estimation/retention.py).
    One UPDATE that matches nothing once the version is marked."""
    ResultSnapshot.objects.filter(
        benchmark_id=benchmark_id,
        metric_id=metric_id,
        version=version,
        status=ResultSnapshot.Status.READY,
        cited_at__isnull=True,
    ).update(cited_at=timezone.now())


def section_bodies(payload: SnapshotPayload) -> dict[str, tuple[str, str]]:
    """{section name: (compact JSON text, sha256)}: each section serialised once.

    Plain JSON or nothing: a NaN fails here, loudly, not in the database or a reader.
    """
    return {name: _section_body(section) for name, section in payload.sections().items()}


def _section_body(section: object) -> tuple[str, str]:
    """A section's compact JSON text (no NaN: it raises) and that text's sha256, its etag."""
    body = json.dumps(to_json(section), separators=(",", ":"), allow_nan=False)
    return body, hashlib.sha256(body.encode()).hexdigest()


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
