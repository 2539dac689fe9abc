"""A production-like Podium on scratch resources, for the soak (``python -m bench soak``).

:class:`Stack` makes a PostgreSQL cluster of its own (``initdb`` in a temporary folder,
a free port, default durability), two ``redis-server`` processes run as
docker-compose.yml runs its ``redis`` (the broker and counters: append-only,
``volatile-lru``) and ``cache`` (pages: no persistence, ``allkeys-lru``), migrates,
and starts gunicorn with ``config/gunicorn.py``, the two Celery workers of compose
(``podium`` with two processes, ``podium-bulk`` with one) and beat, all with the
production settings. A supervisor thread restarts a worker that died, as compose's
restart policy would. Everything it started is stopped at the end, whatever happened:
nothing here touches the machine's shared PostgreSQL or Redis, so the soak may stop
them (:meth:`postgres_stop`, :meth:`redis_restart`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT
from bench.scratch_services import ScratchPostgres, ScratchRedis, free_port, wait_for_port

BIN = Path(sys.executable).parent
DEFAULT_QUEUE = "podium"
BULK_QUEUE = "podium-bulk"


@dataclass(frozen=True)
class WorkerSpec:
    """One of compose's Celery services: its queue and process count."""

    name: str
    queue: str
    concurrency: int


# docker-compose.yml's ``worker`` and ``worker-bulk``.
COMPOSE_WORKERS = (
    WorkerSpec("worker", DEFAULT_QUEUE, 2),
    WorkerSpec("worker-bulk", BULK_QUEUE, 1),
)


def stack_env(postgres: ScratchPostgres, redis: ScratchRedis, cache: ScratchRedis) -> dict:
    """compose's environment (x-podium-env) on the scratch servers: production settings,
    plain http on loopback, throttles off (the load comes from a few accounts on one
    address), mail to the log, /metrics open to loopback."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "REDIS_", "CELERY_", "DJANGO_", "PODIUM_", "GUNICORN_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="off",
        DJANGO_SECURE_COOKIES="off",
        DJANGO_SECURE_HSTS_SECONDS="0",
        DJANGO_EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend",
        DATABASE_URL=postgres.url(),
        REDIS_URL=redis.url,
        CELERY_BROKER_URL=redis.url,
        PODIUM_PAGE_CACHE_URL=cache.url,
        PODIUM_THROTTLE_ANON="",
        PODIUM_THROTTLE_USER="",
        PODIUM_THROTTLE_SUBMIT="",
        PODIUM_THROTTLE_BENCHMARK_SUBMIT="",
        PODIUM_THROTTLE_PAGE_MISS="",
        PODIUM_METRICS_NETWORKS="127.0.0.0/8",
        OPENBLAS_NUM_THREADS="1",
    )
    return env


class Stack:
    """The servers and processes; a context manager that always cleans up."""

    def __init__(
        self,
        *,
        gunicorn_workers: int | None = None,
        restart_delay: float = 2.0,
        keep_logs: Path | None = None,
    ):
        self.keep_logs = keep_logs  # where the processes' logs are copied at the end
        self.root = Path(tempfile.mkdtemp(prefix="podium-soak-"))
        self.postgres = ScratchPostgres(self.root)
        self.redis = ScratchRedis(
            self.root,
            "redis",
            ["--appendonly", "yes", "--maxmemory", "256mb", "--maxmemory-policy", "volatile-lru"],
        )
        self.cache = ScratchRedis(
            self.root,
            "cache",
            [
                "--save",
                "",
                "--appendonly",
                "no",
                "--maxmemory",
                "256mb",
                "--maxmemory-policy",
                "allkeys-lru",
            ],
        )
        self.env = stack_env(self.postgres, self.redis, self.cache)
        self.gunicorn_workers = gunicorn_workers
        self.restart_delay = restart_delay
        self.base_url = ""
        self.gunicorn: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.beat: subprocess.Popen | None = None
        self.restarts: list[tuple[str, float]] = []  # (worker, monotonic time it was restarted)
        self._lock = threading.Lock()
        self._supervising = threading.Event()
        self._supervisor: threading.Thread | None = None
        self._postgres_up = False

    # --- lifecycle ------------------------------------------------------------------

    def __enter__(self) -> Stack:
        try:
            self.postgres.init()
            self.postgres.start()
            self._postgres_up = True
            import psycopg

            with psycopg.connect(self.postgres.url("postgres"), autocommit=True) as conn:
                conn.execute("CREATE DATABASE podium")
            self.redis.start()
            self.cache.start()
            self.manage("migrate", "--noinput", "-v", "0")
            self.manage("collectstatic", "--noinput", "-v", "0")
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self._supervising.clear()
        if self._supervisor is not None:
            self._supervisor.join(timeout=10)
        for process in [self.beat, *self.workers.values(), self.gunicorn]:
            if process is not None:
                _stop_group(process)
        self.redis.stop()
        self.cache.stop()
        self.postgres.stop_quietly()
        if self.keep_logs is not None:
            self.logs_copy(self.keep_logs)
        shutil.rmtree(self.root, ignore_errors=True)

    def logs_copy(self, folder: Path) -> list[Path]:
        """Copy every process's log (gunicorn, each worker, beat, the servers') into
        ``folder``: the scratch root, cluster and all, goes at the end."""
        folder.mkdir(parents=True, exist_ok=True)
        return [Path(shutil.copy2(log, folder)) for log in sorted(self.root.glob("*.log"))]

    def manage(self, *argv: str, timeout: float = 600) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *argv],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {argv[0]} failed:\n{result.stderr[-3000:]}")
        return result.stdout

    def _spawn(self, argv: list[str], log_name: str, **extra_env: str) -> subprocess.Popen:
        with (self.root / f"{log_name}.log").open("ab") as log:
            return subprocess.Popen(
                argv,
                cwd=ROOT,
                env={**self.env, **extra_env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a kill of the group takes the pool's children too
            )

    # --- the processes --------------------------------------------------------------

    def start_gunicorn(self) -> None:
        port = free_port()
        extra = {"GUNICORN_BIND": f"127.0.0.1:{port}"}
        if self.gunicorn_workers is not None:
            extra["GUNICORN_WORKERS"] = str(self.gunicorn_workers)
        config = str(ROOT / "config" / "gunicorn.py")
        argv = [str(BIN / "gunicorn"), "-c", config, "config.wsgi:application"]
        self.gunicorn = self._spawn(argv, "gunicorn", **extra)
        wait_for_port(port, self.gunicorn, timeout=120)
        self.base_url = f"http://127.0.0.1:{port}"

    def start_worker(self, spec: WorkerSpec) -> None:
        argv = [str(BIN / "celery"), "-A", "config", "worker", "--loglevel=INFO"]
        argv += [f"--queues={spec.queue}", f"--concurrency={spec.concurrency}"]
        argv += [f"--hostname={spec.name}@%h"]
        with self._lock:
            self.workers[spec.name] = self._spawn(argv, spec.name)

    def start_beat(self) -> None:
        schedule = str(self.root / "celerybeat-schedule")
        argv = [str(BIN / "celery"), "-A", "config", "beat", "--loglevel=INFO"]
        self.beat = self._spawn([*argv, f"--schedule={schedule}"], "beat")

    def start_all(self) -> None:
        self.start_gunicorn()
        for spec in COMPOSE_WORKERS:
            self.start_worker(spec)
        self.start_beat()
        self._supervising.set()
        self._supervisor = threading.Thread(target=self._supervise, daemon=True)
        self._supervisor.start()

    def _supervise(self) -> None:
        """Restart a worker that exited, ``restart_delay`` s after it was seen dead."""
        specs = {spec.name: spec for spec in COMPOSE_WORKERS}
        while self._supervising.is_set():
            for name, process in list(self.workers.items()):
                if process.poll() is not None and self._supervising.is_set():
                    time.sleep(self.restart_delay)
                    _stop_group(process)  # orphaned pool processes of a killed master
                    self.start_worker(specs[name])
                    with self._lock:
                        self.restarts.append((name, time.monotonic()))
            time.sleep(0.5)

    # --- faults ---------------------------------------------------------------------

    def kill_worker(self, name: str) -> float:
        """SIGKILL to the worker's whole process group (a container's processes die
        together); returns when the supervisor has started its replacement."""
        with self._lock:
            process = self.workers[name]
            restarted = len(self.restarts)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.restarts) > restarted:
                    return self.restarts[-1][1]
            time.sleep(0.1)
        raise RuntimeError(f"the supervisor did not restart {name} within 60 s")

    def kill_gunicorn_worker(self) -> int:
        """SIGKILL to one of gunicorn's workers (its master forks a new one)."""
        assert self.gunicorn is not None
        children = child_pids(self.gunicorn.pid)
        if not children:
            raise RuntimeError("gunicorn has no worker to kill")
        os.kill(children[0], signal.SIGKILL)
        return children[0]

    def postgres_stop(self) -> None:
        self.postgres.stop()
        self._postgres_up = False

    def postgres_start(self) -> None:
        self.postgres.start()
        self._postgres_up = True

    def redis_restart(self, down_seconds: float) -> None:
        self.redis.stop()
        time.sleep(down_seconds)
        self.redis.start()

    def log_text(self, name: str) -> str:
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def child_pids(parent: int) -> list[int]:
    """The pids whose parent is ``parent`` (from /proc; no psutil needed)."""
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(stat.split("/")[2]))
    return sorted(found)


def _stop_group(process: subprocess.Popen) -> None:
    """Stop as ``docker stop`` does: SIGTERM to the main process only (a Celery worker's
    warm shutdown, gunicorn's graceful one; a SIGTERM to the whole group killed the pool
    processes under their tasks, which logged as lost workers), then SIGKILL to what
    is left of the group."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
