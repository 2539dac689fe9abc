"""A whole Podium of its own for fault tests: scratch PostgreSQL and Redis, and gunicorn.

The tests here stop and start the database and the cache, so they never touch the
machine's shared servers: ``stack`` (one per session, made
when a test here first asks for it) makes a PostgreSQL cluster with
``initdb`` in a temporary folder on a free port, a ``redis-server`` on another, migrates
the database, seeds a small open benchmark with computed results, users and API tokens,
and serves it with gunicorn (production settings, tests/reliability/settings.py: plain
http, static files from the app folders, throttles off). Every
process it started is stopped at the end, whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench.scratch_services import ScratchPostgres, ScratchRedis, free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent
SLUG = "rel"
WRITERS = 8


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


SEED = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from leaderboard.models import Benchmark
from leaderboard.services import (
    ScoreInput, SubmissionInput, api_token_create, benchmark_create, submissions_create,
)

User = get_user_model()
maintainer = User.objects.create_user(username="maintainer", password="pw-maintainer-1")
benchmark = benchmark_create(
    slug="%(slug)s", title="Reliability", metrics=[("accuracy", "higher")],
    submission_policy=Benchmark.SubmissionPolicy.OPEN, bootstrap_size=100, creator=maintainer,
)
values = [[0.9, 0.8, 0.85, 0.7, 0.95, 0.6], [0.7, 0.75, 0.8, 0.65, 0.9, 0.5],
          [0.6, 0.7, 0.6, 0.8, 0.7, 0.55], [0.5, 0.6, 0.7, 0.6, 0.65, 0.45]]
entries = [
    SubmissionInput(algorithm=f"alg-{j}", scores=[
        ScoreInput(dataset=f"data-{'abcdef'[i]}", value=v) for i, v in enumerate(row)
    ]) for j, row in enumerate(values)
]
submissions_create(benchmark=benchmark, submitter=maintainer, entries=entries,
                   new_datasets_confirmed=True)
tokens = {"maintainer": api_token_create(user=maintainer, name="tests")[1]}
for i in range(%(writers)d):
    user = User.objects.create_user(username=f"writer-{i}", password="pw-writer-123")
    tokens[user.username] = api_token_create(user=user, name="tests")[1]
session = SessionStore()
session[SESSION_KEY] = str(maintainer.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = maintainer.get_session_auth_hash()
session.create()
from estimation.services import recompute_run
snapshots = recompute_run(benchmark_id=benchmark.pk, owner="reliability-seed")
assert [s.status for s in snapshots] == ["ready"], snapshots
print("SEED " + json.dumps({"tokens": tokens, "session": session.session_key}))
"""


@dataclass
class Stack:
    postgres: ScratchPostgres
    redis: ScratchRedis
    env: dict[str, str]
    base_url: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    session: str = ""
    server: subprocess.Popen | None = None
    server_log: Path | None = None

    def manage(self, *argv: str, timeout: float = 300) -> str:
        return self.manage_wait(self.manage_start(*argv), timeout=timeout)

    def manage_start(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "manage.py", *argv],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def manage_wait(self, process: subprocess.Popen, timeout: float = 300) -> str:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        if process.returncode != 0:
            raise RuntimeError(f"{process.args[2:4]} failed:\n{stderr[-3000:]}")
        return stdout

    def start_server(self, log: Path) -> None:
        port = free_port()
        self.server_log = log
        with log.open("ab") as out:
            self.server = subprocess.Popen(
                [
                    str(BIN / "gunicorn"),
                    "config.wsgi",
                    f"--bind=127.0.0.1:{port}",
                    "--workers=2",
                    "--worker-class=gthread",
                    "--threads=8",
                    "--timeout=60",
                    # gunicorn answers an over-long request line itself, in HTML, before
                    # Podium sees it; unlimited here so that the fuzzer's long queries
                    # reach the API's own checks.
                    "--limit-request-line=0",
                    "--log-level=warning",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for_port(port, self.server)
        self.base_url = f"http://127.0.0.1:{port}"

    def stop_server(self) -> None:
        if self.server is None:
            return
        if self.server.poll() is None:
            self.server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.server.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.server.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.server.wait(timeout=10)
        self.server = None

    def auth(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Token {self.tokens[user]}"}

    def server_errors(self) -> str:
        """What the server logged at error level (tracebacks of 500s)."""
        if self.server_log is None or not self.server_log.exists():
            return ""
        return self.server_log.read_text(errors="replace")


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    root = Path(tempfile.mkdtemp(prefix="podium-reliability-"))
    postgres = ScratchPostgres(root, durable=False)  # fast: these tests are not about fsync
    redis = ScratchRedis()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "REDIS_", "CELERY_", "DJANGO_", "PODIUM_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="tests.reliability.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="off",
        DJANGO_SECURE_COOKIES="off",
        DJANGO_SECURE_HSTS_SECONDS="0",
        DATABASE_URL=postgres.url(),
        REDIS_URL=redis.url,
        CELERY_QUEUE=f"podium-reliability-{os.getpid()}",
        PODIUM_LOG_LEVEL="WARNING",
        PODIUM_THROTTLE_ANON="",
        PODIUM_THROTTLE_USER="",
        PODIUM_THROTTLE_SUBMIT="",
        PODIUM_THROTTLE_BENCHMARK_SUBMIT="",
        PODIUM_THROTTLE_PAGE_MISS="",
        PODIUM_CACHE_RETRY_SECONDS="1",
        PODIUM_METRICS_NETWORKS="127.0.0.0/8",
    )
    stack = Stack(postgres=postgres, redis=redis, env=env)
    try:
        postgres.init()
        postgres.start()
        with postgres.connect("postgres") as connection:
            connection.execute("CREATE DATABASE podium")
        redis.start()
        stack.manage("migrate", "--noinput", "-v", "0")
        seeded = stack.manage("shell", "-c", SEED % {"slug": SLUG, "writers": WRITERS})
        line = next(x for x in seeded.splitlines() if x.startswith("SEED "))
        data = json.loads(line.removeprefix("SEED "))
        stack.tokens, stack.session = data["tokens"], data["session"]
        stack.start_server(root / "gunicorn.log")
        yield stack
    finally:
        stack.stop_server()
        redis.stop()
        postgres.stop_quietly()
        shutil.rmtree(root, ignore_errors=True)
