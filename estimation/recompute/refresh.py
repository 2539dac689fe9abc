"""A run's pass over a benchmark: for each metric, read its input, decide the version
to write (:mod:`estimation.recompute.versions`), compute it and store it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.utils import timezone

from common.outages import is_database_outage
from estimation.core.analysis import ENGINE_VERSION, AnalysisSettings, analyze
from estimation.core.contract import SnapshotPayload
from estimation.core.table import ResultTable
from estimation.latest_cache import latest_invalidate
from estimation.models import ResultSnapshot
from estimation.recompute.commits import derived_atomic
from estimation.recompute.inputs import metric_input_read
from estimation.recompute.leases import LeaseHeartbeat, LeaseLost, lease_renew
from estimation.recompute.store import (
    ADVISOR_SECTION,
    load_failure_record,
    section_bodies,
    snapshot_fail,
    snapshot_ready_save,
    snapshot_repeat,
)
from estimation.recompute.uncertainty import snapshot_advisor_store, snapshot_uncertainty_store
from estimation.recompute.versions import Step, next_version
from estimation.tables import NotRanked, analysis_settings_for, fingerprint, not_ranked_noted
from leaderboard.models import Benchmark, Metric

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Run:
    """What every metric of a pass shares (see :func:`snapshot_refresh`)."""

    owner: str
    lease: LeaseHeartbeat | None
    superseded: Callable[[], bool] | None
    clock: Callable[[], float]
    complete: bool


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
    run = _Run(owner=owner, lease=lease, superseded=superseded, clock=clock, complete=complete)
    created = []
    for metric in benchmark.metrics.all():
        snapshot = _snapshot_compute(
            benchmark=benchmark,
            metric=metric,
            settings=replace(settings, rope=metric.rope),  # the ROPE is the metric's
            run=run,
        )
        if snapshot is not None:
            created.append(snapshot)
    return created


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
    *, benchmark: Benchmark, metric: Metric, settings: AnalysisSettings, run: _Run
) -> ResultSnapshot | None:
    """Everything from reading to storing happens inside the failure path: whatever
    raises is recorded on a version (see :class:`ResultSnapshot.FailedDuring`).
    ``run.clock`` paces the progress writes only; the timings stored are wall seconds."""
    started = time.perf_counter()
    try:
        submissions, table, not_ranked = metric_input_read(benchmark=benchmark, metric=metric)
        key = fingerprint(table, settings, not_ranked=not_ranked)
    except Exception as exc:
        if is_database_outage(exc):
            raise  # not the input's fault: the task retries once the database answers
        logger.exception("reading %s / %s failed", benchmark.slug, metric.name)
        return load_failure_record(benchmark=benchmark, metric=metric, error=_error_text(exc))
    empty = table.n_datasets == 0 or table.n_algorithms == 0
    step, snapshot = _version_write(
        benchmark=benchmark, metric=metric, key=key, empty=empty, submissions=submissions
    )
    if snapshot is None or step is Step.FAILED:
        return snapshot
    if step is not Step.COMPUTE:  # the input served (FINISH), or served again (REPEAT)
        if run.complete:
            _served_finish(snapshot=snapshot, table=table, settings=settings, run=run)
        return snapshot if step is Step.REPEAT else None
    return _new_version_compute(
        snapshot=snapshot,
        benchmark=benchmark,
        metric=metric,
        table=table,
        settings=settings,
        not_ranked=not_ranked,
        run=run,
        started=started,
    )


def _version_write(
    *, benchmark: Benchmark, metric: Metric, key: str, empty: bool, submissions: list[int]
) -> tuple[Step, ResultSnapshot | None]:
    """Decide the next version of input ``key`` (:func:`next_version`) and write its row
    (the served version itself for FINISH, nothing for NOTHING). Under the benchmark's
    row lock: it serialises version numbers between concurrent writers."""
    with derived_atomic():
        slug, metric_names = _benchmark_lock(benchmark.pk)
        newest, ready, failed = _versions_known(benchmark=benchmark, metric=metric, key=key)
        decided = next_version(key=key, empty=empty, newest=newest, ready=ready, failed=failed)
        if decided.step is Step.NOTHING:
            return decided.step, None
        if decided.step is Step.FINISH:
            return decided.step, ready
        if decided.step is Step.REPEAT:
            assert ready is not None  # a repeat is of the served version
            repeated = snapshot_repeat(
                source=ready, version=decided.version, submissions=submissions
            )
            return decided.step, repeated
        fields: dict[str, object] = {
            "benchmark": benchmark,
            "metric": metric,
            "version": decided.version,
            "fingerprint": key,
            "engine_version": ENGINE_VERSION,
            "submissions": submissions,
        }
        if decided.step is Step.FAILED:
            # Readers are told this newest input fails, without running it again.
            fields.update(
                status=ResultSnapshot.Status.FAILED,
                failed_during=ResultSnapshot.FailedDuring.ANALYSIS,
                error=decided.error,
                finished_at=timezone.now(),
            )
        else:
            fields["stage"] = "loading"
        return decided.step, _snapshot_insert(slug=slug, metric_names=metric_names, **fields)


def _served_finish(
    *, snapshot: ResultSnapshot, table: ResultTable, settings: AnalysisSettings, run: _Run
) -> None:
    """A worker that stopped between serving a snapshot and completing its board or
    storing its advisor (or gave way to a newer input since undone) left them out: this
    run adds them (a no-op when they are there), to a repeat as well."""
    if snapshot_uncertainty_store(
        snapshot=snapshot, table=table, settings=settings, stop=run.superseded
    ):
        snapshot_advisor_store(
            snapshot=snapshot, table=table, settings=settings, stop=run.superseded
        )


def _progress_report(
    *, snapshot: ResultSnapshot, benchmark_id: int, run: _Run
) -> Callable[[str, float], None]:
    """The analysis's progress callback: writes a stage at the pace of
    :class:`ProgressPace`, and raises :class:`LeaseLost` once the version is not ours."""
    pace = ProgressPace(run.clock)

    def report(stage: str, fraction: float) -> None:
        if run.lease is not None and run.lease.lost.is_set():
            raise LeaseLost(run.owner)
        if not pace.due():
            # A stage this soon after the last one written is not worth a round trip
            # (m = 20 reports five in 60 ms): readers see "loading" or the stage before.
            # Whether the version is still ours is checked when it is stored.
            return
        still_ours = ResultSnapshot.objects.filter(
            pk=snapshot.pk, status=ResultSnapshot.Status.COMPUTING
        ).update(stage=stage, progress=fraction)
        if not still_ours:
            raise LeaseLost(run.owner)
        if (
            run.owner
            and run.lease is None
            and not lease_renew(benchmark_id=benchmark_id, owner=run.owner)
        ):
            raise LeaseLost(run.owner)

    return report


def _new_version_compute(
    *,
    snapshot: ResultSnapshot,
    benchmark: Benchmark,
    metric: Metric,
    table: ResultTable,
    settings: AnalysisSettings,
    not_ranked: tuple[NotRanked, ...],
    run: _Run,
    started: float,
) -> ResultSnapshot:
    """Analyse the new version's input, store it ready, then complete it (unless the
    completion is left to its task). A failure is recorded on the version; a lost lease
    leaves it to the run that took over."""
    loaded = time.perf_counter()
    report = _progress_report(snapshot=snapshot, benchmark_id=benchmark.pk, run=run)
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
        if is_database_outage(exc):
            raise  # a progress write lost the database: the task retries, not a failed analysis
        logger.exception("analysis of %s / %s failed", benchmark.slug, metric.name)
        return snapshot_fail(
            snapshot=snapshot, during=ResultSnapshot.FailedDuring.ANALYSIS, error=_error_text(exc)
        )
    timings = {
        "load_s": loaded - started,
        "analyse_s": time.perf_counter() - loaded,
        "stages": analysis.timings,
    }
    ready = _ready_store(
        snapshot=snapshot,
        payload=payload,
        sections=sections,
        timings=timings,
        run=run,
        name=f"{benchmark.slug} / {metric.name}",
    )
    if ready.status != ResultSnapshot.Status.READY or not run.complete:
        return ready
    if snapshot_uncertainty_store(
        snapshot=ready, table=table, settings=settings, board=payload.board, stop=run.superseded
    ):
        snapshot_advisor_store(snapshot=ready, table=table, settings=settings, stop=run.superseded)
    return ready


def _ready_store(
    *,
    snapshot: ResultSnapshot,
    payload: SnapshotPayload,
    sections: dict[str, tuple[str, str]],
    timings: dict,
    run: _Run,
    name: str,
) -> ResultSnapshot:
    """The analysed version stored ready, or recorded as failed to store."""
    try:
        return snapshot_ready_save(
            snapshot=snapshot, bodies=sections, payload=payload, timings=timings, owner=run.owner
        )
    except LeaseLost:
        raise
    except Exception as exc:
        if is_database_outage(exc):
            raise  # the task retries once the database answers
        logger.exception("storing %s failed", name)
        return snapshot_fail(
            snapshot=snapshot, during=ResultSnapshot.FailedDuring.STORE, error=_error_text(exc)
        )
