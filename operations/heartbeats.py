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

import json
import logging
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from config.cache import CACHE_ERRORS
from config.queues import default_queue
from operations.failures import task_failures_flush_quietly
from operations.incidents import WORKER_RESTARTED, incident_record, redis_restart_check
from operations.models import Heartbeat
from operations.queues import broker_client

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
    """:func:`heartbeat_record`, logging instead of raising when the database is away;
    mirrored in Redis whatever the database does (the status page and /metrics read the
    mirror while the database is down), and, once the database answers, the task
    failures that waited for it are written (operations.failures)."""
    heartbeat_mirror(**kwargs)
    try:
        heartbeat_record(**kwargs)
        task_failures_flush_quietly()
        return True
    except DatabaseError as exc:
        summary = " ".join(str(exc).split())[:200]
        logger.warning("heartbeat of %s not recorded: %s", kwargs.get("name"), summary)
        return False
    finally:
        connections.close_all()  # this thread's own connections only


def mirror_key() -> str:
    """One hash per deployment (named by its default queue, as its broker's lists are)."""
    return f"podium:heartbeats:{default_queue()}"


@dataclass(frozen=True)
class MirroredHeartbeat:
    """A heartbeat as Redis holds it (the shape of :class:`Heartbeat`'s fields)."""

    role: str
    name: str
    queues: list[str]
    started_at: datetime
    seen_at: datetime


def heartbeat_mirror(
    *, role: str, name: str, started_at: datetime, queues: Iterable[str] = (), now=None
) -> bool:
    """Record the heartbeat in Redis too (a hash by role and name); False when it is away."""
    now = now or timezone.now()
    client = broker_client()
    if client is None:
        return False
    entry = {
        "seen_at": now.isoformat(),
        "started_at": started_at.isoformat(),
        "queues": sorted(queues),
    }
    try:
        client.hset(mirror_key(), _mirror_field(role, name), json.dumps(entry))
        redis_restart_check(client, now=now)
        return True
    except CACHE_ERRORS:
        return False
    finally:
        client.close()


def _mirror_field(role: str, name: str) -> str:
    return f"{role}|{name}"


def heartbeat_mirror_end(*, role: str, name: str, now=None) -> bool:
    """Note in the mirror that ``name`` stopped cleanly (its shutdown ran): its next start
    is no incident. False when Redis is away or holds no heartbeat of it."""
    client = broker_client()
    if client is None:
        return False
    field = _mirror_field(role, name)
    try:
        stored = client.hget(mirror_key(), field)
        if stored is None:
            return False
        entry = json.loads(cast(bytes, stored))
        entry["stopped_at"] = (now or timezone.now()).isoformat()
        client.hset(mirror_key(), field, json.dumps(entry))
        return True
    except CACHE_ERRORS:
        return False
    except (ValueError, TypeError):  # not ours: left alone
        return False
    finally:
        client.close()


def worker_restart_check(*, name: str, now=None) -> bool:
    """Before a starting worker's first heartbeat: when the mirror holds one of the same
    name that did not end cleanly (killed, crashed, its machine lost), record the
    incident, which a supervisor's restart within seconds would otherwise hide. True when
    one was recorded."""
    now = now or timezone.now()
    client = broker_client()
    if client is None:
        return False
    try:
        stored = client.hget(mirror_key(), _mirror_field(Heartbeat.Role.WORKER, name))
    except CACHE_ERRORS:
        return False
    finally:
        client.close()
    if stored is None:
        return False  # its first start, or Redis lost its memory
    try:
        entry = json.loads(cast(bytes, stored))
        seen_at = parse_datetime(entry["seen_at"])
    except (ValueError, KeyError, TypeError):
        return False
    if entry.get("stopped_at") or seen_at is None or now - seen_at > FORGET_AFTER:
        return False
    return incident_record(
        kind=WORKER_RESTARTED,
        source=name,
        detail=(
            f"worker {name} restarted at {now:%H:%M:%S} UTC after an unclean stop (its "
            f"last heartbeat was at {seen_at:%H:%M:%S}; tasks it ran were lost or requeued)"
        ),
        now=now,
    )


def heartbeats_mirrored(*, now=None) -> list[MirroredHeartbeat] | None:
    """The heartbeats Redis holds (seen within a day), newest first per role; None when
    Redis cannot be asked."""
    now = now or timezone.now()
    client = broker_client()
    if client is None:
        return None
    try:
        stored = cast(dict[bytes, bytes], client.hgetall(mirror_key()))
    except CACHE_ERRORS:
        return None
    finally:
        client.close()
    found = []
    forgotten = []
    for key, value in stored.items():
        role, _, name = key.decode().partition("|")
        try:
            data = json.loads(value)
            seen_at = parse_datetime(data["seen_at"])
            started_at = parse_datetime(data["started_at"])
        except (ValueError, KeyError, TypeError):
            forgotten.append(key)
            continue
        if seen_at is None or started_at is None or now - seen_at > FORGET_AFTER:
            forgotten.append(key)
            continue
        found.append(
            MirroredHeartbeat(
                role=role,
                name=name,
                queues=list(data.get("queues", [])),
                started_at=started_at,
                seen_at=seen_at,
            )
        )
    if forgotten:  # bounded as the table is: a process silent for a day is dropped
        _mirror_forget(forgotten)
    return sorted(found, key=lambda h: (h.role, -h.seen_at.timestamp()))


def _mirror_forget(fields: list[bytes]) -> None:
    client = broker_client()
    if client is None:
        return
    try:
        client.hdel(mirror_key(), *[field.decode() for field in fields])
    except CACHE_ERRORS:
        pass
    finally:
        client.close()


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
    worker_restart_check(name=name)  # before its own heartbeat overwrites the last one
    _worker_heartbeat = WorkerHeartbeat(name=name, queues=queues)
    _worker_heartbeat.start()


def _worker_shutdown(**kwargs) -> None:
    global _worker_heartbeat
    if _worker_heartbeat is not None:
        _worker_heartbeat.stop()
        heartbeat_mirror_end(role=Heartbeat.Role.WORKER, name=_worker_heartbeat.name)
        _worker_heartbeat = None


def connect_worker_signals() -> None:
    from celery.signals import worker_ready, worker_shutdown

    worker_ready.connect(_worker_ready, dispatch_uid="podium-heartbeat-ready", weak=False)
    worker_shutdown.connect(_worker_shutdown, dispatch_uid="podium-heartbeat-shutdown", weak=False)
