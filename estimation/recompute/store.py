"""Storing a version: its sections and ready status in one transaction, a failure
recorded on it, a repeat of a served version's results, and the sections' JSON."""

from __future__ import annotations

import hashlib
import json

from django.db import connection, transaction
from django.utils import timezone

from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import Board, SnapshotPayload, to_json
from estimation.latest_cache import latest_invalidate
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.recompute.commits import derived_atomic
from estimation.recompute.leases import LeaseLost
from leaderboard.models import Benchmark, Metric

ADVISOR_SECTION = "advisor"
BOARD_SECTION = "board"
PRACTICAL_SECTION = "practical"


def snapshot_fail(*, snapshot: ResultSnapshot, during: str, error: str) -> ResultSnapshot:
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


def load_failure_record(*, benchmark: Benchmark, metric: Metric, error: str) -> ResultSnapshot:
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


def snapshot_repeat(
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
    return snapshot_ready_save(
        snapshot=snapshot, bodies=section_bodies(payload), payload=payload, timings=timings or {}
    )


def snapshot_ready_save(
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


def section_bodies(payload: SnapshotPayload) -> dict[str, tuple[str, str]]:
    """{section name: (compact JSON text, sha256)}: each section serialised once.

    Plain JSON or nothing: a NaN fails here, loudly, not in the database or a reader.
    """
    return {name: section_body(section) for name, section in payload.sections().items()}


def section_body(section: object) -> tuple[str, str]:
    """A section's compact JSON text (no NaN: it raises) and that text's sha256, its etag."""
    body = json.dumps(to_json(section), separators=(",", ":"), allow_nan=False)
    return body, hashlib.sha256(body.encode()).hexdigest()
