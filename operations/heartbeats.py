"""Heartbeats of the background processes: Celery workers and the one beat scheduler.

A worker's main process runs a daemon thread (started when the worker is ready to take
tasks, stopped at its shutdown) that records its name and queues every
``PODIUM_HEARTBEAT_SECONDS``; a thread, not a task, so a worker busy with a long
recompute still says it is alive, and a worker that died stops saying so. Beat records
itself from its scheduler loop (:class:`operations.beat.HeartbeatScheduler`), so a dead
beat shows even while the workers are fine. A process that cannot reach the database
logs it and tries again at the next beat: a heartbeat never stops the process.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone

from operations.models import Heartbeat

logger = logging.getLogger(__name__)

FORGET_AFTER = timedelta(days=1)


def heartbeat_seconds() -> float:
    return float(settings.PODIUM_HEARTBEAT_SECONDS)


def heartbeat_record(
    *, role: str, name: str, started_at: datetime, queues: Iterable[str] = (), now=None
) -> None:
    """Note that ``name`` (of ``role``) is alive now; forget its role's long-silent rows."""
    now = now or timezone.now()
    Heartbeat.objects.update_or_create(
        role=role,
        name=name,
        defaults={"seen_at": now, "started_at": started_at, "queues": sorted(queues)},
    )
    Heartbeat.objects.filter(role=role, seen_at__lt=now - FORGET_AFTER).delete()


def heartbeat_record_quietly(**kwargs) -> bool:
    """:func:`heartbeat_record`, logging instead of raising when the database is away."""
    try:
        heartbeat_record(**kwargs)
        return True
    except DatabaseError as exc:
        logger.warning("heartbeat of %s not recorded: %s", kwargs.get("name"), exc)
        return False
    finally:
        connections.close_all()  # this thread's own connections only


class WorkerHeartbeat:
    """The heartbeat thread of one worker process."""

    def __init__(self, *, name: str, queues: Iterable[str]) -> None:
        self.name = name
        self.queues = tuple(queues)
        self.started_at = timezone.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="podium-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            heartbeat_record_quietly(
                role=Heartbeat.Role.WORKER,
                name=self.name,
                started_at=self.started_at,
                queues=self.queues,
            )
            if self._stop.wait(heartbeat_seconds()):
                return


_worker_heartbeat: WorkerHeartbeat | None = None


def _worker_ready(sender=None, **kwargs) -> None:
    global _worker_heartbeat
    if heartbeat_seconds() <= 0 or _worker_heartbeat is not None:
        return
    try:
        queues = [queue.name for queue in sender.task_consumer.queues]
    except AttributeError:
        queues = []
    name = getattr(sender, "hostname", None) or f"celery@{socket.gethostname()}"
    _worker_heartbeat = WorkerHeartbeat(name=name, queues=queues)
    _worker_heartbeat.start()


def _worker_shutdown(**kwargs) -> None:
    global _worker_heartbeat
    if _worker_heartbeat is not None:
        _worker_heartbeat.stop()
        _worker_heartbeat = None


def connect_worker_signals() -> None:
    from celery.signals import worker_ready, worker_shutdown

    worker_ready.connect(_worker_ready, dispatch_uid="podium-heartbeat-ready", weak=False)
    worker_shutdown.connect(_worker_shutdown, dispatch_uid="podium-heartbeat-shutdown", weak=False)
