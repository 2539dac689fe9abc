"""What an operator (or a maintainer) needs to know about the background work: which
workers and which beat were seen when, what waits, and a plain warning when recomputes
are queued and no worker has been seen for ``PODIUM_WORKER_SILENT_MINUTES``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, F, Min, OuterRef, Subquery
from django.utils import timezone

from estimation.models import RecomputeState, ResultSnapshot
from leaderboard.models import Benchmark
from operations.models import Heartbeat
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
class OperationsStatus:
    now: datetime
    background: bool  # recomputes go to Celery workers (False: in-process threads)
    workers: tuple[ProcessSeen, ...]
    beats: tuple[ProcessSeen, ...]
    recomputes_queued: int  # benchmarks whose input changed since their last run
    oldest_queued_at: datetime | None
    queue_depth: int | None  # tasks waiting in the broker; None: unknown
    worker_seen_at: datetime | None  # the most recent heartbeat of any worker
    beat_seen_at: datetime | None
    silent_minutes: int
    stall: str | None  # queued recomputes and no worker seen lately
    beat_silent: str | None  # no beat seen lately
    mail: str | None  # mail to submitters goes nowhere useful

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for w in (self.stall, self.beat_silent, self.mail) if w)


def mail_warning() -> str | None:
    """SMTP to this machine's port 25 in production is almost always a mistake: in a
    container nothing listens there, and every mail to a submitter is lost."""
    smtp = settings.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    if smtp and settings.EMAIL_HOST in ("localhost", "127.0.0.1", "::1"):
        return (
            f"Mail to submitters goes to SMTP on {settings.EMAIL_HOST}:{settings.EMAIL_PORT}, "
            "which inside a container is nobody: set DJANGO_EMAIL_HOST (README, Production)."
        )
    return None


def _minutes_ago(now: datetime, then: datetime | None) -> str:
    if then is None:
        return "ever"
    minutes = int((now - then).total_seconds() // 60)
    return f"for {minutes} minute{'s' * (minutes != 1)}"


def _seen(rows: Iterable[Heartbeat], now: datetime) -> tuple[ProcessSeen, ...]:
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


def operations_status(
    *, benchmark_ids: Iterable[int] | None = None, queue: bool = True, now=None
) -> OperationsStatus:
    """The status of the background work; ``benchmark_ids`` narrows the queued count to
    those benchmarks (a maintainer's); ``queue=False`` leaves the broker unasked
    (``queue_depth`` None), for pages that do not show it."""
    now = now or timezone.now()
    background = not settings.CELERY_TASK_ALWAYS_EAGER and not settings.RECOMPUTE_IN_THREAD
    heartbeats = list(Heartbeat.objects.order_by("role", "-seen_at"))
    workers = _seen([h for h in heartbeats if h.role == Heartbeat.Role.WORKER], now)
    beats = _seen([h for h in heartbeats if h.role == Heartbeat.Role.BEAT], now)
    stale = RecomputeState.objects.filter(computed_revision__lt=F("requested_revision"))
    if benchmark_ids is not None:
        stale = stale.filter(benchmark_id__in=list(benchmark_ids))
    queued = stale.aggregate(n=Count("pk"), oldest=Min("requested_at"))
    count = queued["n"]
    silent = timedelta(minutes=settings.PODIUM_WORKER_SILENT_MINUTES)
    worker_seen_at = workers[0].seen_at if workers else None
    beat_seen_at = beats[0].seen_at if beats else None
    stall = beat_silent = None
    if background:
        stall = stall_warning(queued=count, worker_seen_at=worker_seen_at, now=now, silent=silent)
        if beat_seen_at is None or now - beat_seen_at >= silent:
            beat_silent = (
                f"No beat scheduler has been seen {_minutes_ago(now, beat_seen_at)}: recomputes "
                "whose enqueue failed are not retried and old versions are not pruned."
            )
    return OperationsStatus(
        now=now,
        background=background,
        workers=workers,
        beats=beats,
        recomputes_queued=count,
        oldest_queued_at=queued["oldest"],
        queue_depth=queue_depth() if background and queue else None,
        worker_seen_at=worker_seen_at,
        beat_seen_at=beat_seen_at,
        silent_minutes=settings.PODIUM_WORKER_SILENT_MINUTES,
        stall=stall,
        beat_silent=beat_silent,
        mail=mail_warning(),
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
