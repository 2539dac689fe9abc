"""Throwaway PostgreSQL clusters and Redis servers on free ports, for the soak
(bench/stack.py) and the fault tests (tests/reliability/conftest.py): both stop and
start them, so neither may touch the machine's shared servers.

The soak wants production's durability (fsync on; Redis as compose runs it), the tests
want speed (``durable=False``: fsync off; Redis without persistence).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

# Redis with nothing written to disk (the tests' default).
REDIS_EPHEMERAL = ("--save", "", "--appendonly", "no")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(
    port: int, process: subprocess.Popen | None = None, timeout: float = 30.0
) -> None:
    """Until something listens on ``port``; raises if ``process`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process {process.pid} exited early (code {process.returncode})")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("no initdb under /usr/lib/postgresql/*/bin (scripts/ensure_services.sh)")
    return Path(found[-1]).parent


class ScratchPostgres:
    """A throwaway cluster in ``root``: init, start, stop (fast shutdown, as ``docker
    compose stop db``: sessions cut off, their transactions rolled back) and start again.
    ``durable``: PostgreSQL's default durability; else fsync off, for speed."""

    def __init__(self, root: Path, *, durable: bool = True) -> None:
        self.bin = postgres_bin()
        self.data = root / "pgdata"
        self.log = root / "postgres.log"
        self.port = free_port()
        self.durable = durable
        # initdb and postgres refuse to run as root: the postgres account then.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(root, "postgres")

    def _run(self, *argv: str, timeout: float = 120) -> None:
        subprocess.run(
            [*self.as_user, *argv],
            check=True,
            timeout=timeout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def init(self) -> None:
        argv = [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust"]
        self._run(*argv, "-E", "UTF8", *([] if self.durable else ["--no-sync"]))

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data}"
        if not self.durable:
            options += (
                " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                " -c max_connections=100"
            )
        pg_ctl = str(self.bin / "pg_ctl")
        self._run(pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def stop_quietly(self) -> None:
        with contextlib.suppress(Exception):
            pg_ctl = str(self.bin / "pg_ctl")
            self._run(pg_ctl, "-D", str(self.data), "-m", "immediate", "stop", timeout=30)

    def url(self, database: str = "podium") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "podium"):
        import psycopg

        return psycopg.connect(self.url(database), autocommit=True, connect_timeout=5)


class ScratchRedis:
    """A ``redis-server`` on a free port with ``options``; restartable on the same port
    (and, when persistent, the same append-only file in ``root/name``)."""

    def __init__(
        self,
        root: Path | None = None,
        name: str = "redis",
        options: tuple[str, ...] | list[str] = REDIS_EPHEMERAL,
    ) -> None:
        self.dir = None if root is None else root / name
        if self.dir is not None:
            self.dir.mkdir()
        self.port = free_port()
        self.options = list(options)
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        argv = [shutil.which("redis-server") or "redis-server", "--port", str(self.port)]
        argv += ["--bind", "127.0.0.1", *(["--dir", str(self.dir)] if self.dir else [])]
        self.process = subprocess.Popen(
            [*argv, *self.options],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        """SIGTERM (as ``docker compose restart`` sends: Redis writes its file and leaves),
        then SIGKILL if it lingers."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"
