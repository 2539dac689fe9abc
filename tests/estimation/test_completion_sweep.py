"""The sweep finds a served version left without its advisor (estimation/recompute/completion.py)
and nothing else: a complete version, or one a live run holds, is left alone."""

from __future__ import annotations

import ast
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.recompute.completion import incomplete_served_benchmarks, incomplete_served_enqueue
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


def _queued_tasks(queue: str) -> list[tuple[str, int, list]]:
    """(task name, priority, args) of the messages waiting in ``queue`` on the broker,
    and the queue emptied (nothing here runs them: the test calls the service)."""
    import redis
    from django.conf import settings

    from operations.queues import PRIORITY_SUFFIXES

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def _waiting(client, name: str) -> list[bytes]:
        return list(client.lrange(name, 0, -1))

    found = []
    for suffix in PRIORITY_SUFFIXES:
        for raw in _waiting(client, queue + suffix):
            message = json.loads(raw)
            headers = message["headers"]
            priority = message["properties"].get("priority") or 0
            found.append((headers["task"], priority, list(ast.literal_eval(headers["argsrepr"]))))
        client.delete(queue + suffix)
    return found


def test_a_served_version_without_its_advisor_is_completed_by_the_completion_task(served):
    from config.queues import default_queue
    from estimation.requests import COMPLETION_PRIORITY, COMPLETION_TASK
    from estimation.services import snapshots_complete

    _queued_tasks(default_queue())
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
    assert incomplete_served_enqueue() == [served.benchmark_id]
    # its completion is queued behind every recompute, and no recompute is asked for
    assert _queued_tasks(default_queue()) == [
        (COMPLETION_TASK, COMPLETION_PRIORITY, [served.benchmark_id])
    ]
    assert not RecomputeState.objects.get(pk=served.benchmark_id).is_stale
    assert snapshots_complete(benchmark_id=served.benchmark_id) == [served.pk]
    assert SnapshotSection.objects.filter(snapshot=served, name="advisor").exists()
    assert list(ResultSnapshot.objects.values_list("version", flat=True)) == [1]
    assert incomplete_served_benchmarks() == []


def test_a_completion_waits_while_newer_input_waits_for_its_ready_version(served):
    from estimation.requests import revision_bump
    from estimation.services import snapshots_complete

    SnapshotSection.objects.filter(snapshot=served, name="advisor").delete()
    revision_bump(benchmark_id=served.benchmark_id)  # a change: its recompute comes first
    assert snapshots_complete(benchmark_id=served.benchmark_id) == []
    assert not SnapshotSection.objects.filter(snapshot=served, name="advisor").exists()


def test_versions_served_while_newer_input_waited_say_their_spread_is_not_coming():
    """Under steady input each run serves a version and hands its completion on; the
    completion then completes the newest and settles the older ones (not "being computed"
    for good)."""
    from estimation.core.analysis import uncertainty_pending
    from estimation.selectors import snapshot_board
    from estimation.services import snapshots_complete

    benchmark = make_benchmark(
        slug="steady-served", submission_policy=Benchmark.SubmissionPolicy.OPEN, bootstrap_size=100
    )
    for j in range(3):
        make_submission(benchmark, f"a{j}", {f"d{i}": 0.4 + 0.1 * ((i + j) % 3) for i in range(4)})
    queued: list[int] = []
    recompute_run(benchmark_id=benchmark.pk, owner="t", completion=lambda: queued.append(1))
    make_submission(benchmark, "late", {f"d{i}": 0.45 for i in range(4)})
    recompute_run(benchmark_id=benchmark.pk, owner="t", completion=lambda: queued.append(2))
    first, second = ResultSnapshot.objects.filter(benchmark=benchmark).order_by("version")
    assert queued == [1, 2]
    for snapshot in (first, second):  # served, not completed
        board = snapshot_board(snapshot=snapshot)
        assert board is not None and uncertainty_pending(board)
    assert snapshots_complete(benchmark_id=benchmark.pk) == [second.pk]
    first_board, second_board = (snapshot_board(snapshot=s) for s in (first, second))
    assert first_board is not None and second_board is not None
    assert not uncertainty_pending(first_board) and not uncertainty_pending(second_board)
    assert SnapshotSection.objects.filter(snapshot=second, name="advisor").exists()
    assert not SnapshotSection.objects.filter(snapshot=first, name="advisor").exists()
