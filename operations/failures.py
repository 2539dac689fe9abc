"""Background tasks that gave up, recorded for the status page and the maintainers.

A task fails for good when its retries are used up; in a database outage that is the
usual way, and the database is exactly what cannot take the record then. So a failure
goes to Redis first (a list, :func:`failures_key`; the process's memory when Redis is away
too) and :func:`task_failures_flush` writes what waits there into the database: at once
when it answers, else from the next worker heartbeat or beat tick after it is back (not
from the status page or a /metrics scrape: a read writes nothing). Each record is written
once (``task_id`` and time are unique together).
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime, timedelta
from typing import cast

from django.db import DatabaseError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from config.cache import CACHE_ERRORS
from config.queues import default_queue
from operations.models import TaskFailure
from operations.queues import broker_client

logger = logging.getLogger(__name__)

FAILURES_KEPT = 10_000
FLUSH_LOCK_SECONDS = 30  # the list's bound in Redis, oldest dropped first
FORGET_AFTER = timedelta(days=7)
RECOMPUTE_TASK = "estimation.recompute_benchmark"
ERROR_CHARS = 2000


def failures_key() -> str:
    """One list per deployment (named by its default queue, as its broker's lists are)."""
    return f"podium:task-failures:{default_queue()}"


def _flush_lock_key() -> str:
    return f"{failures_key()}:flushing"


_pending: list[str] = []  # records neither the database nor Redis took
_pending_lock = threading.Lock()


def _record_text(
    *, task: str, task_id: str, benchmark_id: int | None, error: str, at: datetime
) -> str:
    return json.dumps(
        {
            "task": task[:200],
            "task_id": task_id[:64],
            "benchmark_id": benchmark_id,
            "error": error[:ERROR_CHARS],
            "failed_at": at.isoformat(),
        }
    )


def task_failure_note(
    *, task: str, task_id: str, benchmark_id: int | None, error: str, now=None
) -> None:
    """Keep the failure (Redis, else this process) and write it to the database when
    that answers. Never raises: a failure's record must not fail the worker."""
    text = _record_text(
        task=task,
        task_id=task_id,
        benchmark_id=benchmark_id,
        error=error,
        at=now or timezone.now(),
    )
    if not _redis_push(text):
        with _pending_lock:
            _pending.append(text)
            del _pending[:-FAILURES_KEPT]
    task_failures_flush()


def _redis_push(text: str) -> bool:
    client = broker_client()
    if client is None:
        return False
    try:
        with client.pipeline(transaction=False) as pipe:
            pipe.rpush(failures_key(), text)
            pipe.ltrim(failures_key(), -FAILURES_KEPT, -1)
            pipe.execute()
        return True
    except CACHE_ERRORS:
        return False
    finally:
        client.close()


def _rows(texts: list[str]) -> list[TaskFailure]:
    rows = []
    for text in texts:
        try:
            data = json.loads(text)
            at = parse_datetime(data["failed_at"])
        except (ValueError, KeyError, TypeError):
            continue
        if at is None:
            continue
        rows.append(
            TaskFailure(
                task=data.get("task", ""),
                task_id=data.get("task_id", ""),
                benchmark_id=data.get("benchmark_id"),
                error=data.get("error", ""),
                failed_at=at,
            )
        )
    return rows


def task_failures_flush(*, now=None) -> int:
    """Write the failures waiting in Redis and in this process to the database; how many
    were written. Records stay where they are when the database does not answer."""
    with _pending_lock:
        local = list(_pending)
    client = broker_client()
    try:
        locked = False
        waiting: list[str] = []
        if client is not None:
            try:
                # One flusher at a time, so that two never trim each other's records.
                locked = bool(client.set(_flush_lock_key(), "1", nx=True, ex=FLUSH_LOCK_SECONDS))
                if locked:
                    stored = cast(list[bytes], client.lrange(failures_key(), 0, -1))
                    waiting = [t.decode() for t in stored]
            except CACHE_ERRORS:
                pass
        texts = local + waiting
        written = _failures_write(texts, now=now or timezone.now()) if texts else False
        if written:
            with _pending_lock:
                del _pending[: len(local)]
        if client is not None and locked:
            try:
                if written and waiting:
                    client.ltrim(failures_key(), len(waiting), -1)  # pushed since: stays
                client.delete(_flush_lock_key())
            except CACHE_ERRORS:
                pass  # written again next time: the unique constraint keeps one
        return len(texts) if written else 0
    finally:
        if client is not None:
            client.close()


def _failures_write(texts: list[str], *, now: datetime) -> bool:
    try:
        TaskFailure.objects.bulk_create(_rows(texts), ignore_conflicts=True)
        TaskFailure.objects.filter(failed_at__lt=now - FORGET_AFTER).delete()
    except DatabaseError as exc:
        summary = " ".join(str(exc).split())[:200]
        logger.warning("%d task failures wait for the database: %s", len(texts), summary)
        return False
    return True


def task_failures_flush_quietly() -> None:
    try:
        task_failures_flush()
    except Exception:  # a heartbeat or a beat tick must not fail for this
        logger.warning("task failures not flushed", exc_info=True)


def task_failures_recent(
    *, benchmark_ids=None, since: datetime | None = None, limit: int = 50, now=None
) -> list[TaskFailure]:
    now = now or timezone.now()
    rows = TaskFailure.objects.filter(failed_at__gte=since or now - timedelta(days=1))
    if benchmark_ids is not None:
        rows = rows.filter(benchmark_id__in=list(benchmark_ids))
    return list(rows.order_by("-failed_at")[:limit])


def _benchmark_of(task_name: str, args, kwargs) -> int | None:
    if task_name != RECOMPUTE_TASK:
        return None
    value = (kwargs or {}).get("benchmark_id", args[0] if args else None)
    return value if isinstance(value, int) else None


def _task_failed(sender=None, task_id=None, exception=None, args=None, kwargs=None, **rest):
    name = getattr(sender, "name", None) or str(sender)
    error = " ".join(f"{type(exception).__name__}: {exception}".split())
    task_failure_note(
        task=name,
        task_id=task_id or "",
        benchmark_id=_benchmark_of(name, args or (), kwargs),
        error=error,
    )


def connect_failure_signal() -> None:
    from celery.signals import task_failure

    task_failure.connect(_task_failed, dispatch_uid="podium-task-failure", weak=False)
