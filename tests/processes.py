"""Second Podium processes for the fault tests: a real Celery worker that a test can kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path

import pytest
from django.conf import settings

from config.queues import all_queues, bulk_queue

ROOT = Path(__file__).resolve().parents[1]
# `make check` sets it: its tier runs no worker, browser or scratch cluster.
TIER_VARIABLE = "PODIUM_TEST_TIER"
# How long an in-process Celery worker (celery.contrib.testing) may take to end the task
# it runs when a test ends: a wait, not a measure of speed (a completion's bootstrap and
# advisor took over 60 s at load 20).
SHUTDOWN_SECONDS = 300


def worker_allowed() -> None:
    """Fail a test that starts a worker in the fast tier: it must be marked integration."""
    if os.environ.get(TIER_VARIABLE) == "check":
        pytest.fail(
            "this test starts a Celery worker, which `make check` does not run: mark it "
            "@pytest.mark.integration",
            pytrace=False,
        )


def subprocess_env(**overrides: str) -> dict[str, str]:
    """The environment of a second Podium process sharing this test's database and queue."""
    db = settings.DATABASES["default"]
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "CELERY_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=settings.CELERY_BROKER_URL,
        CELERY_QUEUE=settings.CELERY_TASK_DEFAULT_QUEUE,
        CELERY_BULK_QUEUE=bulk_queue(),
    )
    env.update(overrides)
    return env


def embedded_env(database: Path) -> dict[str, str]:
    """The environment of `make dev`: local settings (DEBUG on), SQLite at ``database``,
    no broker (recomputes in threads)."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "CELERY_"))
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings.local", DATABASE_URL=f"sqlite:///{database}")
    return env


@contextmanager
def celery_worker_process(
    queues: Sequence[str] | None = None,
    *,
    node: str | None = None,
    log: Path | None = None,
    **env_overrides: str,
) -> Iterator[subprocess.Popen]:
    """A real worker in its own process (unlike ``start_worker``'s thread, it can be
    SIGKILLed mid-task), consuming this test's queues (``queues``: only those); killed
    on exit if still alive. ``node``: its node name, for remote control
    (``app.control``'s ``destination``); workers on one host share Celery's default one.

    Its output is discarded (an unread pipe would block a chatty worker), or written to
    ``log``.
    """
    worker_allowed()
    # The worker writes to its own copy of the file's descriptor; this one is closed.
    with log.open("ab") if log is not None else nullcontext(subprocess.DEVNULL) as output:
        worker = _worker_started(queues, node, output, env_overrides)
    try:
        yield worker
    finally:
        with suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)


def _worker_started(
    queues: Sequence[str] | None, node: str | None, output, env_overrides: dict[str, str]
) -> subprocess.Popen:
    """``celery worker`` for :func:`celery_worker_process`, writing to ``output``."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            f"--queues={','.join(queues or all_queues())}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            *([f"--hostname={node}"] if node else []),
        ],
        cwd=ROOT,
        # the test's cache keys: the marks the worker drops (coalescing, lanes) are the
        # ones this process took
        env=subprocess_env(
            **{"PODIUM_CACHE_PREFIX": settings.CACHES["default"]["KEY_PREFIX"], **env_overrides}
        ),
        stdout=output,
        stderr=output,
        start_new_session=True,  # its pool's children go with it
    )


def wait_until(predicate, timeout: float = 30.0, interval: float = 0.05):
    """The first truthy value of ``predicate()``, polled every ``interval`` s; fails after
    ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
