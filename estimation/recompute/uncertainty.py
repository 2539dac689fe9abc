"""Completing a served version: its board's bootstrap and evaluation (the uncertainty),
then its advisor. A version is served (ready) before these; a run adds them at once
(the embedded default) or leaves them to the completion task (:func:`snapshots_complete`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace

from django.utils import timezone

from common.outages import is_database_outage
from estimation.core.advisor import AdvisorStopped
from estimation.core.analysis import (
    UNCERTAINTY_GAVE_WAY,
    AnalysisSettings,
    UncertaintyStopped,
    analyze_advisor,
    analyze_uncertainty,
    uncertainty_deferred,
    uncertainty_failed,
    uncertainty_pending,
)
from estimation.core.contract import Board, NotApplicable
from estimation.core.table import ResultTable
from estimation.latest_cache import latest_invalidate
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.recompute.commits import derived_atomic
from estimation.recompute.inputs import metric_input_read, revision_newer_than
from estimation.recompute.store import (
    ADVISOR_SECTION,
    BOARD_SECTION,
    PRACTICAL_SECTION,
    section_body,
)
from estimation.selectors import snapshot_latest, snapshot_section, snapshot_section_etag
from estimation.tables import analysis_settings_for, fingerprint
from leaderboard.models import Benchmark

logger = logging.getLogger(__name__)


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
    (False: ``stop`` said a newer input waits, and the board was left as it was; or the
    version is gone, pruned by retention meanwhile: nothing to complete).

    Idempotent: a complete board stays, and the write only replaces the deferred board it
    read (two runs completing it write the same bytes). The new board's etag, the
    snapshot's ``finished_at`` (in :func:`selectors.snapshots_etag` and Last-Modified) and
    the latest-snapshot cache all change in one transaction, so pollers refetch. A failure
    is stored as not applicable with its reason, and logged. ``board`` is the deferred
    board when the caller has it (else it is read back).
    """
    etag = snapshot_section_etag(snapshot_id=snapshot.pk, name=BOARD_SECTION)
    if etag is None:
        return False  # deleted meanwhile (retention): nothing to complete
    if board is None:
        board = snapshot_section(snapshot_id=snapshot.pk, name=BOARD_SECTION, etag=etag)
        if board is None:
            return False  # deleted between the two reads
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
        if is_database_outage(exc):
            raise  # ``stop`` lost the database: the task retries, the spread is not "failed"
        logger.exception("completing the board of snapshot %s failed", snapshot.pk)
        complete = uncertainty_failed(
            board, f"the bootstrap and evaluation failed: {type(exc).__name__}: {exc}"
        )
    return _board_replace(snapshot, etag, complete, stages, time.perf_counter() - started)


def _board_replace(
    snapshot: ResultSnapshot,
    etag: str,
    board: Board,
    stages: dict[str, float] | None = None,
    seconds: float | None = None,
) -> bool:
    """Store ``board`` as ``snapshot``'s board if its stored board is still ``etag`` (and
    differs from it); its etag, ``finished_at`` and the latest cache move together.
    Returns whether the version still exists (retention may prune a superseded version
    while its completion runs)."""
    new_body, new_etag = section_body(board)
    if new_etag == etag:
        return True  # nothing changes: no validator moves
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
        return True
    # Another run wrote it first (its timings stand), or the version was pruned.
    stored = ResultSnapshot.objects.filter(pk=snapshot.pk).values("finished_at", "timings")
    row = stored.first()
    if row is None:
        logger.info("snapshot %s was pruned while its board was completed", snapshot.pk)
        return False
    snapshot.finished_at, snapshot.timings = row["finished_at"], row["timings"]
    return True


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
    # the served practical section: its folds power is the advisor's for the same pair
    practical = snapshot_section(snapshot_id=snapshot.pk, name=PRACTICAL_SECTION)
    section: object
    try:
        section = analyze_advisor(table, settings, stop=stop, practical=practical)
    except AdvisorStopped:
        logger.info("the advisor of snapshot %s gave way to a newer input", snapshot.pk)
        return
    except Exception as exc:
        if is_database_outage(exc):
            raise  # ``stop`` lost the database: the task retries, the advisor is not "failed"
        logger.exception("the advisor of snapshot %s failed", snapshot.pk)
        section = NotApplicable(f"the advisor failed: {type(exc).__name__}: {exc}")
    body, etag = section_body(section)
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
    superseded = revision_newer_than(benchmark_id, state.requested_revision)
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
        _, table, not_ranked = metric_input_read(benchmark=benchmark, metric=metric)
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
