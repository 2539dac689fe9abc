"""The results app's writes. The recompute pipeline itself (database -> arrays -> core
-> snapshot, its runs and leases) is the package :mod:`estimation.recompute`; its entry
points are named here too, so that callers outside it need one import path.
"""

from __future__ import annotations

from django.utils import timezone

from estimation.models import ResultSnapshot
from estimation.recompute.refresh import PROGRESS_SECONDS, ProgressPace, snapshot_refresh
from estimation.recompute.runs import (
    recompute_here,
    recompute_outdated_request,
    recompute_run,
    recompute_stale_enqueue,
    snapshot_outdated_benchmark_ids,
    snapshots_orphaned_abandon,
)
from estimation.recompute.store import (
    ADVISOR_SECTION,
    BOARD_SECTION,
    section_bodies,
    snapshot_ready_store,
)
from estimation.recompute.uncertainty import (
    snapshot_advisor_store,
    snapshot_uncertainty_store,
    snapshots_complete,
)
from estimation.tables import analysis_settings_for, result_table_build

__all__ = [
    "ADVISOR_SECTION",
    "BOARD_SECTION",
    "PROGRESS_SECONDS",
    "ProgressPace",
    "analysis_settings_for",
    "recompute_here",
    "recompute_outdated_request",
    "recompute_run",
    "recompute_stale_enqueue",
    "result_table_build",
    "section_bodies",
    "snapshot_advisor_store",
    "snapshot_cite",
    "snapshot_outdated_benchmark_ids",
    "snapshot_ready_store",
    "snapshot_refresh",
    "snapshot_uncertainty_store",
    "snapshots_complete",
    "snapshots_orphaned_abandon",
]


def snapshot_cite(*, benchmark_id: int, metric_id: int, version: int) -> None:
    """A reader asked for this ready version's permalink, an export or its version URL:
    it may be cited from now on, so retention keeps it (estimation/recompute/retention.py).
    One UPDATE that matches nothing once the version is marked."""
    ResultSnapshot.objects.filter(
        benchmark_id=benchmark_id,
        metric_id=metric_id,
        version=version,
        status=ResultSnapshot.Status.READY,
        cited_at__isnull=True,
    ).update(cited_at=timezone.now())
