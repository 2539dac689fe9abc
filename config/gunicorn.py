"""Gunicorn settings: ``gunicorn -c config/gunicorn.py config.wsgi:application`` (the
Dockerfile and docker-compose run it). Every value can be overridden from the
environment (``GUNICORN_<NAME>``).

**No serving gaps.** The application is loaded once, in the master, before it forks
(``preload_app``): a new worker is a fork of a process that has already imported Django,
numpy and scipy, so it serves within milliseconds instead of the ~25 s an importing
worker took under load. (Without preload, two workers reaching ``max_requests`` within
a few seconds of each other left the site with no worker for 34.5 s.) Workers are still
recycled, after ``max_requests`` (10,000) plus a random jitter of up to 5,000, so two
workers almost never restart together, and even then the replacements are ready at
once; recycling gives back the memory a large upload left in a worker's heap. Nothing
opens a database connection, a Redis socket or a thread at import time, so the forks
share none (Django opens its connections on first use in each worker).

Two more things make a recycle cost milliseconds rather than 1-2 s (measured on a
loaded 2-core machine, one worker recycled every 3 requests: the first request after a
recycle waited 0.9-2.0 s, and 7-27 ms with both): the master freezes its objects out of
the garbage collector before forking (``gc.freeze``, so a worker's collections do not
touch, and copy, the pages it shares with the master), and a worker that has finished
its last request closes its database connections, flushes its output and leaves with
``os._exit`` instead of tearing down an interpreter that holds Django, numpy and scipy
(the master replaces a worker only once it has exited).

Preloading has one cost: new code needs a restart of the master (``docker compose
restart web``, or ``kill -HUP`` has no effect on code), which an upgrade does anyway.

**Worker class and count.** ``sync`` workers, ``GUNICORN_WORKERS`` of them (default
2 x the CPUs this process may use + 1, gunicorn's rule of thumb: 5 on 2 cores), so one
can restart or die while the others serve. A sync worker takes one connection at a time
and takes the next only when done, so a worker that reaches ``max_requests`` leaves
nothing accepted behind. The ``gthread`` worker accepts many connections ahead of its
threads and resets those it has not served when it recycles (gunicorn issue #3038,
open; the gap test saw ``ConnectionResetError`` with it), so it is not the default.
Requests wait mostly on PostgreSQL and Redis, and the heavy computing runs on Celery
workers. A slow client holds one worker while it uploads: behind a proxy that buffers
request bodies, the worker reads a body at once.

**Forwarded headers.** gunicorn sets the request's scheme from ``X-Forwarded-Proto``
only for peers in ``forwarded_allow_ips``; its own default trusts loopback, so any
local process could claim https. Here it trusts none unless
``GUNICORN_FORWARDED_ALLOW_IPS`` names the proxy's addresses (comma-separated; ``*`` for
all, only when nothing but the proxy can reach the port). Django's own trust is
``DJANGO_SECURE_PROXY_SSL_HEADER`` (docs/operators.md, "Security defaults").

The timeout is sized for the largest request the limits allow: an API upload of
``PODIUM_MAX_UPLOAD_BYTES`` (100 MB). A worker reads the whole body itself; a file
over ``PODIUM_BACKGROUND_UPLOAD_BYTES`` (4 MiB) is then only stored and handed to a
Celery worker (202), a smaller one is parsed and stored in the request (a few seconds).
At a client rate of at least ``GUNICORN_MIN_CLIENT_BYTES_PER_SECOND`` (1 MB/s) that is
100 s of reading plus 60 s of slack for storing it; behind a proxy that buffers request
bodies (nginx does by default) the worker reads it at once.

A request line (method, path and query) may be up to ``limit_request_line`` = 8190
bytes, gunicorn's maximum (its default, 4094, refused a section asked for ~200 named
algorithms). gunicorn answers a longer one itself, with an HTML 400, before Podium sees
it: the API's description says so, and offers ``?top=N`` for long lists of algorithms.
The schema's bound on ``?algorithms=`` (``ALGORITHMS_MAX_LENGTH`` in
estimation.api.snapshots) keeps every request line it allows under this limit, so a
longer list is the API's 400 (JSON), not this one.

**Metrics.** Each worker counts its requests in files under ``PROMETHEUS_MULTIPROC_DIR``
(prometheus-client's multiprocess mode; default: a fresh folder in ``worker_tmp_dir``),
which ``/metrics`` adds up over all workers; a dead worker's gauges are dropped.

**Incidents.** A worker killed (``kill -9``, the kernel's OOM killer) or aborted past its
timeout is replaced within milliseconds, so nothing stays down to show; the event is
recorded instead (operations/incidents.py, shown on /status/ and counted in /metrics).
A worker that ends through its exit hook leaves a mark in ``EXITS_DIR``; the master's
``child_exit`` records one that left none; ``worker_abort`` records a timeout.
"""

import gc
import os
import shutil
import sys
import tempfile

from gunicorn.http.message import MAX_REQUEST_LINE


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def _bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{name} must be on or off; got {raw!r}")


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


MAX_UPLOAD_BYTES = _int("PODIUM_MAX_UPLOAD_BYTES", 100 * 1024 * 1024)
MIN_CLIENT_BYTES_PER_SECOND = _int("GUNICORN_MIN_CLIENT_BYTES_PER_SECOND", 1_000_000)
STORE_SLACK_SECONDS = 60

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
preload_app = _bool("GUNICORN_PRELOAD", True)
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
workers = _int("GUNICORN_WORKERS", 2 * _cpus() + 1)
timeout = _int(
    "GUNICORN_TIMEOUT", MAX_UPLOAD_BYTES // MIN_CLIENT_BYTES_PER_SECOND + STORE_SLACK_SECONDS
)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", timeout)
# gunicorn's maximum (8190 in gunicorn 23): a value this large or larger, or a negative
# one, is read as it; 0 means unlimited.
limit_request_line = _int("GUNICORN_LIMIT_REQUEST_LINE", MAX_REQUEST_LINE)
max_requests = _int("GUNICORN_MAX_REQUESTS", 10_000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", max_requests // 2)
# A comma-separated string, as gunicorn validates it; empty: trust no peer.
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "").strip()
# Heartbeat files in memory: a slow disk (or a container's overlay) must not look like
# a hung worker.
worker_tmp_dir = os.environ.get(
    "GUNICORN_WORKER_TMP_DIR", "/dev/shm" if os.path.isdir("/dev/shm") else None
)
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None  # empty: no access log
errorlog = os.environ.get("GUNICORN_ERRORLOG", "-")
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")

# Before the application is preloaded (prometheus-client reads it at import). A folder
# named by the operator must be empty when gunicorn starts (a tmpfs, say).
METRICS_DIR_OWNED = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if METRICS_DIR_OWNED:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(
        prefix="podium-metrics-", dir=worker_tmp_dir
    )


# Where a worker that exits through worker_exit says so, for the master's child_exit.
EXITS_DIR = tempfile.mkdtemp(prefix="podium-exits-", dir=worker_tmp_dir)


def _exit_mark(pid: int) -> str:
    return os.path.join(EXITS_DIR, str(pid))


def _incident(kind: str, detail: str) -> None:
    """Record an incident; never lets a failure reach gunicorn (its master must live)."""
    try:
        from operations.incidents import incident_record

        incident_record(kind=kind, source="web", detail=detail)
    except Exception as exc:  # Django not set up (no preload), Redis away, ...
        sys.stderr.write(f"incident {kind} not recorded ({exc}): {detail}\n")


def pre_fork(server, worker) -> None:
    gc.freeze()


def worker_exit(server, worker) -> None:
    """The worker's last act: close, flush, and exit without interpreter teardown.

    Only for a worker that booted: one that failed to boot leaves with gunicorn's own
    exit code (3), which tells the master to stop instead of forking again and again."""
    if not worker.booted:
        return
    try:
        with open(_exit_mark(worker.pid), "w"):
            pass
    except OSError:
        pass  # at worst its clean exit is recorded as an incident
    try:
        from django.db import connections

        connections.close_all()
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(0)


def child_exit(server, worker) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
    try:
        os.unlink(_exit_mark(worker.pid))
    except FileNotFoundError:  # it never reached worker_exit: killed or crashed
        _incident(
            "web-worker-died",
            f"web worker {worker.pid} died without a clean exit (killed by a signal, "
            "the OOM killer, or a crash); gunicorn replaced it",
        )


def worker_abort(worker) -> None:
    """In the worker, on the master's SIGABRT: it ran past ``timeout``."""
    _incident(
        "web-worker-timeout",
        f"web worker {worker.pid} was aborted after {timeout} s on one request "
        "(gunicorn's timeout); gunicorn replaced it",
    )


def on_exit(server) -> None:
    shutil.rmtree(EXITS_DIR, ignore_errors=True)
    if METRICS_DIR_OWNED:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
