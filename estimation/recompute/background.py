"""Where a recompute runs: a Celery worker, or a background thread of this process.

With a broker configured, :func:`estimation.requests.recompute_dispatch` sends ``recompute_benchmark`` to the
workers. In the embedded mode (no broker, ``PODIUM_RECOMPUTE_IN_THREAD`` on by default),
it starts a thread of the server process instead, so that accepting or submitting
returns at once and the page shows the run's progress as it would with workers.

A run in a thread is the same ``recompute_run`` a worker makes, with the same lease, so
at most one run per benchmark computes at a time, across threads and processes alike.
Within this process there is also at most one thread per benchmark: a request that
arrives while it runs marks the benchmark "again", and the thread loops once more
(``recompute_run`` hands newer revisions on through the same dispatch, which marks it).
A thread computes each version's completion itself, right after serving it.

Limits, compared with workers: a thread cannot be killed, so the hard time limit
(``PODIUM_RECOMPUTE_TIME_LIMIT``) does not apply; a server that stops mid-run leaves a
lease that expires (``PODIUM_RECOMPUTE_LEASE_SECONDS``) and a snapshot that the next run
marks abandoned, exactly as after a dead worker.
"""

from __future__ import annotations

import logging
import threading
import uuid

from celery import current_app as celery_app

from common.threads import db_daemon_thread

logger = logging.getLogger(__name__)

RECOMPUTE_TASK = "estimation.recompute_benchmark"  # estimation.tasks.recompute_benchmark

_lock = threading.Lock()
_running: dict[int, threading.Thread] = {}
_again: set[int] = set()


def thread_start(benchmark_id: int) -> None:
    """Run the recompute of ``benchmark_id`` in a thread of this process (one at a time)."""
    with _lock:
        if benchmark_id in _running:
            _again.add(benchmark_id)
            return
        thread = db_daemon_thread(
            _thread_run, benchmark_id, name=f"podium-recompute-{benchmark_id}"
        )
        _running[benchmark_id] = thread
    thread.start()


def _thread_run(benchmark_id: int) -> None:
    # The task is looked up by name, as a worker would: this module sits below the
    # pipeline (estimation.requests imports it) and must not import it back.
    task = celery_app.tasks[RECOMPUTE_TASK]
    owner = f"thread-{uuid.uuid4().hex}"
    try:
        while True:
            with _lock:
                _again.discard(benchmark_id)
            try:
                # Run here, eagerly; the task id is the lease owner.
                task.apply(args=(benchmark_id,), task_id=owner)
            except Exception:
                # A failing analysis is recorded on its snapshot; anything else (the
                # database went away) is logged, and the next request tries again.
                logger.exception("background recompute of benchmark %s failed", benchmark_id)
            with _lock:
                if benchmark_id not in _again:
                    return
    finally:
        with _lock:
            if _running.get(benchmark_id) is threading.current_thread():
                del _running[benchmark_id]


def recompute_threads_join(timeout: float | None = None) -> None:
    """Wait for this process's background recomputes (a command that exits, a test)."""
    while True:
        with _lock:
            threads = list(_running.values())
        if not threads:
            return
        for thread in threads:
            thread.join(timeout)
            if thread.is_alive():
                return
