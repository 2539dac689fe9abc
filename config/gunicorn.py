"""Gunicorn settings: ``gunicorn -c config/gunicorn.py config.wsgi:application`` (the
Dockerfile and docker-compose run it). Every value can be overridden from the
environment (``GUNICORN_<NAME>``).

The timeout is sized for the largest request the limits allow: an API upload of
``PODIUM_MAX_UPLOAD_BYTES`` (100 MB). A sync worker reads the whole body itself; a file
over ``PODIUM_BACKGROUND_UPLOAD_BYTES`` (4 MiB) is then only stored and handed to a
Celery worker (202), a smaller one is parsed and stored in the request (a few seconds).
At a client rate of at least ``GUNICORN_MIN_CLIENT_BYTES_PER_SECOND`` (1 MB/s) that is
100 s of reading plus 60 s of slack for storing it; behind a proxy that buffers request
bodies (nginx does by default) the worker reads it at once. Workers are recycled after
``max_requests`` (with jitter, so they do not restart together), which gives back the
memory a large upload left in the worker's heap. The application is loaded once in the
master (``preload_app``), so a recycled worker is a fork that serves at once instead of
importing Django, numpy and scipy again while its share of the requests waits
(``GUNICORN_PRELOAD=false`` turns it off; nothing opens a connection at import).

A request line (method, path and query) may be up to ``limit_request_line`` = 8190
bytes, gunicorn's maximum (its default, 4094, refused a section asked for ~200 named
algorithms). gunicorn answers a longer one itself, with an HTML 400, before Podium sees
it: the API's description says so, and offers ``?top=N`` for long lists of algorithms.
The schema's bound on ``?algorithms=`` (``ALGORITHMS_MAX_LENGTH`` in
leaderboard.api.snapshots) keeps every request line it allows under this limit, so a
longer list is the API's 400 (JSON), not this one.
"""

import os

from gunicorn.http.message import MAX_REQUEST_LINE


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


MAX_UPLOAD_BYTES = _int("PODIUM_MAX_UPLOAD_BYTES", 100 * 1024 * 1024)
MIN_CLIENT_BYTES_PER_SECOND = _int("GUNICORN_MIN_CLIENT_BYTES_PER_SECOND", 1_000_000)
STORE_SLACK_SECONDS = 60

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = _int("GUNICORN_WORKERS", 3)
timeout = _int(
    "GUNICORN_TIMEOUT", MAX_UPLOAD_BYTES // MIN_CLIENT_BYTES_PER_SECOND + STORE_SLACK_SECONDS
)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", timeout)
# gunicorn's maximum (8190 in gunicorn 23): a value this large or larger, or a negative
# one, is read as it; 0 means unlimited.
limit_request_line = _int("GUNICORN_LIMIT_REQUEST_LINE", MAX_REQUEST_LINE)
max_requests = _int("GUNICORN_MAX_REQUESTS", 500)
preload_app = os.environ.get("GUNICORN_PRELOAD", "true").strip().lower() not in ("0", "false", "no")
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 100)
# Heartbeat files in memory: a slow disk (or a container's overlay) must not look like
# a hung worker.
worker_tmp_dir = os.environ.get(
    "GUNICORN_WORKER_TMP_DIR", "/dev/shm" if os.path.isdir("/dev/shm") else None
)
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-")
