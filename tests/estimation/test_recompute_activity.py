"""A status that tells the truth: "computing" only while a task holds the
benchmark's lease, "stalled" when nothing runs it, and the wait of the oldest change the
results lack, not the newest's (each new request used to reset it)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from estimation.activity import (
    COMPUTING,
    IDLE,
    STALLED,
    WAITING,
    recompute_activities,
    recompute_activity,
    recompute_activity_decide,
    version_problems,
)
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute.leases import lease_acquire
from estimation.requests import revision_bump
from tests.factories import make_benchmark

NOW = timezone.now()
STALL = timedelta(minutes=2)


def decide(**given):
    facts = {
        "stale": False,
        "task_alive": False,
        "orphaned_version": None,
        "unserved_since": None,
        "retry_at": None,
        "now": NOW,
        "stall_after": STALL,
    }
    facts.update(given)
    return recompute_activity_decide(**facts)[0]


@pytest.mark.parametrize(
    ("given", "state"),
    [
        ({}, IDLE),
        ({"task_alive": True}, COMPUTING),
        ({"task_alive": True, "orphaned_version": 3, "stale": True}, COMPUTING),
        ({"orphaned_version": 3}, STALLED),  # marked computing, nothing runs it
        ({"stale": True, "unserved_since": NOW - timedelta(seconds=30)}, WAITING),
        ({"stale": True, "unserved_since": NOW - timedelta(minutes=7)}, STALLED),
        (
            {
                "stale": True,
                "unserved_since": NOW - timedelta(minutes=7),
                "retry_at": NOW + timedelta(minutes=1),
            },
            WAITING,  # a failed run backs off; the failure itself is reported apart
        ),
        (
            {
                "stale": True,
                "unserved_since": NOW - timedelta(minutes=7),
                "retry_at": NOW - timedelta(minutes=1),
            },
            STALLED,  # its retry is due and nobody took it
        ),
    ],
)
def test_the_decision(given, state):
    assert decide(**given) == state


@pytest.mark.django_db
def test_the_oldest_change_keeps_its_time_while_newer_ones_arrive():
    benchmark = make_benchmark(slug="steady")
    revision_bump(benchmark_id=benchmark.pk)
    first = RecomputeState.objects.get(pk=benchmark.pk)
    for _ in range(3):
        revision_bump(benchmark_id=benchmark.pk)
    later = RecomputeState.objects.get(pk=benchmark.pk)
    assert later.requested_revision == first.requested_revision + 3
    assert later.requested_at > first.requested_at
    assert later.pending_since == first.pending_since == first.requested_at
    # Caught up: the next change starts a new wait.
    RecomputeState.objects.filter(pk=benchmark.pk).update(computed_revision=4)
    revision_bump(benchmark_id=benchmark.pk)
    again = RecomputeState.objects.get(pk=benchmark.pk)
    assert again.pending_since == again.requested_at > later.requested_at


def _stale(benchmark, *, since):
    RecomputeState.objects.update_or_create(
        benchmark=benchmark,
        defaults={
            "requested_revision": 5,
            "computed_revision": 2,
            "requested_at": NOW,  # the newest change: just now
            "pending_since": since,
        },
    )


def _version(benchmark, version, status, created_at, **fields):
    snapshot = ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=benchmark.metrics.get(),
        version=version,
        fingerprint=str(version),
        engine_version="x",
        status=status,
        **fields,
    )
    ResultSnapshot.objects.filter(pk=snapshot.pk).update(created_at=created_at)
    return snapshot


@pytest.mark.django_db
def test_waiting_turns_stalled_when_no_task_runs_it_and_the_wait_is_the_oldest_changes():
    benchmark = make_benchmark(slug="waits")
    _stale(benchmark, since=NOW - timedelta(minutes=7))
    soon = recompute_activity(benchmark_id=benchmark.pk, now=NOW - timedelta(minutes=6))
    assert soon.state == WAITING
    late = recompute_activity(benchmark_id=benchmark.pk, now=NOW)
    assert late.state == STALLED and "waited 7 minutes" in late.reason
    assert late.unserved_seconds(NOW) == pytest.approx(420)

    # A worker takes it: computing, however long the input has waited.
    assert lease_acquire(benchmark_id=benchmark.pk, owner="task-1", now=NOW)
    assert recompute_activity(benchmark_id=benchmark.pk, now=NOW).state == COMPUTING
    # Its lease ran out (the worker was killed): no longer computing.
    expired = NOW + timedelta(seconds=60)
    assert recompute_activity(benchmark_id=benchmark.pk, now=expired).state == STALLED


@pytest.mark.django_db
def test_a_version_served_since_the_oldest_change_moves_the_wait_on():
    """Under steady load the loop serves versions while new changes keep coming: the
    wait counts from the served version's run, not from the first change."""
    benchmark = make_benchmark(slug="served")
    _stale(benchmark, since=NOW - timedelta(minutes=7))
    _version(benchmark, 3, ResultSnapshot.Status.READY, NOW - timedelta(seconds=20))
    activity = recompute_activity(benchmark_id=benchmark.pk, now=NOW)
    assert activity.state == WAITING
    assert activity.unserved_seconds(NOW) == pytest.approx(20)


@pytest.mark.django_db
def test_a_version_left_computing_with_no_task_is_stalled_and_listed():
    benchmark = make_benchmark(slug="orphan")
    RecomputeState.objects.create(benchmark=benchmark, requested_revision=1, computed_revision=1)
    _version(benchmark, 1, ResultSnapshot.Status.READY, NOW - timedelta(minutes=9))
    _version(benchmark, 2, ResultSnapshot.Status.COMPUTING, NOW - timedelta(minutes=8))
    activity = recompute_activity(benchmark_id=benchmark.pk, now=NOW)
    assert activity.state == STALLED and activity.orphaned_version == 2
    (problem,) = version_problems(benchmark_ids=[benchmark.pk], now=NOW)
    assert (problem.version, problem.kind) == (2, "orphaned")
    # While a task holds the lease the row is its work in progress: not a problem.
    assert lease_acquire(benchmark_id=benchmark.pk, owner="task-2", now=NOW)
    assert recompute_activity(benchmark_id=benchmark.pk, now=NOW).state == COMPUTING
    assert version_problems(benchmark_ids=[benchmark.pk], now=NOW) == []


@pytest.mark.django_db
def test_failed_versions_are_listed_even_when_not_the_newest():
    benchmark = make_benchmark(slug="failing")
    _version(
        benchmark, 1, ResultSnapshot.Status.FAILED, NOW - timedelta(minutes=9),
        failed_during="abandoned", error="abandoned: the worker stopped",
        finished_at=NOW - timedelta(minutes=8),
    )  # fmt: skip
    _version(
        benchmark, 2, ResultSnapshot.Status.FAILED, NOW - timedelta(minutes=7),
        failed_during="load", error="OperationalError: server closed the connection",
        finished_at=NOW - timedelta(minutes=6),
    )  # fmt: skip
    _version(benchmark, 3, ResultSnapshot.Status.READY, NOW - timedelta(minutes=5))
    problems = version_problems(benchmark_ids=[benchmark.pk], now=NOW)
    assert [(p.version, p.kind) for p in problems] == [(2, "load"), (1, "abandoned")]
    assert version_problems(benchmark_ids=[benchmark.pk], since=NOW - timedelta(minutes=7)) == [
        problems[0]
    ]


@pytest.mark.django_db
def test_reading_every_benchmark_takes_a_fixed_number_of_queries(django_assert_max_num_queries):
    for i in range(6):
        benchmark = make_benchmark(slug=f"many-{i}")
        _stale(benchmark, since=NOW - timedelta(minutes=i))
        _version(benchmark, 1, ResultSnapshot.Status.READY, NOW - timedelta(minutes=10))
    with django_assert_max_num_queries(3):
        activities = recompute_activities(now=NOW)
    assert len(activities) == 6


@pytest.mark.django_db
def test_the_status_api_says_stalled_with_the_oldest_wait(client):
    benchmark = make_benchmark(slug="api-stall")
    _version(benchmark, 1, ResultSnapshot.Status.READY, timezone.now() - timedelta(minutes=9))
    _stale(benchmark, since=timezone.now() - timedelta(minutes=8))
    body = client.get("/api/benchmarks/api-stall/snapshots/status/").json()
    assert body["newest"]["status"] == "ready"  # the version row alone said "all fine"
    assert body["recompute"]["state"] == "stalled"
    assert body["recompute"]["unserved_seconds"] >= 8 * 60
    assert body["recompute"]["unserved_since"] is not None
