"""Reads of result snapshots and of their sections (estimation/core/contract/)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from common.errors import Gone
from config.cache import pages_cache
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
    *, benchmark: Benchmark, metric: Metric, shown_version: int | None = None
) -> ResultSnapshot | None:
    """The newest snapshot still being computed, if any (its stage and progress).

    With ``shown_version``, only one that will replace that version: a computation
    older than the version shown is not news to its reader. The one rule for the API
    and the pages.
    """
    computing = (
        ResultSnapshot.objects.filter(
            benchmark=benchmark, metric=metric, status=ResultSnapshot.Status.COMPUTING
        )
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


# --- the pipeline's health (issue 41): for the status page, metrics, maintainers -------


def _live_leases(now: datetime | None = None) -> QuerySet[RecomputeState]:
    """States whose lease a live run holds (renewed by its heartbeat within the lease)."""
    return RecomputeState.objects.filter(lease_expires_at__gte=now or timezone.now()).exclude(
        lease_owner=""
    )


def is_version_running(*, benchmark_id: int, now: datetime | None = None) -> bool:
    """Whether a live run holds the benchmark (its lease is renewed): a version of it
    shown "computing" is being computed only then. One indexed read."""
    return _live_leases(now).filter(pk=benchmark_id).exists()


def versions_computing_unowned(*, now: datetime | None = None) -> list[ResultSnapshot]:
    """Versions shown "computing" that no live run computes (the stale sweep marks them
    abandoned: this is empty again within one sweep interval)."""
    leased = _live_leases(now).filter(pk=OuterRef("benchmark_id"))
    return list(
        ResultSnapshot.objects.filter(status=ResultSnapshot.Status.COMPUTING)
        .filter(~Exists(leased))
        .select_related("benchmark", "metric")
        .order_by("created_at", "pk")
    )


@dataclass(frozen=True)
class AbandonedVersion:
    """A version whose run stopped before finishing (its worker died or gave up)."""

    benchmark_id: int
    slug: str
    metric: str
    version: int
    error: str
    abandoned_at: datetime | None


def versions_abandoned(
    *,
    benchmark_ids: Sequence[int] | None = None,
    since: datetime | None = None,
    limit: int = FAILURE_LIST_LIMIT,
) -> list[AbandonedVersion]:
    """Abandoned versions, newest first, whether or not they are the newest version of
    their metric (``benchmark_ids``: only those benchmarks; ``since``: abandoned since)."""
    rows = ResultSnapshot.objects.filter(
        status=ResultSnapshot.Status.FAILED,
        failed_during=ResultSnapshot.FailedDuring.ABANDONED,
    )
    if benchmark_ids is not None:
        rows = rows.filter(benchmark_id__in=list(benchmark_ids))
    if since is not None:
        rows = rows.filter(finished_at__gte=since)
    values = rows.order_by("-finished_at", "-pk").values_list(
        "benchmark_id", "benchmark__slug", "metric__name", "version", "error", "finished_at"
    )[:limit]
    return [AbandonedVersion(*row) for row in values]


def oldest_unserved_input_at(*, benchmark_ids: Sequence[int] | None = None) -> datetime | None:
    """When the oldest change not yet computed was recorded, over all benchmarks (or
    ``benchmark_ids``); None when every change is served. Unlike ``requested_at`` (the
    newest change), a steady stream of changes does not reset it."""
    stale = RecomputeState.objects.filter(computed_revision__lt=F("requested_revision"))
    if benchmark_ids is not None:
        stale = stale.filter(pk__in=list(benchmark_ids))
    found = stale.aggregate(
        oldest=Min(Coalesce("pending_since", "requested_at")),
    )["oldest"]
    return found


def oldest_unserved_input_age(
    *, now: datetime | None = None, benchmark_ids: Sequence[int] | None = None
) -> float | None:
    """Seconds since :func:`oldest_unserved_input_at` (None: nothing waits)."""
    oldest = oldest_unserved_input_at(benchmark_ids=benchmark_ids)
    if oldest is None:
        return None
    return max(((now or timezone.now()) - oldest).total_seconds(), 0.0)


# --- what the background work is doing for a benchmark (issue 41) ---------------------
#
# "Computing" only while a task holds the benchmark's lease (its heartbeat renews it every
# third of RECOMPUTE_LEASE_SECONDS; a killed worker's lease runs out), whatever a
# snapshot row says; a row left "computing" with no lease is a version nobody runs.

IDLE = "idle"  # the results served are of the newest input, and nothing runs
COMPUTING = "computing"  # a task holds the lease
WAITING = "waiting"  # input not computed yet, queued or backing off for less than a stall
STALLED = "stalled"  # no task for a stall's length, or a version left computing
ACTIVITY_STATES = (IDLE, COMPUTING, WAITING, STALLED)


def recompute_stall_after() -> timedelta:
    return timedelta(seconds=settings.PODIUM_RECOMPUTE_STALL_SECONDS)


def _minutes(delta: timedelta) -> str:
    minutes = max(int(delta.total_seconds() // 60), 0)
    return f"{minutes} minute{'s' * (minutes != 1)}"


def recompute_activity_decide(
    *,
    stale: bool,
    task_alive: bool,
    orphaned_version: int | None,
    unserved_since: datetime | None,
    retry_at: datetime | None,
    now: datetime,
    stall_after: timedelta,
) -> tuple[str, str]:
    """(state, plain reason) of one benchmark's recomputes; see :data:`ACTIVITY_STATES`.

    Notes
    -----
    A live task wins: whatever rows say, something runs. Without one, a version marked
    computing is stalled at once (its task died or gave up: nothing will finish it
    until a sweep hands the benchmark to a worker); input not computed yet is waiting
    while a retry is scheduled or for less than ``stall_after`` since the oldest change,
    stalled after that.
    """
    if task_alive:
        return COMPUTING, "A worker is computing the results."
    if orphaned_version is not None:
        return STALLED, (
            f"Version {orphaned_version} is marked computing but no worker runs it "
            "(its worker stopped or gave up); it is redone when a worker takes the benchmark."
        )
    if not stale:
        return IDLE, "The results served are of the newest input."
    if retry_at is not None and retry_at > now:
        return WAITING, (
            f"The last run failed; it is retried in {_minutes(retry_at - now)} "
            "(or at once after a new change)."
        )
    waited = now - unserved_since if unserved_since is not None else timedelta(0)
    if waited < stall_after:
        return WAITING, "New input is queued for a worker."
    return STALLED, (
        f"New input has waited {_minutes(waited)} and no worker is running it: results "
        "will not update until a Celery worker takes it."
    )


@dataclass(frozen=True)
class RecomputeActivity:
    """What the background work is doing for one benchmark (:func:`recompute_activities`).

    ``unserved_since``: when the oldest change the results served do not include was
    asked for (None: none); at most a few seconds late (a change that arrived while a
    run read its input may count from that run's version).
    """

    benchmark_id: int
    state: str
    reason: str
    unserved_since: datetime | None
    task_alive: bool
    orphaned_version: int | None
    retry_at: datetime | None
    failures: int

    def unserved_seconds(self, now: datetime) -> float | None:
        if self.unserved_since is None:
            return None
        return max((now - self.unserved_since).total_seconds(), 0.0)


def _served_since(benchmark_ids: list[int]) -> dict[int, datetime]:
    """Per benchmark whose every metric is served: the oldest of the served versions'
    creation times (their runs read the input before that, so a change asked for
    earlier is in them). Two queries, whatever the number of benchmarks."""
    if not benchmark_ids:
        return {}
    newest_ready = (
        ResultSnapshot.objects.filter(
            benchmark_id__in=benchmark_ids, status=ResultSnapshot.Status.READY
        )
        .values("benchmark_id", "metric_id")
        .annotate(created=Max("created_at"))
        .order_by()
    )
    per_benchmark: dict[int, list[datetime]] = {}
    for row in newest_ready:
        per_benchmark.setdefault(row["benchmark_id"], []).append(row["created"])
    n_metrics = dict(
        Metric.objects.filter(benchmark_id__in=benchmark_ids)
        .values_list("benchmark_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {
        pk: min(times)
        for pk, times in per_benchmark.items()
        if len(times) >= n_metrics.get(pk, 0) > 0
    }


def recompute_activities(
    *, benchmark_ids: Iterable[int] | None = None, now: datetime | None = None
) -> dict[int, RecomputeActivity]:
    """Each benchmark's :class:`RecomputeActivity` (only those with a recompute state:
    a benchmark never changed has nothing to do). Three queries in all; the lease and
    the "computing" rows are read in one statement, so a run that ends between two
    reads cannot look orphaned."""
    now = now or timezone.now()
    computing = ResultSnapshot.objects.filter(
        benchmark_id=OuterRef("pk"), status=ResultSnapshot.Status.COMPUTING
    )
    states = RecomputeState.objects.annotate(
        orphan=Subquery(computing.order_by("-version").values("version")[:1]),
        alive=Exists(
            RecomputeState.objects.filter(pk=OuterRef("pk"), lease_expires_at__gte=now).exclude(
                lease_owner=""
            )
        ),
    )
    if benchmark_ids is not None:
        states = states.filter(pk__in=list(benchmark_ids))
    rows = list(
        states.values(
            "pk",
            "alive",
            "orphan",
            "retry_at",
            "failures",
            "pending_since",
            "requested_at",
            "computed_revision",
            "requested_revision",
        )
    )
    stale_ids = [r["pk"] for r in rows if r["computed_revision"] < r["requested_revision"]]
    served_since = _served_since(stale_ids)
    activities = {}
    stall_after = recompute_stall_after()
    for row in rows:
        stale = row["computed_revision"] < row["requested_revision"]
        since = None
        if stale:
            since = row["pending_since"] or row["requested_at"]
            served = served_since.get(row["pk"])
            if since is not None and served is not None and served > since:
                since = served
        task_alive = bool(row["alive"])
        orphaned = None if task_alive else row["orphan"]
        state, reason = recompute_activity_decide(
            stale=stale,
            task_alive=task_alive,
            orphaned_version=orphaned,
            unserved_since=since,
            retry_at=row["retry_at"],
            now=now,
            stall_after=stall_after,
        )
        activities[row["pk"]] = RecomputeActivity(
            benchmark_id=row["pk"],
            state=state,
            reason=reason,
            unserved_since=since,
            task_alive=task_alive,
            orphaned_version=orphaned,
            retry_at=row["retry_at"],
            failures=row["failures"],
        )
    return activities


def recompute_activity(*, benchmark_id: int, now: datetime | None = None) -> RecomputeActivity:
    """One benchmark's activity; idle when its input never changed."""
    found = recompute_activities(benchmark_ids=[benchmark_id], now=now).get(benchmark_id)
    if found is not None:
        return found
    return RecomputeActivity(
        benchmark_id=benchmark_id,
        state=IDLE,
        reason="The results served are of the newest input.",
        unserved_since=None,
        task_alive=False,
        orphaned_version=None,
        retry_at=None,
        failures=0,
    )


# --- failed and abandoned versions, for maintainers and operators ----------------------

PROBLEM_LIST_LIMIT = 50


@dataclass(frozen=True)
class VersionProblem:
    """A version that failed (newest or not), or one left computing with no task."""

    benchmark_id: int
    slug: str
    public: bool
    metric: str
    version: int
    kind: str  # a ResultSnapshot.FailedDuring value, or "orphaned" (computing, no task)
    error: str
    at: datetime  # failed (or, for an orphan, started)


ORPHANED = "orphaned"


def version_problems(
    *,
    benchmark_ids: Iterable[int] | None = None,
    since: datetime | None = None,
    now: datetime | None = None,
    limit: int = PROBLEM_LIST_LIMIT,
) -> list[VersionProblem]:
    """Failed versions (any, not only the newest; abandoned ones too) finished since
    ``since`` (default: a day ago), and versions marked computing whose benchmark no
    task holds, newest first. At most ``limit`` of them; two queries."""
    now = now or timezone.now()
    since = since or now - timedelta(days=1)
    snapshots = ResultSnapshot.objects.all()
    if benchmark_ids is not None:
        snapshots = snapshots.filter(benchmark_id__in=list(benchmark_ids))
    lease_alive = Q(benchmark__recompute_state__lease_expires_at__gte=now) & ~Q(
        benchmark__recompute_state__lease_owner=""
    )
    fields = (
        "benchmark_id",
        "benchmark__slug",
        "benchmark__visibility",
        "metric__name",
        "version",
        "status",
        "failed_during",
        "error",
        "created_at",
        "finished_at",
    )
    orphans = list(
        snapshots.filter(status=ResultSnapshot.Status.COMPUTING)
        .exclude(lease_alive)
        .order_by("-created_at")
        .values(*fields)[:limit]
    )
    failed = list(
        snapshots.filter(status=ResultSnapshot.Status.FAILED, finished_at__gte=since)
        .order_by("-finished_at")
        .values(*fields)[:limit]
    )
    problems = [
        VersionProblem(
            benchmark_id=row["benchmark_id"],
            slug=row["benchmark__slug"],
            public=row["benchmark__visibility"] == Benchmark.Visibility.PUBLIC,
            metric=row["metric__name"],
            version=row["version"],
            kind=ORPHANED
            if row["status"] == ResultSnapshot.Status.COMPUTING
            else row["failed_during"],
            error=(
                "marked computing, but no worker runs it"
                if row["status"] == ResultSnapshot.Status.COMPUTING
                else row["error"]
            ),
            at=row["finished_at"] or row["created_at"],
        )
        for row in (*orphans, *failed)
    ]
    problems.sort(key=lambda p: p.at, reverse=True)
    return problems[:limit]
