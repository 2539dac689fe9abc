"""Faults the pipeline must survive, with real processes, PostgreSQL and Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from django.conf import settings

from estimation.models import RecomputeState, ResultSnapshot
from estimation.services import recompute_stale_enqueue
from leaderboard.models import Benchmark, Submission
from tests.factories import make_benchmark

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[1]


def subprocess_env(**overrides: str) -> dict[str, str]:
    """The environment of a second Podium process sharing this test's database and queue."""
    db = settings.DATABASES["default"]
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "CELERY_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=settings.CELERY_BROKER_URL,
        CELERY_QUEUE=settings.CELERY_TASK_DEFAULT_QUEUE,
    )
    env.update(overrides)
    return env


def wait_until(predicate, timeout: float = 30.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


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
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", SUBMIT_SCRIPT],
        cwd=ROOT,
        env=subprocess_env(REDIS_URL="redis://127.0.0.1:1/0"),  # nothing listens there
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "saved"
    assert "could not enqueue the recompute" in result.stderr
    assert time.monotonic() - started < 60, "a dead broker must not hang the submitter"
    assert Submission.objects.filter(benchmark=benchmark, status="accepted").count() == 2
    assert RecomputeState.objects.get(pk=benchmark.pk).is_stale
    assert not ResultSnapshot.objects.filter(benchmark=benchmark).exists()

    # Redis is back (this test's worker uses the real one): the sweep catches up.
    assert recompute_stale_enqueue() == [benchmark.pk]
    snapshot = wait_until(
        lambda: ResultSnapshot.objects.filter(benchmark=benchmark, status="ready").first()
    )
    assert snapshot.payload["input"]["algorithms"] == ["a", "b"]
    wait_until(lambda: not RecomputeState.objects.get(pk=benchmark.pk).is_stale)
