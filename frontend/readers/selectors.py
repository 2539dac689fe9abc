"""Reads for the reader pages: only the parts of a snapshot's payload that a page shows.

A payload at m = 100 algorithms weighs over a megabyte (pairwise p-values, the rank
matrix, within-dataset tables); a leaderboard needs a few kilobytes of it. The database
extracts those keys (``payload -> 'estimators'`` and so on), so a page never ships or
parses the rest, on PostgreSQL and SQLite alike; a ready snapshot never changes, so the
extract is cached by snapshot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Max, OuterRef, QuerySet, Subquery
from django.db.models.fields.json import KeyTransform

from estimation.models import ResultSnapshot
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import benchmark_list_visible

# The payload keys a leaderboard reads (see estimation/core/analysis.py), as paths.
BOARD_KEYS: dict[str, tuple[str, ...]] = {
    "input": ("input",),
    "params": ("params",),
    "recommended": ("recommended",),
    "estimators": ("estimators",),
    "win_rate": ("win_rate",),
    "mean_rank": ("mean_rank",),
    "significance_rank": ("significance_rank",),
    "friedman": ("friedman",),
    "nemenyi_letters": ("nemenyi", "letters"),
    "nemenyi_not_applicable": ("nemenyi", "not_applicable"),
    "wilcoxon_letters": ("wilcoxon", "letters"),
    "evaluation_best": ("evaluation", "best"),
    "notes": ("notes",),
}

HISTORY_LIMIT = 200
BOARD_CACHE_SECONDS = 7 * 24 * 3600

logger = logging.getLogger(__name__)


def _key(*path: str) -> KeyTransform:
    expression: Any = "payload"
    for key in path:
        expression = KeyTransform(key, expression)
    return expression


def _board_payload(values: dict[str, Any]) -> dict[str, Any]:
    """The extracted keys, re-nested as the payload has them (a partial payload)."""
    found = {key: values.get(f"board_{key}") for key in BOARD_KEYS}
    nemenyi: dict[str, Any] = {}
    if found["nemenyi_letters"]:
        nemenyi["letters"] = found["nemenyi_letters"]
    if found["nemenyi_not_applicable"]:
        nemenyi["not_applicable"] = found["nemenyi_not_applicable"]
    nested = ("nemenyi_letters", "nemenyi_not_applicable", "wilcoxon_letters", "evaluation_best")
    payload = {key: value for key, value in found.items() if key not in nested}
    payload["nemenyi"] = nemenyi
    payload["wilcoxon"] = (
        {"letters": found["wilcoxon_letters"]} if found["wilcoxon_letters"] else {}
    )
    payload["evaluation"] = {"best": found["evaluation_best"]}
    return payload


@dataclass(frozen=True)
class SnapshotView:
    """A snapshot's identity and status, with the partial payload a reader page needs."""

    version: int
    status: str
    stage: str
    progress: float
    error: str
    finished_at: datetime | None
    created_at: datetime
    engine_version: str
    fingerprint: str
    payload: dict[str, Any] | None

    @property
    def is_ready(self) -> bool:
        return self.status == ResultSnapshot.Status.READY


_IDENTITY = (
    "version",
    "status",
    "stage",
    "progress",
    "error",
    "finished_at",
    "created_at",
    "engine_version",
    "fingerprint",
)


def _cache_key(row: dict[str, Any]) -> str:
    finished = row["finished_at"].timestamp() if row["finished_at"] else 0
    return f"readers:board:{row['pk']}:{row['fingerprint']}:{finished}"


def _cached(key: str) -> dict[str, Any] | None:
    try:
        return cache.get(key)
    except Exception:  # the cache is an optimisation: a broken one must not break pages
        logger.warning("reader cache unavailable", exc_info=True)
        return None


def _remember(key: str, payload: dict[str, Any]) -> None:
    try:
        cache.set(key, payload, timeout=BOARD_CACHE_SECONDS)
    except Exception:
        logger.warning("reader cache unavailable", exc_info=True)


def _board_payload_of(row: dict[str, Any]) -> dict[str, Any]:
    """The partial payload of a ready snapshot, from the cache (it never changes once ready)
    or from the database: one ``payload -> key`` per key, each of which detoasts the whole
    payload in PostgreSQL (a few ms at m = 100), hence the cache."""
    key = _cache_key(row)
    payload = _cached(key)
    if payload is None:
        values = (
            ResultSnapshot.objects.filter(pk=row["pk"])
            .annotate(**{f"board_{name}": _key(*path) for name, path in BOARD_KEYS.items()})
            .values(*(f"board_{name}" for name in BOARD_KEYS))
            .get()
        )
        payload = _board_payload(values)
        _remember(key, payload)
    return payload


def _snapshot_views(snapshots: QuerySet[ResultSnapshot]) -> list[SnapshotView]:
    rows = snapshots.values("pk", *_IDENTITY)
    return [
        SnapshotView(
            **{field: row[field] for field in _IDENTITY},
            payload=_board_payload_of(row)
            if row["status"] == ResultSnapshot.Status.READY
            else None,
        )
        for row in rows
    ]


def snapshot_board_latest(*, benchmark: Benchmark, metric: Metric) -> SnapshotView | None:
    """The newest ready snapshot of a metric, with the leaderboard's part of its payload."""
    ready = ResultSnapshot.objects.filter(
        benchmark=benchmark, metric=metric, status=ResultSnapshot.Status.READY
    ).order_by("-version", "-id")[:1]
    found = _snapshot_views(ready)
    return found[0] if found else None


def snapshot_board_version(*, benchmark: Benchmark, metric: Metric, version: int) -> SnapshotView:
    """One version, whatever its status. Raises ``ResultSnapshot.DoesNotExist``."""
    found = _snapshot_views(
        ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric, version=version)
    )
    if not found:
        raise ResultSnapshot.DoesNotExist(f"no version {version}")
    return found[0]


@dataclass(frozen=True)
class HistoryEntry:
    version: int
    status: str
    stage: str
    progress: float
    error: str
    created_at: datetime
    finished_at: datetime | None
    estimator: str | None
    probabilities: dict[str, float | None] | None


def snapshot_history_rankings(*, benchmark: Benchmark, metric: Metric) -> list[HistoryEntry]:
    """Versions newest first (at most ``HISTORY_LIMIT``), with each ready one's headline
    probabilities (its recommended estimator's ``p``): one query for the list, one per
    distinct recommended estimator (nearly always one)."""
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric).order_by(
        "-version", "-id"
    )[:HISTORY_LIMIT]
    rows = list(
        snapshots.annotate(estimator=_key("recommended")).values(
            "pk",
            "version",
            "status",
            "stage",
            "progress",
            "error",
            "created_at",
            "finished_at",
            "estimator",
        )
    )
    ready_by_estimator: dict[str, list[int]] = {}
    for row in rows:
        if row["status"] == ResultSnapshot.Status.READY and row["estimator"]:
            ready_by_estimator.setdefault(row["estimator"], []).append(row["pk"])
    probabilities: dict[int, dict] = {}
    for estimator, ids in ready_by_estimator.items():
        probabilities.update(
            ResultSnapshot.objects.filter(pk__in=ids)
            .annotate(p=_key("estimators", estimator, "p"))
            .values_list("pk", "p")
        )
    return [
        HistoryEntry(
            version=row["version"],
            status=row["status"],
            stage=row["stage"],
            progress=row["progress"],
            error=row["error"],
            created_at=row["created_at"],
            finished_at=row["finished_at"],
            estimator=row["estimator"],
            probabilities=probabilities.get(row["pk"]),
        )
        for row in rows
    ]


def benchmark_list_for_readers(*, user, query: str = "") -> QuerySet[Benchmark]:
    """Listed benchmarks with their counts and ``last_update``: the newest ready snapshot."""
    newest = (
        ResultSnapshot.objects.filter(benchmark=OuterRef("pk"), status=ResultSnapshot.Status.READY)
        .order_by()
        .values("benchmark")
        .annotate(newest=Max("finished_at"))
        .values("newest")
    )
    return benchmark_list_visible(user=user, query=query).annotate(last_update=Subquery(newest))
