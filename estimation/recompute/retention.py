"""Retention of result versions: keep what a reader can cite, prune the rest.

Every recompute writes a version, so a busy benchmark writes many (206 in two minutes
of load). A version is **kept** when any of these holds:

1. it is computing, or it is the newest version of its metric (whatever its status:
   a failed newest version is what the pages report), or the latest ready one (served);
2. it was cited: its permalink page, an export of it (site or API) or its version URL in
   the API (``snapshots/<version>/``) was requested (``cited_at``, set on first request);
3. it is ready and was served for at least ``SNAPSHOT_COALESCE_SECONDS`` (600 s): from
   its finish until the next ready version's, the live page showed its permalink, so a
   reader may have copied it.

Everything else is **pruned** (the row and its sections):

- a ready version superseded within the coalescing window that nobody cited (a burst
  of changes leaves the last version of the burst, not every step of it);
- a failed version that is no longer the newest, once it is older than
  ``SNAPSHOT_FAILED_KEEP_DAYS`` (7 days; until then maintainers see it in the history);
- an abandoned version (its worker stopped, or the database went away under it: the
  next run redid the work) once a newer version exists and it is older than
  ``SNAPSHOT_ABANDONED_KEEP_HOURS`` (24 hours): it never held results, but until then
  the maintainers' page and the status page show that a run was lost (issue 41: the
  versions abandoned in a soak were superseded, and pruned, before anyone saw them).

A pruned version's number is not reused, and it is remembered (``PrunedSnapshot``): its
URLs answer 410 Gone and name the latest version (a number never used answers 404).
``python manage.py
prune_snapshots [--dry-run]`` applies the policy, and so does the beat task
``estimation.prune_snapshots`` every ``PODIUM_PRUNE_SECONDS`` (5 minutes).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.db.models.functions import Length
from django.utils import timezone

from estimation.models import PrunedSnapshot, ResultSnapshot, SnapshotSection


@dataclass(frozen=True)
class PruneResult:
    """What a prune removed (or, in a dry run, would remove)."""

    snapshot_ids: tuple[int, ...]
    superseded: int  # ready versions superseded within the window, never cited
    failed: int  # failed versions no longer the newest: past their keep time, or abandoned
    section_bytes: int  # size of their stored sections
    dry_run: bool


def _coalesce_window() -> timedelta:
    return timedelta(seconds=settings.SNAPSHOT_COALESCE_SECONDS)


def _failed_keep() -> timedelta:
    return timedelta(days=settings.SNAPSHOT_FAILED_KEEP_DAYS)


def _abandoned_keep() -> timedelta:
    return timedelta(hours=settings.SNAPSHOT_ABANDONED_KEEP_HOURS)


def _prunable(rows: list[Mapping[str, Any]], *, now: datetime) -> tuple[list[int], list[int]]:
    """One metric's versions (oldest first) -> (superseded ready ids, old failed ids)."""
    if not rows:
        return [], []
    newest = rows[-1]["pk"]
    ready = [row for row in rows if row["status"] == ResultSnapshot.Status.READY]
    served = ready[-1]["pk"] if ready else None
    superseded, failed = [], []
    for row, successor in itertools.pairwise(ready):
        if row["pk"] in (newest, served) or row["cited_at"] is not None:
            continue
        start, end = row["finished_at"], successor["finished_at"]
        if start is not None and end is not None and end - start < _coalesce_window():
            superseded.append(row["pk"])
    for row in rows:
        if row["status"] != ResultSnapshot.Status.FAILED or row["pk"] == newest:
            continue
        finished = row["finished_at"] or row["created_at"]
        abandoned = row["failed_during"] == ResultSnapshot.FailedDuring.ABANDONED
        keep = _abandoned_keep() if abandoned else _failed_keep()
        if now - finished >= keep:
            failed.append(row["pk"])
    return superseded, failed


def snapshots_prune(*, dry_run: bool = False, now: datetime | None = None) -> PruneResult:
    """Apply the retention policy of this module to every benchmark's versions."""
    now = now or timezone.now()
    rows = ResultSnapshot.objects.order_by("benchmark_id", "metric_id", "version").values(
        "pk",
        "benchmark_id",
        "metric_id",
        "status",
        "failed_during",
        "finished_at",
        "created_at",
        "cited_at",
    )
    superseded: list[int] = []
    failed: list[int] = []
    group: list[Mapping[str, Any]] = []
    key = None
    for row in rows.iterator(chunk_size=5000):
        if (row["benchmark_id"], row["metric_id"]) != key:
            more = _prunable(group, now=now)
            superseded += more[0]
            failed += more[1]
            group, key = [], (row["benchmark_id"], row["metric_id"])
        group.append(row)
    more = _prunable(group, now=now)
    superseded += more[0]
    failed += more[1]
    ids = tuple(sorted(superseded + failed))
    size = (
        SnapshotSection.objects.filter(snapshot_id__in=ids).aggregate(n=Sum(Length("body")))["n"]
        or 0
    )
    if not dry_run and ids:
        _delete_remembering(ids)
    return PruneResult(
        snapshot_ids=ids,
        superseded=len(superseded),
        failed=len(failed),
        section_bytes=size,
        dry_run=dry_run,
    )


@transaction.atomic
def _delete_remembering(ids: tuple[int, ...]) -> None:
    """Delete these versions and leave a tombstone for each, in one transaction."""
    # Checked again under lock: a version cited meanwhile stays (snapshot_cite waits).
    doomed = list(
        ResultSnapshot.objects.select_for_update()
        .filter(pk__in=ids, cited_at__isnull=True)
        .exclude(status=ResultSnapshot.Status.COMPUTING)
        .values_list("pk", "benchmark_id", "metric_id", "version")
    )
    PrunedSnapshot.objects.bulk_create(
        [
            PrunedSnapshot(benchmark_id=benchmark_id, metric_id=metric_id, version=version)
            for _, benchmark_id, metric_id, version in doomed
        ],
        batch_size=5000,
        ignore_conflicts=True,
    )
    ResultSnapshot.objects.filter(pk__in=[row[0] for row in doomed]).delete()
