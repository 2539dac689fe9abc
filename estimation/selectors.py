"""Reads of result snapshots and of their sections (estimation/core/contract/)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery

from common.errors import Gone
from config.cache import pages_cache
from estimation.activity import lease_alive
from estimation.core.contract import (
    SCHEMA_VERSION,
    SECTION_NAMES,
    Board,
    choose_algorithms,
    restrict,
    section_from_json,
    section_to_json,
)
from estimation.models import PrunedSnapshot, RecomputeState, ResultSnapshot, SnapshotSection
from leaderboard.models import Benchmark, Metric, Submission

# Parsed sections by etag (a section never changes once written): a page or an API call
# parses a board once per process, not once per request.
PARSED_CACHE_SIZE = 64
_parsed: OrderedDict[tuple[str, str], Any] = OrderedDict()
_parsed_lock = threading.Lock()


def clear_parsed_sections() -> None:
    """Forget the parsed sections (tests that count queries start cold)."""
    with _parsed_lock:
        _parsed.clear()


def _servable(snapshots: QuerySet[ResultSnapshot]) -> QuerySet[ResultSnapshot]:
    """Ready snapshots whose sections this code can read (older ones await a recompute)."""
    return snapshots.filter(status=ResultSnapshot.Status.READY, schema_version=SCHEMA_VERSION)


def snapshot_latest(*, benchmark, metric=None, ready_only: bool = True) -> ResultSnapshot | None:
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark)
    if metric is not None:
        snapshots = snapshots.filter(metric=metric)
    if ready_only:
        snapshots = _servable(snapshots)
    return snapshots.select_related("benchmark", "metric").order_by("-version", "-id").first()


def _failed_hidden(snapshots: QuerySet[ResultSnapshot], include_failed: bool):
    """Failed versions are for maintainers (with their error); readers never see them."""
    return snapshots if include_failed else snapshots.exclude(status=ResultSnapshot.Status.FAILED)


def snapshot_history(
    *, benchmark: Benchmark, metric: Metric, include_failed: bool = True
) -> QuerySet[ResultSnapshot]:
    """Every snapshot of a benchmark's metric, newest first (sections are stored apart)."""
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
    return (
        _failed_hidden(snapshots, include_failed)
        .select_related("benchmark", "metric")
        .order_by("-version", "-id")
    )


class SnapshotPruned(ResultSnapshot.DoesNotExist, Gone):
    """The version was removed by retention (estimation/recompute/retention.py): readers are told
    so (HTTP 410 Gone) and pointed to the latest version, not told it never existed."""

    def __init__(self, *, version: int, latest: int | None):
        self.version = version
        self.latest = latest
        super().__init__(self.reason)

    @property
    def reason(self) -> str:
        now = (
            f"the latest is version {self.latest}"
            if self.latest is not None
            else "no version is ready now"
        )
        return (
            f"Version {self.version} of this benchmark's results was removed (older uncited "
            f"versions are pruned); {now}."
        )


def snapshot_missing(*, benchmark_id: int, metric_id: int, version: int) -> Exception:
    """What to raise for a version not found: ``SnapshotPruned`` when retention removed
    it, else ``ResultSnapshot.DoesNotExist`` (never existed, or hidden from this reader).
    Every reader of a version by number (API, pages, exports) goes through here."""
    pruned = PrunedSnapshot.objects.filter(
        benchmark_id=benchmark_id, metric_id=metric_id, version=version
    ).exists()
    if not pruned:
        return ResultSnapshot.DoesNotExist(f"no version {version}")
    latest = (
        _servable(ResultSnapshot.objects.filter(benchmark_id=benchmark_id, metric_id=metric_id))
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )
    return SnapshotPruned(version=version, latest=latest)


def snapshot_get(
    *, benchmark: Benchmark, metric: Metric, version: int, include_failed: bool = True
) -> ResultSnapshot:
    """Raises ``ResultSnapshot.DoesNotExist`` (also for a failed one, unless included),
    ``SnapshotPruned`` (a subclass) for a version retention removed."""
    snapshots = _failed_hidden(ResultSnapshot.objects.all(), include_failed)
    try:
        return snapshots.select_related("benchmark", "metric").get(
            benchmark=benchmark, metric=metric, version=version
        )
    except ResultSnapshot.DoesNotExist:
        raise snapshot_missing(
            benchmark_id=benchmark.pk, metric_id=metric.pk, version=version
        ) from None


def snapshot_computing(
    *,
    benchmark: Benchmark,
    metric: Metric,
    shown_version: int | None = None,
    now: datetime | None = None,
) -> ResultSnapshot | None:
    """The newest snapshot a live run is computing, if any (its stage and progress): a
    version whose run died is not shown computing, before the sweep marks it abandoned.

    With ``shown_version``, only one that will replace that version: a computation
    older than the version shown is not news to its reader. The one rule for the API
    and the pages.
    """
    computing = (
        ResultSnapshot.objects.filter(
            benchmark=benchmark, metric=metric, status=ResultSnapshot.Status.COMPUTING
        )
        .filter(lease_alive(now=now))  # a row whose run died is not computing
        .order_by("-version", "-id")
        .first()
    )
    if computing is not None and shown_version is not None and computing.version < shown_version:
        return None
    return computing


def snapshot_is_servable(snapshot: ResultSnapshot) -> bool:
    return (
        snapshot.status == ResultSnapshot.Status.READY and snapshot.schema_version == SCHEMA_VERSION
    )


def snapshot_section_stored(*, snapshot_id: int, name: str) -> SnapshotSection | None:
    """A section's stored JSON text and etag, as written (None: not stored)."""
    if name not in SECTION_NAMES:
        raise ValueError(f"section must be one of {list(SECTION_NAMES)}, got {name!r}")
    return SnapshotSection.objects.filter(snapshot_id=snapshot_id, name=name).first()


def snapshot_section_etag(*, snapshot_id: int, name: str) -> str | None:
    """A stored section's etag alone (a conditional GET needs nothing else)."""
    return (
        SnapshotSection.objects.filter(snapshot_id=snapshot_id, name=name)
        .values_list("etag", flat=True)
        .first()
    )


def section_etag(name: str) -> Subquery:
    """The etag of a snapshot's section ``name``, to annotate a snapshot query with."""
    return Subquery(
        SnapshotSection.objects.filter(snapshot=OuterRef("pk"), name=name).values("etag")[:1]
    )


def snapshot_section(*, snapshot_id: int, name: str, etag: str | None = None) -> Any:
    """The typed section (a contract dataclass or NotApplicable); None when not stored.

    Give ``etag`` when the query that found the snapshot read it (:func:`section_etag`):
    a section parsed before is then returned without touching the database.
    """
    if etag is None:
        etag = (
            SnapshotSection.objects.filter(snapshot_id=snapshot_id, name=name)
            .values_list("etag", flat=True)
            .first()
        )
    if etag is None:
        return None
    key = (name, etag)
    with _parsed_lock:
        if key in _parsed:
            _parsed.move_to_end(key)
            return _parsed[key]
    stored = snapshot_section_stored(snapshot_id=snapshot_id, name=name)
    if stored is None:
        return None
    section = section_from_json(name, json.loads(stored.body))
    with _parsed_lock:
        _parsed[key] = section
        while len(_parsed) > PARSED_CACHE_SIZE:
            _parsed.popitem(last=False)
    return section


SLICE_CACHE_SECONDS = 86400  # keyed by the section's etag: never stale


def snapshot_section_slice(*, snapshot_id: int, name: str, algorithms: Sequence[str]) -> Any:
    """The typed section restricted to ``algorithms`` (:func:`contract.restrict`); None
    when not stored.

    For a page that draws a few algorithms of a large pairwise section: the slice is
    cut once per section and kept in the shared cache (by the section's etag), so the
    page's process neither parses nor keeps the whole section (at m = 2000 a typed
    p-value matrix is two million Python floats). The whole section is parsed only to
    cut a slice not cut before, and not kept.
    """
    etag = snapshot_section_etag(snapshot_id=snapshot_id, name=name)
    if etag is None:
        return None
    chosen = sorted(set(algorithms))
    digest = hashlib.sha256("\x1f".join(chosen).encode()).hexdigest()[:32]
    key = f"section-slice:{name}:{etag}:{digest}"
    try:
        cached = pages_cache.get(key)
    except Exception:  # the cache is an optimisation only
        cached = None
    if cached is not None:
        return section_from_json(name, json.loads(cached))
    stored = snapshot_section_stored(snapshot_id=snapshot_id, name=name)
    if stored is None:
        return None
    whole = section_from_json(name, json.loads(stored.body))
    del stored
    names = getattr(whole, "algorithms", None)
    if names is None:  # NotApplicable: nothing to cut
        return whole
    part = restrict(whole, choose_algorithms(names, top=[a for a in chosen if a in set(names)]))
    del whole
    try:
        pages_cache.set(key, json.dumps(section_to_json(name, part)), timeout=SLICE_CACHE_SECONDS)
    except Exception:
        pass
    return part


def snapshot_board(*, snapshot: ResultSnapshot) -> Board | None:
    """The board of a servable snapshot; None for one not ready or of an older contract."""
    if not snapshot_is_servable(snapshot):
        return None
    return snapshot_section(snapshot_id=snapshot.pk, name="board")


class SnapshotSections(Mapping):
    """A snapshot's typed sections by name, each read when first asked for (a cached page
    fragment that never asks reads nothing). A section not stored reads as None."""

    def __init__(self, snapshot: ResultSnapshot | None):
        self._snapshot = (
            snapshot if snapshot is not None and snapshot_is_servable(snapshot) else None
        )
        self._read: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in SECTION_NAMES:
            raise KeyError(name)
        if self._snapshot is None:
            return None
        if name not in self._read:
            self._read[name] = snapshot_section(snapshot_id=self._snapshot.pk, name=name)
        return self._read[name]

    def restricted(self, name: str, algorithms: Sequence[str]) -> Any:
        """Section ``name`` for ``algorithms`` only (see :func:`snapshot_section_slice`)."""
        if name not in SECTION_NAMES:
            raise KeyError(name)
        if self._snapshot is None:
            return None
        if name in self._read:  # already whole in this request
            return self._read[name]
        return snapshot_section_slice(
            snapshot_id=self._snapshot.pk, name=name, algorithms=algorithms
        )

    def __iter__(self) -> Iterator[str]:
        return iter(SECTION_NAMES)

    def __len__(self) -> int:
        return len(SECTION_NAMES)

    def __bool__(self) -> bool:
        return self._snapshot is not None


@dataclass(frozen=True)
class SnapshotStatus:
    """What a poller needs: the version being served and the newest one's progress.

    Read without any section; ``etag`` changes exactly when either changes, so a
    conditional GET of the status or of the latest snapshot is answered from it.
    """

    ready: ResultSnapshot | None  # the latest servable one
    newest: ResultSnapshot | None  # whatever its status; may be the ready one

    @property
    def etag(self) -> str:
        return snapshots_etag(self.ready, self.newest)


def snapshots_etag(*snapshots: ResultSnapshot | None) -> str:
    """A strong ETag of what a response says about these snapshots (None = absent).

    Made of the identity, fingerprint, engine and schema versions, status, stage and
    progress: a ready snapshot's sections never change, so this never reads them.
    """
    parts: list[object] = []
    for snapshot in snapshots:
        if snapshot is None:
            parts.append("-")
            continue
        parts += [
            snapshot.pk,
            snapshot.version,
            snapshot.status,
            snapshot.fingerprint,
            snapshot.engine_version,
            snapshot.schema_version,
            snapshot.stage,
            round(snapshot.progress, 3),
            snapshot.finished_at,  # a retried load failure keeps its version, not its time
        ]
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()
    return f'"{digest[:32]}"'


# A snapshot's summary as readers see it (the API's SnapshotSummarySerializer shows
# exactly these), so a field shown is always a field snapshot_status reads.
SNAPSHOT_SUMMARY_FIELDS = (
    "version",
    "status",
    "stage",
    "progress",
    "error",
    "fingerprint",
    "engine_version",
    "schema_version",
    "created_at",
    "finished_at",
)
# The summary plus what the etag and the failure report read.
_STATUS_FIELDS = ("id", *SNAPSHOT_SUMMARY_FIELDS, "failed_during")


def recompute_pending(*, benchmark_id: int) -> bool:
    """Whether a requested revision of the benchmark's input is not computed yet."""
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    return state is not None and state.is_stale


def snapshot_status(*, benchmark: Benchmark, metric: Metric) -> SnapshotStatus:
    """At most two indexed single-row reads; no section is read."""
    snapshots = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric).only(
        *_STATUS_FIELDS
    )
    newest = snapshots.order_by("-version", "-id").first()
    if newest is not None and snapshot_is_servable(newest):
        return SnapshotStatus(ready=newest, newest=newest)
    ready = _servable(snapshots).order_by("-version", "-id").first()
    return SnapshotStatus(ready=ready, newest=newest)


# --- failures readers are told about --------------------------------------------------

FAILURE_LIST_LIMIT = 100


@dataclass(frozen=True)
class SubmissionChange:
    """A submission by which the results served differ from the newest input."""

    submission: int
    algorithm: str
    status: str  # its status now


@dataclass(frozen=True)
class RecomputeFailure:
    """The newest input of a metric failed: why, and how the results served differ.

    ``still_includes``: submissions the results served were computed from that are no
    longer accepted; ``lacks``: accepted submissions they do not include (each list at
    most FAILURE_LIST_LIMIT long; the ``n_`` counts are whole). Both are empty when the
    served version predates the recording of its submissions.
    """

    version: int
    failed_during: str
    reason: str
    failed_at: datetime | None
    retry_at: datetime | None
    served_version: int | None
    still_includes: tuple[SubmissionChange, ...]
    lacks: tuple[SubmissionChange, ...]
    n_still_includes: int
    n_lacks: int


def failure_reason(snapshot: ResultSnapshot) -> str:
    """Plain words for readers (the raw error of a load or store failure, which may name
    internals, is for maintainers only)."""
    kind = ResultSnapshot.FailedDuring
    if snapshot.failed_during == kind.ANALYSIS:
        message = (snapshot.error.partition(": ")[2] or snapshot.error).rstrip(".")
        return f"The newest accepted results cannot be analysed: {message}."
    what = "storing the results" if snapshot.failed_during == kind.STORE else "reading the scores"
    return (
        f"An internal error stopped the recompute while {what}; it is retried "
        "automatically, and the maintainers can see the error."
    )


def snapshot_failure(
    *, benchmark: Benchmark, metric: Metric | None = None, status: SnapshotStatus | None = None
) -> RecomputeFailure | None:
    """What went wrong when the newest version of a metric failed (None otherwise). An
    abandoned version is not a failure of the input: the next run redoes it.

    Give the ``status`` read already, or the ``metric``: then one query when nothing
    failed (the usual case).
    """
    if status is None:
        if metric is None:
            raise TypeError("snapshot_failure() needs the status or the metric")
        newest_status = (
            ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
            .order_by("-version", "-id")
            .values_list("status", flat=True)
            .first()
        )
        if newest_status != ResultSnapshot.Status.FAILED:
            return None
        status = snapshot_status(benchmark=benchmark, metric=metric)
    newest = status.newest
    if (
        newest is None
        or newest.status != ResultSnapshot.Status.FAILED
        or newest.failed_during == ResultSnapshot.FailedDuring.ABANDONED
    ):
        return None
    retry_at = None
    if newest.failed_during != ResultSnapshot.FailedDuring.ANALYSIS:
        retry_at = (
            RecomputeState.objects.filter(pk=benchmark.pk)
            .values_list("retry_at", flat=True)
            .first()
        )
    still: list[int] = []
    new: list[int] = []
    if status.ready is not None:
        served = (
            ResultSnapshot.objects.filter(pk=status.ready.pk)
            .values_list("submissions", flat=True)
            .first()
        )
        if served is not None:
            accepted = set(
                Submission.objects.filter(
                    benchmark=benchmark, status=Submission.Status.ACCEPTED
                ).values_list("id", flat=True)
            )
            still = sorted(set(served) - accepted)
            new = sorted(accepted - set(served))
    shown = still[:FAILURE_LIST_LIMIT] + new[:FAILURE_LIST_LIMIT]
    described = {
        pk: SubmissionChange(submission=pk, algorithm=name, status=state)
        for pk, name, state in Submission.objects.filter(pk__in=shown).values_list(
            "id", "algorithm__name", "status"
        )
    }
    return RecomputeFailure(
        version=newest.version,
        failed_during=newest.failed_during,
        reason=failure_reason(newest),
        failed_at=newest.finished_at,
        retry_at=retry_at,
        served_version=status.ready.version if status.ready is not None else None,
        still_includes=tuple(described[pk] for pk in still[:FAILURE_LIST_LIMIT] if pk in described),
        lacks=tuple(described[pk] for pk in new[:FAILURE_LIST_LIMIT] if pk in described),
        n_still_includes=len(still),
        n_lacks=len(new),
    )


def benchmark_recompute_failures(*, benchmark: Benchmark) -> list[tuple[Metric, RecomputeFailure]]:
    """Each metric of ``benchmark`` whose newest input failed, with what went wrong."""
    failures = []
    for metric in Metric.objects.filter(benchmark=benchmark):
        failure = snapshot_failure(benchmark=benchmark, metric=metric)
        if failure is not None:
            failures.append((metric, failure))
    return failures
