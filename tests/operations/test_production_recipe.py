"""The production steps of docs/operators.md, followed with local processes instead of containers (no
Docker here): .env.example filled in as step 1 says, then what compose's services run
(migrate; gunicorn with config/gunicorn.py; a Celery worker; one beat), createsuperuser,
and the checks of step 4. Caddy (the tls profile) is the one piece not run: the proxy's
headers are sent by hand.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.processes import ROOT, wait_until

pytestmark = pytest.mark.integration

HOST = "podium.example.org"
METRICS_TOKEN = "a-scrape-token-for-this-test"
BIN = Path(sys.executable).parent


def _env_file() -> dict[str, str]:
    lines = (ROOT / ".env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))


def _get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": HOST, **headers})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_production_steps_with_local_processes(tmp_path: Path):
    db = settings.DATABASES["default"]
    database = f"podium_recipe_{uuid.uuid4().hex[:8]}"
    server = f"postgres://{db['USER'] or 'postgres'}@{db['HOST']}:{db['PORT']}"
    port = _free_port()
    # Step 1: .env from .env.example, the required values filled in.
    dotenv = {
        **_env_file(),
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "POSTGRES_PASSWORD": "unused-here",
        "DJANGO_EMAIL_HOST": "127.0.0.1",
        "PODIUM_HEARTBEAT_SECONDS": "1",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "2",
        "PODIUM_METRICS_TOKEN": METRICS_TOKEN,
    }
    assert dotenv["DJANGO_ALLOWED_HOSTS"] == HOST
    queue = f"podium-recipe-{uuid.uuid4().hex[:8]}"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "CELERY_", "PODIUM_", "GUNICORN_"))
    }
    # What compose's x-podium-env adds (production settings, static files from the apps'
    # folders instead of a collectstatic run: tests/reliability/settings.py).
    env.update(
        dotenv,
        DJANGO_SETTINGS_MODULE="tests.reliability.settings",
        DATABASE_URL=f"{server}/{database}",
        REDIS_URL=settings.CELERY_BROKER_URL,
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        CELERY_QUEUE=queue,
        PODIUM_CACHE_PREFIX=queue,
        DJANGO_SUPERUSER_USERNAME="admin",
        DJANGO_SUPERUSER_PASSWORD="a-long-admin-password",
        DJANGO_SUPERUSER_EMAIL="admin@example.org",
    )
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    processes: list[subprocess.Popen] = []
    log = (tmp_path / "processes.log").open("wb")

    def manage(*argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *argv], cwd=ROOT, env=env,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def start(*argv: str) -> None:
        processes.append(
            subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )

    try:
        # Step 2: what compose's web, worker and beat run.
        manage("migrate", "--noinput", "-v", "0")
        start(str(BIN / "gunicorn"), "-c", "config/gunicorn.py", "config.wsgi:application")
        start(sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=WARNING",
              f"--queues={queue},{queue}-bulk", "--concurrency=1")  # fmt: skip
        start(sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=WARNING",
              f"--schedule={tmp_path / 'celerybeat-schedule'}")  # fmt: skip
        # Step 3.
        manage("createsuperuser", "--noinput")

        # Step 4: alive and ready, by the host name the site serves.
        def ready() -> bool:
            with contextlib.suppress(OSError):
                return _get(port, "/health/ready/")[0] == 200
            return False

        wait_until(ready, timeout=90, interval=0.3)
        assert _get(port, "/health/")[2] == b'{"status": "alive"}'
        # Through the proxy (Caddy sets X-Forwarded-Proto): the site, with HSTS.
        status, headers, _ = _get(port, "/", **{"X-Forwarded-Proto": "https"})
        assert status == 200 and "max-age=31536000" in headers["Strict-Transport-Security"]
        # Plain http is sent to https; a host name not in DJANGO_ALLOWED_HOSTS gets 400.
        status, headers, _ = _get(port, "/")
        assert status == 301 and headers["Location"] == f"https://{HOST}/"
        assert _get(port, "/", Host="elsewhere.example", **{"X-Forwarded-Proto": "https"})[0] == 400

        # The worker and beat are seen (what /status/ lists), and /metrics adds up both
        # gunicorn workers' requests and reports both heartbeats.
        def both_seen() -> bool:
            text = _get(port, "/metrics", Authorization=f"Bearer {METRICS_TOKEN}")[2].decode()
            return 'role="worker"' in text and 'role="beat"' in text

        wait_until(both_seen, timeout=60, interval=0.5)
        assert _get(port, "/metrics")[0] == 401
        metrics = _get(port, "/metrics", Authorization=f"Bearer {METRICS_TOKEN}")[2].decode()
        served = re.search(
            r'podium_http_request_duration_seconds_count\{method="GET",status="2xx",'
            r'view="benchmark-index"\} (\d+)', metrics
        )  # fmt: skip
        assert served and int(float(served.group(1))) >= 1, metrics[:2000]
        admin = manage(
            "shell", "-c",
            "from django.contrib.auth import get_user_model;"
            "u = get_user_model().objects.get(username='admin'); print(u.is_staff, u.is_superuser)",
        )  # fmt: skip
        assert admin.strip().splitlines()[-1] == "True True"
    finally:
        for process in reversed(processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        log.close()
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        import redis

        redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(queue, f"{queue}-bulk")
