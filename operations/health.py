"""Readiness checks: can this process serve? (``/health/ready/``)

Each check is small, bounded by a short timeout and returns a :class:`Check`; none
raises. ``/health/`` (alive) runs none of them: it answers as long as the process does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection

from config.cache import CACHE_ERRORS

# What a probe raises when its service is away: caught, reported as a failed check.
PROBE_ERRORS: tuple[type[BaseException], ...] = (DatabaseError, *CACHE_ERRORS)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float


def _timed(name: str, probe) -> Check:
    start = time.monotonic()
    try:
        ok, detail = probe()
    except PROBE_ERRORS as exc:
        ok, detail = False, " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return Check(name=name, ok=ok, detail=detail, seconds=round(time.monotonic() - start, 4))


def _database() -> tuple[bool, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return True, connection.vendor


_migrations_applied = False


def _migrations() -> tuple[bool, str]:
    """Every migration on disk applied (remembered once true: none is unapplied later)."""
    global _migrations_applied
    if _migrations_applied:
        return True, "all applied"
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _ in plan[:5])
        return False, f"{len(plan)} unapplied (run manage.py migrate): {names}"
    _migrations_applied = True
    return True, "all applied"


def _cache() -> tuple[bool, str]:
    backend = cache._cache if hasattr(cache, "_cache") else None
    if backend is not None and hasattr(backend, "get_client"):
        backend.get_client(write=True).ping()  # past the fail-open wrapper
        return True, "redis"
    cache.set("health:probe", "1", timeout=5)
    return cache.get("health:probe") == "1", type(cache).__name__


def _broker() -> tuple[bool, str]:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return True, "none (tasks run in-process)"
    from operations.queues import broker_client

    client = broker_client()
    if client is None:
        return True, "not redis (not checked)"
    client.ping()
    return True, "redis"


def database_check() -> Check:
    return _timed("database", _database)


def readiness_checks() -> list[Check]:
    return [
        _timed("database", _database),
        _timed("migrations", _migrations),
        _timed("cache", _cache),
        _timed("broker", _broker),
    ]
