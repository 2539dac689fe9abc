"""A real worker killed (SIGKILL) mid-run: its version stays marked computing, and as
soon as its lease has run out the status says so ("computing 15 %" was shown
for minutes with nothing running it): stalled, listed as orphaned, on /metrics."""

from __future__ import annotations

from datetime import timedelta

import pytest

from estimation.activity import COMPUTING, STALLED, recompute_activity, version_problems
from estimation.models import RecomputeState, ResultSnapshot
from leaderboard.models import Submission
from tests.factories import make_benchmark
from tests.processes import celery_worker_process, wait_until
from tests.test_faults import big_entries

pytestmark = pytest.mark.integration


def test_a_killed_workers_version_is_stalled_once_its_lease_runs_out(transactional_db, settings):
    from leaderboard.services import submissions_create

    settings.RECOMPUTE_LEASE_SECONDS = 2
    settings.PODIUM_MAX_BOOTSTRAP = 5000  # a long run to kill
    benchmark = make_benchmark(slug="killed-status", bootstrap_size=5000)
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=big_entries(m=60, n=500),
        source=Submission.Source.IMPORT,
    )
    with celery_worker_process(PODIUM_RECOMPUTE_LEASE_SECONDS="2") as worker:
        orphan = wait_until(
            lambda: ResultSnapshot.objects.filter(
                benchmark=benchmark, status=ResultSnapshot.Status.COMPUTING
            ).first(),
            timeout=90,
            interval=0.005,
        )
        state = RecomputeState.objects.get(pk=benchmark.pk)
        # Asked at a moment the lease still holds (the clock given, not the machine's).
        alive_at = state.lease_expires_at - timedelta(milliseconds=1)
        assert recompute_activity(benchmark_id=benchmark.pk, now=alive_at).state == COMPUTING
        worker.kill()
        worker.wait(timeout=30)
    expired = RecomputeState.objects.get(pk=benchmark.pk).lease_expires_at + timedelta(seconds=1)
    activity = recompute_activity(benchmark_id=benchmark.pk, now=expired)
    assert activity.state == STALLED and activity.orphaned_version == orphan.version
    problems = version_problems(benchmark_ids=[benchmark.pk], now=expired)
    assert [(p.version, p.kind) for p in problems] == [(orphan.version, "orphaned")]
