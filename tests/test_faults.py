"""Faults the pipeline must survive, with real processes, PostgreSQL and Redis."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from estimation.models import RecomputeState, ResultSnapshot
from estimation.selectors import snapshot_board
from estimation.services import recompute_stale_enqueue
from leaderboard.models import Benchmark, Submission
from tests.factories import make_benchmark
from tests.processes import (
    ROOT,
    SHUTDOWN_SECONDS,
    celery_worker_process,
    subprocess_env,
    wait_until,
)

pytestmark = pytest.mark.integration


SUBMIT_SCRIPT = textwrap.dedent(
    """
    import django
    django.setup()
    from django.contrib.auth import get_user_model
    from leaderboard.models import Benchmark
    from leaderboard.services import ScoreInput, SubmissionInput, submission_create

    benchmark = Benchmark.objects.get(slug="redis-down")
    user = get_user_model().objects.create_user(username="offline-researcher")
    for algorithm, values in {"a": (0.9, 0.2), "b": (0.5, 0.6)}.items():
        scores = [ScoreInput(dataset=f"d{i}", value=v) for i, v in enumerate(values)]
        submission_create(
            benchmark=benchmark, submitter=user, entry=SubmissionInput(algorithm, scores)
        )
    print("saved")
    """
)


def test_redis_down_at_submission_time_loses_nothing(celery_worker):
    benchmark = make_benchmark(slug="redis-down", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    result = subprocess.run(
        [sys.executable, "-c", SUBMIT_SCRIPT],
        cwd=ROOT,
        env=subprocess_env(REDIS_URL="redis://127.0.0.1:1/0"),  # nothing listens there
        capture_output=True,
        text=True,
        # A hang guard, not a speed claim: a dead broker must not hang the submitter
        # (TimeoutExpired fails the test); refused at once here, it leaves a wide margin.
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "saved"
    assert "could not enqueue the recompute" in result.stderr
    assert Submission.objects.filter(benchmark=benchmark, status="accepted").count() == 2
    assert RecomputeState.objects.get(pk=benchmark.pk).is_stale
    assert not ResultSnapshot.objects.filter(benchmark=benchmark).exists()

    # Redis is back (this test's worker uses the real one): the sweep catches up.
    assert recompute_stale_enqueue() == [benchmark.pk]
    snapshot = wait_until(
        lambda: ResultSnapshot.objects.filter(benchmark=benchmark, status="ready").first()
    )
    assert snapshot_board(snapshot=snapshot).algorithms == ("a", "b")
    wait_until(lambda: not RecomputeState.objects.get(pk=benchmark.pk).is_stale)


def big_entries(m: int, n: int, seed: int = 0):
    import numpy as np

    from leaderboard.services import ScoreInput, SubmissionInput

    rng = np.random.default_rng(seed)
    scores = rng.normal(0.0, 1.0, size=m)[None, :] * 0.3 + rng.normal(0.0, 1.0, size=(n, m))
    return [
        SubmissionInput(
            algorithm=f"alg-{j:03d}",
            scores=[ScoreInput(dataset=f"d{i:04d}", value=float(scores[i, j])) for i in range(n)],
        )
        for j in range(m)
    ]


def test_a_worker_killed_mid_run_leaves_nothing_half_written(transactional_db, settings, redis_url):
    from celery.contrib.testing.worker import start_worker

    from config.celery import app
    from estimation.selectors import snapshot_latest
    from leaderboard.services import submissions_create

    settings.RECOMPUTE_LEASE_SECONDS = 2
    settings.PODIUM_MAX_BOOTSTRAP = 5000  # a long run to kill; above the default limit
    benchmark = make_benchmark(slug="killed", bootstrap_size=5000)
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=big_entries(m=60, n=500),
        source=Submission.Source.IMPORT,
    )  # committed: the recompute task is now waiting in Redis
    with celery_worker_process(PODIUM_RECOMPUTE_LEASE_SECONDS="2") as worker:
        # The snapshot is served before its bootstrap: kill while the rest is computed
        # (about 0.1 s at this size; any computing stage writes no section yet).
        orphan = wait_until(
            lambda: ResultSnapshot.objects.filter(
                benchmark=benchmark, status=ResultSnapshot.Status.COMPUTING
            ).first(),
            timeout=90,
            interval=0.005,
        )
        worker.kill()  # SIGKILL in the middle of the analysis
        worker.wait(timeout=30)
    orphan.refresh_from_db()
    assert orphan.status == ResultSnapshot.Status.COMPUTING and not orphan.sections.exists()
    assert snapshot_latest(benchmark=benchmark) is None  # nothing half-written is served

    # The dead worker's lease runs out; the sweep hands the work to a live worker.
    wait_until(lambda: recompute_stale_enqueue() == [benchmark.pk], timeout=30, interval=0.5)
    with start_worker(
        app, pool="solo", perform_ping_check=False, shutdown_timeout=SHUTDOWN_SECONDS
    ):
        ready = wait_until(lambda: snapshot_latest(benchmark=benchmark), timeout=120, interval=0.2)
    assert ready.version == orphan.version + 1
    assert len(snapshot_board(snapshot=ready).algorithms) == 60
    orphan.refresh_from_db()
    assert orphan.status == ResultSnapshot.Status.FAILED and orphan.error.startswith("abandoned")
    assert not RecomputeState.objects.get(pk=benchmark.pk).is_stale


def test_concurrent_uploads_of_the_same_file_store_it_once(transactional_db):
    import threading

    from django.db import connection

    from leaderboard.services import submissions_create
    from tests.factories import make_user

    benchmark = make_benchmark(slug="race")
    user = make_user("uploader")
    entries = big_entries(m=3, n=50)
    barrier = threading.Barrier(4)
    results, errors = [], []

    def upload() -> None:
        try:
            barrier.wait()
            stored = submissions_create(
                benchmark=benchmark, submitter=user, entries=entries, idempotency_key="file-1"
            )
            results.append(sorted(s.pk for s in stored))
        except Exception as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=upload) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(results) == 4 and all(r == results[0] for r in results)
    assert Submission.objects.filter(benchmark=benchmark).count() == 3
