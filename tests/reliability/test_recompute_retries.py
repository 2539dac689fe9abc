"""A recompute that loses PostgreSQL retries until it is back (two short stops
used up the tasks' retries, 2 + 4 + 8 + 16 + 32 s with jitter, and a benchmark waited
452 s). A real worker against the scratch cluster, which is stopped and started again;
no beat runs here, so only the task's own retries can bring the results up to date."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from estimation.tasks import retry_budget_seconds
from operations.queues import PRIORITY_SUFFIXES
from tests.processes import wait_until
from tests.reliability.conftest import ROOT, SLUG

OUTAGE_SECONDS = 10

BUMP = f"""
from estimation.requests import revision_bump
from estimation.models import RecomputeState
from leaderboard.models import Benchmark
benchmark = Benchmark.objects.get(slug="{SLUG}")
revision_bump(benchmark_id=benchmark.pk)
print("BUMPED", benchmark.pk, RecomputeState.objects.get(pk=benchmark.pk).requested_revision)
"""


def test_the_default_retry_budget_outlasts_a_database_outage_of_minutes(settings):
    assert retry_budget_seconds() >= 180
    # the test below, scaled down: its outage fits its budget with room to spare
    assert retry_budget_seconds(retries=8, backoff=1, cap=4) >= 2 * OUTAGE_SECONDS


def _revisions(stack, benchmark_id: int) -> tuple[int, int] | None:
    try:
        with stack.postgres.connect() as connection:
            row = connection.execute(
                "SELECT computed_revision, requested_revision FROM estimation_recomputestate "
                "WHERE benchmark_id = %s",
                [benchmark_id],
            ).fetchone()
    except Exception:  # still starting
        return None
    return (int(row[0]), int(row[1])) if row else None


def test_a_recompute_retries_across_a_database_outage(stack, tmp_path):
    import redis
    from celery import Celery

    queue = stack.env["CELERY_QUEUE"]
    client = redis.Redis.from_url(stack.redis.url)
    # the tasks the seed's submissions queued (it computed their results itself)
    client.delete(
        *[name + suffix for name in (queue, f"{queue}-bulk") for suffix in PRIORITY_SUFFIXES]
    )
    client.close()
    line = next(
        x for x in stack.manage("shell", "-c", BUMP).splitlines() if x.startswith("BUMPED ")
    )
    benchmark_id, requested = (int(x) for x in line.split()[1:])
    stack.postgres.stop()  # before the worker starts: its first attempt meets the outage
    env = {
        **stack.env,
        "PODIUM_RECOMPUTE_TASK_BACKOFF_SECONDS": "1",
        "PODIUM_RECOMPUTE_TASK_BACKOFF_MAX_SECONDS": "4",
        "PODIUM_RECOMPUTE_TASK_RETRIES": "8",
        "PODIUM_LOG_LEVEL": "INFO",
    }
    log = (tmp_path / "worker.log").open("wb")
    down = True
    worker = subprocess.Popen(
        [
            sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
            f"--queues={queue},{queue}-bulk", "--without-gossip", "--without-mingle",
            "--without-heartbeat", "--loglevel=INFO",
        ],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    broker = Celery(broker=stack.redis.url)
    worker_log = tmp_path / "worker.log"

    def logged(text: str) -> bool:
        return text in worker_log.read_text(errors="replace")

    try:
        wait_until(lambda: logged("ready."), timeout=120, interval=0.2)  # a hang guard
        broker.send_task(
            "estimation.recompute_benchmark",
            args=(benchmark_id,),
            kwargs={"slot": None},
            queue=queue,
        )
        # the outage: the task fails and retries meanwhile (a first retry seen, then the
        # rest of the outage)
        wait_until(lambda: logged("Retry in"), timeout=60, interval=0.2)
        time.sleep(OUTAGE_SECONDS)
        stack.postgres.start()
        down = False
        revisions = wait_until(
            lambda: (r := _revisions(stack, benchmark_id)) and r[0] >= requested and r,
            timeout=120,
            interval=0.5,
        )
        assert revisions[0] == revisions[1]
        with stack.postgres.connect() as connection:
            computing = connection.execute(
                "SELECT count(*) FROM estimation_resultsnapshot WHERE status = 'computing'"
            ).fetchone()
        assert computing is not None and computing[0] == 0
    finally:
        if down:
            stack.postgres.start()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        log.close()
        broker.close()
    text = worker_log.read_text(errors="replace")
    assert text.count("Retry in") >= 2, text[-3000:]  # it failed and retried, repeatedly
