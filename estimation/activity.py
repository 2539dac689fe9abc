"""What the background work is doing for each benchmark, and the versions that went wrong:
one set of reads for the status page, /metrics, the status API and maintainers' pages.

"Computing" only while a task holds the benchmark's lease (its heartbeat renews it every
third of RECOMPUTE_LEASE_SECONDS; a killed worker's lease runs out), whatever a snapshot
row says; a row left "computing" with no lease is a version nobody runs
(:func:`lease_alive`, the same test the pages, the API and the pipeline use).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Exists, Max, OuterRef, QuerySet, Subquery
from django.utils import timezone

from estimation.models import RecomputeState, ResultSnapshot
from leaderboard.models import Benchmark, Metric


def leases_live(*, now: datetime | None = None) -> QuerySet[RecomputeState]:
    """States whose lease a live run holds (renewed by its heartbeat within the lease).
    The one test of "something computes this benchmark": a snapshot row marked computing
    says only that a run started it, not that the run is still alive."""
    return RecomputeState.objects.filter(lease_expires_at__gte=now or timezone.now()).exclude(
        lease_owner=""
    )


def lease_alive(benchmark_ref: str = "benchmark_id", *, now: datetime | None = None) -> Exists:
    """:func:`leases_live` as a condition on rows whose ``benchmark_ref`` field names the
    benchmark (a snapshot's ``benchmark_id``, a state's ``pk``): one statement reads both."""
    return Exists(leases_live(now=now).filter(pk=OuterRef(benchmark_ref)))


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
        alive=lease_alive("pk", now=now),
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
        .filter(~lease_alive(now=now))
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
