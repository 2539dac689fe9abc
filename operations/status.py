"""What an operator (or a maintainer) needs to know about the background work: which
workers and which beat were seen when, on which queue, what waits and for how long, what
failed, and a plain warning for each fault: recomputes queued and no worker seen for
``PODIUM_WORKER_SILENT_MINUTES``, a queue whose workers all went silent (while another
queue's are fine), benchmarks whose recompute nobody runs (stalled), no beat.

:func:`operations_status` reads the database; :func:`operations_status_without_database`
is what is known while it is down: the heartbeats mirrored in Redis, the queues' depths.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.db.models import Count, F, OuterRef, Subquery
from django.utils import timezone

from config.queues import all_queues, bulk_queue
from estimation.activity import STALLED, VersionProblem, recompute_activities, version_problems
from estimation.models import RecomputeState, ResultSnapshot
from leaderboard.models import Benchmark
from operations.failures import task_failures_recent
from operations.heartbeats import heartbeats_mirrored
from operations.incidents import Incident, incidents_recent, incidents_warning
from operations.models import Heartbeat, TaskFailure
from operations.queues import queue_depth

PUBLIC = Benchmark.Visibility.PUBLIC


@dataclass(frozen=True)
class ProcessSeen:
    role: str
    name: str
    queues: tuple[str, ...]
    started_at: datetime
    seen_at: datetime
    age_seconds: float
    alive: bool  # seen within three heartbeat intervals


@dataclass(frozen=True)
class QueueWorkers:
    """One broker queue: how many workers consuming it are alive, when one was last seen."""

    queue: str
    alive: int  # seen within three heartbeat intervals
    seen_at: datetime | None  # the latest heartbeat of any worker consuming it
    depth: int | None  # tasks waiting in it; None: unknown
    silent: str | None  # the warning when none was seen within the silent minutes


@dataclass(frozen=True)
class StalledBenchmark:
    slug: str
    public: bool
    reason: str
    unserved_since: datetime | None


@dataclass(frozen=True)
class OperationsStatus:
    now: datetime
    background: bool  # recomputes go to Celery workers (False: in-process threads)
    workers: tuple[ProcessSeen, ...]
    beats: tuple[ProcessSeen, ...]
    recomputes_queued: int  # benchmarks whose input changed since their last run
    oldest_queued_at: datetime | None  # when the oldest change not computed was asked
    queue_depth: int | None  # tasks waiting in the broker; None: unknown
    worker_seen_at: datetime | None  # the most recent heartbeat of any worker
    beat_seen_at: datetime | None
    silent_minutes: int
    stall: str | None  # queued recomputes and no worker seen lately
    beat_silent: str | None  # no beat seen lately
    mail: str | None  # mail to submitters goes nowhere useful
    queues: tuple[QueueWorkers, ...] = ()
    stalled: tuple[StalledBenchmark, ...] = ()  # recomputes nobody runs
    problems: tuple[VersionProblem, ...] = ()  # failed or orphaned versions, a day's
    task_failures: tuple[TaskFailure, ...] = ()  # tasks that gave up, a day's
    database: str | None = None  # None: it answers; else what failed
    incidents: tuple[Incident, ...] = ()  # faults over before anyone looked, a day's

    @property
    def stalled_warning(self) -> str | None:
        if not self.stalled:
            return None
        n = len(self.stalled)
        return (
            f"{n} benchmark{'s have' if n != 1 else ' has'} a recompute that no worker runs "
            "(stalled): see Background work."
        )

    @property
    def database_warning(self) -> str | None:
        if self.database is None:
            return None
        return (
            "The database does not answer: pages and the API answer 503 until it is back; "
            "shown here is what Redis and this process know."
        )

    @property
    def warnings(self) -> tuple[str, ...]:
        found = (
            self.database_warning,
            self.stall,
            *(q.silent for q in self.queues),
            self.stalled_warning,
            incidents_warning(list(self.incidents), now=self.now),
            self.beat_silent,
            self.mail,
        )
        return tuple(w for w in found if w)


def mail_warning() -> str | None:
    """SMTP to this machine's port 25 in production is almost always a mistake: in a
    container nothing listens there, and every mail to a submitter is lost."""
    smtp = settings.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    if smtp and settings.EMAIL_HOST in ("localhost", "127.0.0.1", "::1"):
        return (
            f"Mail to submitters goes to SMTP on {settings.EMAIL_HOST}:{settings.EMAIL_PORT}, "
            "which inside a container is nobody: set DJANGO_EMAIL_HOST (docs/operators.md)."
        )
    return None


def _minutes_ago(now: datetime, then: datetime | None) -> str:
    if then is None:
        return "ever"
    minutes = int((now - then).total_seconds() // 60)
    return f"for {minutes} minute{'s' * (minutes != 1)}"


class _HeartbeatLike(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def queues(self) -> list[str]: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def seen_at(self) -> datetime: ...


def _seen(rows: Iterable[_HeartbeatLike], now: datetime) -> tuple[ProcessSeen, ...]:
    fresh = timedelta(seconds=3 * max(settings.PODIUM_HEARTBEAT_SECONDS, 1))
    return tuple(
        ProcessSeen(
            role=row.role,
            name=row.name,
            queues=tuple(row.queues),
            started_at=row.started_at,
            seen_at=row.seen_at,
            age_seconds=(now - row.seen_at).total_seconds(),
            alive=now - row.seen_at <= fresh,
        )
        for row in rows
    )


def stall_warning(
    *,
    queued: int,
    worker_seen_at: datetime | None,
    now: datetime,
    silent: timedelta,
) -> str | None:
    """The sentence both pages show when queued recomputes have nobody to run them."""
    if queued == 0 or (worker_seen_at is not None and now - worker_seen_at < silent):
        return None
    return (
        f"{queued} recompute{'s are' if queued != 1 else ' is'} queued and no worker has "
        f"been seen {_minutes_ago(now, worker_seen_at)}: results will not update until a "
        "Celery worker runs."
    )


QUEUE_CARRIES = {
    "default": "recomputes, the sweeps and mail",
    "bulk": "uploads and the recomputes of accounts with many queued",
}


def queue_workers(
    workers: Sequence[ProcessSeen],
    *,
    now: datetime,
    silent: timedelta,
    background: bool,
    depths: dict[str, int | None],
) -> tuple[QueueWorkers, ...]:
    """Each queue's workers, apart: a live worker on one queue hides no dead one on
    another (issue 41). A queue no worker consumes is warned about in the background
    mode only (in-process threads need none)."""
    found = []
    for name in all_queues():
        consuming = [w for w in workers if name in w.queues]
        seen_at = max((w.seen_at for w in consuming), default=None)
        warning = None
        if background and (seen_at is None or now - seen_at >= silent):
            carries = QUEUE_CARRIES["bulk" if name == bulk_queue() else "default"]
            depth = depths.get(name)
            waiting = "" if depth is None else f" ({depth} task{'s' * (depth != 1)} waiting)"
            warning = (
                f"No worker consuming the {name} queue has been seen "
                f"{_minutes_ago(now, seen_at)}: {carries} wait there{waiting}, even while "
                "other queues' workers run."
            )
        found.append(
            QueueWorkers(
                queue=name,
                alive=sum(1 for w in consuming if w.alive),
                seen_at=seen_at,
                depth=depths.get(name),
                silent=warning,
            )
        )
    return tuple(found)


def _depths(background: bool, queue: bool) -> dict[str, int | None]:
    if not (background and queue):
        return {}
    return {name: queue_depth(name) for name in all_queues()}


def _total(depths: dict[str, int | None]) -> int | None:
    if not depths or any(d is None for d in depths.values()):
        return None
    return sum(d for d in depths.values() if d is not None)


def operations_status(
    *, benchmark_ids: Iterable[int] | None = None, queue: bool = True, now=None
) -> OperationsStatus:
    """The status of the background work; ``benchmark_ids`` narrows the recomputes (queued,
    stalled, failed) to those benchmarks (a maintainer's); ``queue=False`` leaves the
    broker unasked (depths None), for pages that do not show them."""
    now = now or timezone.now()
    background = not settings.CELERY_TASK_ALWAYS_EAGER and not settings.RECOMPUTE_IN_THREAD
    heartbeats = list(Heartbeat.objects.order_by("role", "-seen_at"))
    workers = _seen([h for h in heartbeats if h.role == Heartbeat.Role.WORKER], now)
    beats = _seen([h for h in heartbeats if h.role == Heartbeat.Role.BEAT], now)
    ids = list(benchmark_ids) if benchmark_ids is not None else None
    stale = RecomputeState.objects.filter(computed_revision__lt=F("requested_revision"))
    if ids is not None:
        stale = stale.filter(benchmark_id__in=ids)
    count = stale.aggregate(n=Count("pk"))["n"]
    activities = recompute_activities(benchmark_ids=ids, now=now)
    oldest = min((a.unserved_since for a in activities.values() if a.unserved_since), default=None)
    stalled_ids = {pk: a for pk, a in activities.items() if a.state == STALLED}
    stalled = tuple(
        StalledBenchmark(
            slug=slug,
            public=visibility == PUBLIC,
            reason=stalled_ids[pk].reason,
            unserved_since=stalled_ids[pk].unserved_since,
        )
        for pk, slug, visibility in Benchmark.objects.filter(pk__in=list(stalled_ids))
        .order_by("slug")
        .values_list("pk", "slug", "visibility")
    )
    silent = timedelta(minutes=settings.PODIUM_WORKER_SILENT_MINUTES)
    depths = _depths(background, queue)
    worker_seen_at = workers[0].seen_at if workers else None
    beat_seen_at = beats[0].seen_at if beats else None
    stall = beat_silent = None
    if background:
        stall = stall_warning(queued=count, worker_seen_at=worker_seen_at, now=now, silent=silent)
        beat_silent = _beat_warning(now, beat_seen_at, silent)
    return OperationsStatus(
        now=now,
        background=background,
        workers=workers,
        beats=beats,
        recomputes_queued=count,
        oldest_queued_at=oldest,
        queue_depth=_total(depths),
        worker_seen_at=worker_seen_at,
        beat_seen_at=beat_seen_at,
        silent_minutes=settings.PODIUM_WORKER_SILENT_MINUTES,
        stall=stall,
        beat_silent=beat_silent,
        mail=mail_warning(),
        queues=queue_workers(workers, now=now, silent=silent, background=background, depths=depths),
        stalled=stalled,
        problems=tuple(version_problems(benchmark_ids=ids, now=now)),
        task_failures=tuple(task_failures_recent(benchmark_ids=ids, now=now)),
        incidents=tuple(incidents_recent(now=now) or ()) if ids is None else (),
    )


def _beat_warning(now: datetime, beat_seen_at: datetime | None, silent: timedelta) -> str | None:
    if beat_seen_at is not None and now - beat_seen_at < silent:
        return None
    return (
        f"No beat scheduler has been seen {_minutes_ago(now, beat_seen_at)}: recomputes "
        "whose enqueue failed are not retried and old versions are not pruned."
    )


def operations_status_without_database(*, database: str, now=None) -> OperationsStatus:
    """What is known while the database is down: the heartbeats Redis mirrors (workers
    and beat, per queue) and the queues' depths; nothing of the benchmarks."""
    now = now or timezone.now()
    background = not settings.CELERY_TASK_ALWAYS_EAGER and not settings.RECOMPUTE_IN_THREAD
    mirrored = heartbeats_mirrored(now=now) or []
    workers = _seen([h for h in mirrored if h.role == Heartbeat.Role.WORKER], now)
    beats = _seen([h for h in mirrored if h.role == Heartbeat.Role.BEAT], now)
    silent = timedelta(minutes=settings.PODIUM_WORKER_SILENT_MINUTES)
    depths = _depths(background, True)
    worker_seen_at = max((w.seen_at for w in workers), default=None)
    beat_seen_at = max((b.seen_at for b in beats), default=None)
    return OperationsStatus(
        now=now,
        background=background,
        workers=workers,
        beats=beats,
        recomputes_queued=0,
        oldest_queued_at=None,
        queue_depth=_total(depths),
        worker_seen_at=worker_seen_at,
        beat_seen_at=beat_seen_at,
        silent_minutes=settings.PODIUM_WORKER_SILENT_MINUTES,
        stall=None,
        beat_silent=_beat_warning(now, beat_seen_at, silent) if background else None,
        mail=mail_warning(),
        queues=queue_workers(workers, now=now, silent=silent, background=background, depths=depths),
        database=database,
        incidents=tuple(incidents_recent(now=now) or ()),
    )


@dataclass(frozen=True)
class SnapshotAge:
    slug: str
    metric: str
    version: int
    age_seconds: float  # since the served (newest ready) version finished
    duration_seconds: float | None  # of that run
    public: bool  # the benchmark is listed publicly (its slug no secret)


def served_snapshot_ages(*, now=None) -> list[SnapshotAge]:
    """Per benchmark and metric, the age of the version readers are served."""
    now = now or timezone.now()
    ready = ResultSnapshot.objects.filter(status=ResultSnapshot.Status.READY)
    served = ready.filter(benchmark_id=OuterRef("benchmark_id"), metric_id=OuterRef("metric_id"))
    rows = (
        ready.filter(version=Subquery(served.order_by("-version").values("version")[:1]))
        .order_by("benchmark__slug", "metric__name")
        .values(
            "benchmark__slug",
            "benchmark__visibility",
            "metric__name",
            "version",
            "created_at",
            "finished_at",
        )
    )
    return [
        SnapshotAge(
            slug=row["benchmark__slug"],
            metric=row["metric__name"],
            version=row["version"],
            age_seconds=(now - row["finished_at"]).total_seconds(),
            duration_seconds=(row["finished_at"] - row["created_at"]).total_seconds(),
            public=row["benchmark__visibility"] == PUBLIC,
        )
        for row in rows
        if row["finished_at"] is not None
    ]
