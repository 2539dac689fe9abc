"""The sweep finds a served version left without its advisor (estimation/completion.py)
and nothing else: a complete version, or one a live run holds, is left alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from estimation.completion import incomplete_served_benchmarks, incomplete_served_enqueue
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.services import recompute_run
from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def served():
    benchmark = make_benchmark(
        slug="complete-me", submission_policy=Benchmark.SubmissionPolicy.OPEN, bootstrap_size=100
    )
    for j in range(3):
        make_submission(benchmark, f"a{j}", {f"d{i}": 0.4 + 0.1 * ((i + j) % 3) for i in range(4)})
    recompute_run(benchmark_id=benchmark.pk, owner="t")
    return ResultSnapshot.objects.get(benchmark=benchmark)


def test_a_complete_version_is_not_enqueued(served):
    assert incomplete_served_benchmarks() == []


def test_a_served_version_without_its_advisor_is_completed_by_a_run(
    served, django_capture_on_commit_callbacks
):
    SnapshotSection.objects.filter(snapshot=served, name="advisor").delete()
    assert incomplete_served_benchmarks() == [served.benchmark_id]
    RecomputeState.objects.filter(pk=served.benchmark_id).update(
        lease_owner="live", lease_expires_at=timezone.now() + timedelta(seconds=30)
    )
    assert incomplete_served_benchmarks() == []  # a live run will finish it
    RecomputeState.objects.filter(pk=served.benchmark_id).update(
        lease_owner="dead", lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert incomplete_served_benchmarks() == [served.benchmark_id]
    with django_capture_on_commit_callbacks(execute=False):  # no task: the run is below
        assert incomplete_served_enqueue() == [served.benchmark_id]
    assert RecomputeState.objects.get(pk=served.benchmark_id).is_stale
    recompute_run(benchmark_id=served.benchmark_id, owner="sweep")
    assert SnapshotSection.objects.filter(snapshot=served, name="advisor").exists()
    assert list(ResultSnapshot.objects.values_list("version", flat=True)) == [1]
    assert incomplete_served_benchmarks() == []
