"""A scratch PostgreSQL database, a Redis queue of our own, and the processes on them.

:class:`Scratch` creates ``podium_bench_<pid>``, migrates it, configures Django in this
process against it (production settings, throttling off), starts Celery workers and
gunicorn on request, and on exit stops every process it started and drops the database
and the Redis keys of its queue, whatever happened in between.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

from bench.common import ROOT
from bench.scratch_services import free_port, wait_for_port

POSTGRES = os.environ.get("PODIUM_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("PODIUM_BENCH_REDIS", "redis://127.0.0.1:6379/13")
BIN = Path(sys.executable).parent


class Scratch:
    def __init__(self) -> None:
        tag = f"{os.getpid()}"
        self.database = f"podium_bench_{tag}"
        self.queue = f"podium-bench-{tag}"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DATABASE_", "REDIS_", "CELERY_", "DJANGO_", "PODIUM_"))
        }
        self.env.update(
            DJANGO_SETTINGS_MODULE="config.settings.production",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            # The bench talks plain http on loopback; production's https redirect would
            # answer every request with a 301.
            DJANGO_SECURE_SSL_REDIRECT="false",
            DATABASE_URL=f"{POSTGRES}/{self.database}",
            REDIS_URL=REDIS_URL,
            CELERY_QUEUE=self.queue,
            PODIUM_CACHE_PREFIX=self.queue,
            PODIUM_LOG_LEVEL="WARNING",
            PODIUM_THROTTLE_ANON="",
            PODIUM_THROTTLE_USER="",
            PODIUM_THROTTLE_SUBMIT="",
            PODIUM_THROTTLE_BENCHMARK_SUBMIT="",
        )
        self.processes: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self._created = False

    # --- lifecycle ------------------------------------------------------------------

    def __enter__(self) -> Scratch:
        import psycopg

        try:
            with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{self.database}"')
            self._created = True
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                cwd=ROOT,
                env=self.env,
                check=True,
                timeout=300,
            )
            # This process talks to the same database, broker and cache as the workers it
            # starts: a caller's PODIUM_CACHE_URL (say) would otherwise split the pipeline's
            # marks between two Redis databases, and the workers would never see a request.
            for key in [k for k in os.environ if k.endswith("_URL") and k not in self.env]:
                del os.environ[key]
            os.environ.update(self.env)
            import django

            django.setup()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, exc_type, *exc_info) -> None:
        for process in reversed(self.processes):
            self.stop(process)
        if exc_type is None:  # keep the worker/server logs only when something failed
            for log in self.logs:
                log.unlink(missing_ok=True)
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if self._created:
            import psycopg

            with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            self._created = False
        self.purge_queue()

    def purge_queue(self) -> None:
        """Delete our queue and any unacknowledged message of it (kombu keeps those in
        the shared ``unacked`` hash of the Redis database)."""
        import json

        import redis

        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        keys = [self.queue, f"_kombu.binding.{self.queue}", *client.keys(f"*{self.queue}*")]
        client.delete(*keys)
        for tag, raw in client.hgetall("unacked").items():
            try:
                routing_key = json.loads(raw)[2]
            except (ValueError, IndexError, TypeError):
                continue
            if routing_key == self.queue:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)

    # --- processes ------------------------------------------------------------------

    def start(
        self, argv: list[str], *, log_name: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        """A child in its own process group (so that its own children stop with it)."""
        path = Path("/tmp") / f"{self.queue}-{log_name}.log"
        self.logs.append(path)
        log = path.open("wb")
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**self.env, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        process.log_path = log.name  # type: ignore[attr-defined]
        log.close()
        self.processes.append(process)
        return process

    def stop(self, process: subprocess.Popen) -> None:
        """SIGTERM to the process (a warm shutdown: Celery finishes its task, gunicorn its
        requests), then SIGKILL to whatever is left of its process group."""
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        if process in self.processes:
            self.processes.remove(process)

    def start_worker(self, *, concurrency: int = 1) -> subprocess.Popen:
        return self.start(
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                f"--queues={self.queue},{self.queue}-bulk",
                f"--concurrency={concurrency}",
                "--loglevel=WARNING",
                "--without-gossip",
                "--without-mingle",
                f"--hostname=bench-{self.queue}@%h",
            ],
            log_name="worker",
        )

    def start_gunicorn(self, *, workers: int | None = None, port: int | None = None):
        """gunicorn with the production config (config/gunicorn.py: its timeouts, worker
        recycling after ``max_requests``, access log), on a loopback port; ``workers``
        overrides the config's count. Static files are collected first (WhiteNoise
        serves them from STATIC_ROOT, as in the Docker image)."""
        port = port or free_port()
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=300,
        )
        env = {"GUNICORN_BIND": f"127.0.0.1:{port}"}
        if workers is not None:
            env["GUNICORN_WORKERS"] = str(workers)
        process = self.start(
            [
                str(BIN / "gunicorn"),
                "-c",
                str(ROOT / "config" / "gunicorn.py"),
                "config.wsgi",
                "--log-level=warning",
                "--backlog=2048",
            ],
            log_name="gunicorn",
            env=env,
        )
        wait_for_port(port, process)
        return f"http://127.0.0.1:{port}", process
