"""Reads for the reader pages: a snapshot's identity and its typed board section.

A snapshot's sections are stored apart (estimation/core/contract/); a leaderboard reads
the O(m) board only, never the pairwise, rank-matrix or within-dataset sections, and a
board is parsed once per process (``estimation.selectors.snapshot_section``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max, OuterRef, QuerySet, Subquery

from config.cache import pages_cache
from estimation.core.contract import SCHEMA_VERSION, Board
from estimation.latest_cache import benchmark_generation
from estimation.models import ResultSnapshot
from estimation.selectors import section_etag, snapshot_missing, snapshot_section
from frontend.readers.dataset_names import is_bare_id
from frontend.readers.table_filters import AlgorithmFacts
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import algorithms_public, benchmark_list_visible

HISTORY_LIMIT = 200


@dataclass(frozen=True)
class SnapshotView:
    """A snapshot's identity and status, with its board when it is ready."""

    version: int
    status: str
    stage: str
    progress: float
    error: str
    finished_at: datetime | None
    created_at: datetime
    engine_version: str
    fingerprint: str
    board: Board | None
    snapshot_id: int
    cited_at: datetime | None = None

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
    "cited_at",
)


def _board_of(row: dict) -> Board | None:
    if row["status"] != ResultSnapshot.Status.READY or row["schema_version"] != SCHEMA_VERSION:
        return None
    return snapshot_section(snapshot_id=row["pk"], name="board", etag=row["board_etag"])


def _snapshot_views(snapshots: QuerySet[ResultSnapshot]) -> list[SnapshotView]:
    rows = snapshots.annotate(board_etag=section_etag("board")).values(
        "pk", "schema_version", "board_etag", *_IDENTITY
    )
    return [
        SnapshotView(
            **{field: row[field] for field in _IDENTITY},
            board=_board_of(row),
            snapshot_id=row["pk"],
        )
        for row in rows
    ]


def snapshot_board_latest(*, benchmark: Benchmark, metric: Metric) -> SnapshotView | None:
    """The newest ready snapshot of a metric (of the current contract), with its board."""
    ready = ResultSnapshot.objects.filter(
        benchmark=benchmark,
        metric=metric,
        status=ResultSnapshot.Status.READY,
        schema_version=SCHEMA_VERSION,
    ).order_by("-version", "-id")[:1]
    found = _snapshot_views(ready)
    return found[0] if found else None


def snapshot_board_version(
    *, benchmark: Benchmark, metric: Metric, version: int, include_failed: bool = True
) -> SnapshotView:
    """One version (a failed one only if included). Raises ``ResultSnapshot.DoesNotExist``
    (``SnapshotPruned`` for a version retention removed)."""
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric, version=version)
    if not include_failed:
        snapshots = snapshots.exclude(status=ResultSnapshot.Status.FAILED)
    found = _snapshot_views(snapshots)
    if not found:
        raise snapshot_missing(benchmark_id=benchmark.pk, metric_id=metric.pk, version=version)
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


def snapshot_history_rankings(
    *, benchmark: Benchmark, metric: Metric, include_failed: bool = True
) -> list[HistoryEntry]:
    """Versions newest first (at most ``HISTORY_LIMIT``), with each readable ready one's
    headline probabilities (its recommended estimator's ``p``) from its board. Failed
    versions only with ``include_failed`` (maintainers; their page shows the error)."""
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
    if not include_failed:
        snapshots = snapshots.exclude(status=ResultSnapshot.Status.FAILED)
    rows = list(
        snapshots.order_by("-version", "-id")
        .annotate(board_etag=section_etag("board"))[:HISTORY_LIMIT]
        .values(
            "pk",
            "board_etag",
            "schema_version",
            "version",
            "status",
            "stage",
            "progress",
            "error",
            "created_at",
            "finished_at",
        )
    )
    entries = []
    for row in rows:
        board = _board_of(row)
        estimator = board.recommended if board is not None else None
        entries.append(
            HistoryEntry(
                version=row["version"],
                status=row["status"],
                stage=row["stage"],
                progress=row["progress"],
                error=row["error"],
                created_at=row["created_at"],
                finished_at=row["finished_at"],
                estimator=estimator,
                probabilities=board.column(board.estimator(board.recommended).p)
                if board is not None
                else None,
            )
        )
    return entries


def benchmark_list_for_readers(*, user, query: str = "") -> QuerySet[Benchmark]:
    """Listed benchmarks with their counts, ``last_update`` (the newest ready snapshot)
    and ``leader`` (the first algorithm of the primary metric's newest ready board)."""
    newest = (
        ResultSnapshot.objects.filter(
            benchmark=OuterRef("pk"),
            status=ResultSnapshot.Status.READY,
            schema_version=SCHEMA_VERSION,
        )
        .order_by()
        .values("benchmark")
        .annotate(newest=Max("finished_at"))
        .values("newest")
    )
    # The primary metric's newest ready version, as the board shows it first; its leader
    # was stored with it (ResultSnapshot.leader): no payload is read here.
    primary = (
        Metric.objects.filter(benchmark=OuterRef(OuterRef("pk")))
        .order_by("-is_primary", "name")
        .values("pk")[:1]
    )
    leader = (
        ResultSnapshot.objects.filter(
            benchmark=OuterRef("pk"),
            metric=Subquery(primary),
            status=ResultSnapshot.Status.READY,
            schema_version=SCHEMA_VERSION,
        )
        .order_by("-version")
        .values("leader")[:1]
    )
    return benchmark_list_visible(user=user, query=query).annotate(
        last_update=Subquery(newest), leader=Subquery(leader)
    )


def algorithm_facts(
    *, benchmark: Benchmark, version: int | None = None
) -> dict[str, AlgorithmFacts]:
    """The public metadata of the benchmark's algorithms (those with an accepted
    submission), for the reader's filters and metadata columns.

    Cached per results version shown (``version``) and the benchmark's generation token,
    which an edit of an algorithm replaces (estimation/latest_cache.py), so that a page
    costs no query for it until then; a benchmark made afresh (a new test database with
    the same primary keys) starts a generation of its own too.
    """
    key = None
    try:
        if version is not None:
            generation = benchmark_generation(slug=benchmark.slug)
            # v2: the facts gained precision and open_weights (an older pickle lacks them)
            key = f"podium:algorithm-facts:v2:{benchmark.pk}:{version}:{generation}"
            cached = pages_cache.get(key)
            if cached is not None:
                return cached
    except Exception:  # the cache is only a cache (Redis down: read the database)
        key = None
    fields = [f.name for f in dataclasses.fields(AlgorithmFacts)]
    rows = algorithms_public(benchmark.algorithms.all()).values("name", *fields)
    facts = {row["name"]: AlgorithmFacts(**{f: row[f] for f in fields}) for row in rows}
    if key is not None:
        try:
            pages_cache.set(key, facts, ALGORITHM_FACTS_SECONDS)
        except Exception:
            pass
    return facts


ALGORITHM_FACTS_SECONDS = 600
# Bare-id datasets whose descriptions are read (the chooser lists at most 300 datasets).
MAX_DESCRIBED = 1000


def dataset_descriptions(
    *, benchmark: Benchmark, names: Sequence[str], version: int | None = None
) -> dict[str, str]:
    """The descriptions of the datasets among ``names`` that are bare ids, where there is
    one: what their display names read (:mod:`frontend.readers.dataset_names`); no query
    when no name is a bare id. Cached per results version like :func:`algorithm_facts`
    (a maintainer's edit shows within ``ALGORITHM_FACTS_SECONDS``)."""
    bare = [name for name in names if is_bare_id(name)]
    if not bare:
        return {}
    key = f"podium:dataset-descriptions:{benchmark.pk}:{version}" if version is not None else None
    if key is not None:
        try:
            cached = pages_cache.get(key)
        except Exception:  # the cache is only a cache
            cached = None
        if cached is not None:
            return cached
    found = dict(
        benchmark.datasets.filter(name__in=bare[:MAX_DESCRIBED])
        .exclude(description="")
        .values_list("name", "description")
    )
    if key is not None:
        try:
            pages_cache.set(key, found, ALGORITHM_FACTS_SECONDS)
        except Exception:
            pass
    return found
