"""A recompute never holds a worker across new inputs (one looped 424 s on the
bulk worker under steady submissions): it computes at most PODIUM_RECOMPUTE_MAX_PASSES
passes, then hands the benchmark to a fresh task at the back of its queue."""

from __future__ import annotations

import pytest

from estimation.activity import recompute_activity
from estimation.models import RecomputeState
from estimation.recompute import runs
from estimation.requests import recompute_request
from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


def _broker_messages(queue: str) -> list[dict]:
    """The task messages waiting in ``queue`` (every priority), and the queue emptied."""
    import json

    import redis
    from django.conf import settings

    from operations.queues import PRIORITY_SUFFIXES

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def _waiting(client, name: str) -> list[bytes]:
        return list(client.lrange(name, 0, -1))

    found = []
    for suffix in PRIORITY_SUFFIXES:
        found += [json.loads(raw)["headers"] for raw in _waiting(client, queue + suffix)]
        client.delete(queue + suffix)
    return found


@pytest.fixture
def steady_inputs(monkeypatch):
    """A benchmark whose every compute pass sees a new input arrive: counts the passes."""
    benchmark = make_benchmark(slug="steady", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    for j in range(3):
        make_submission(benchmark, f"a{j}", {f"d{i}": 0.3 + 0.1 * ((i + j) % 4) for i in range(4)})
    passes: list[int] = []
    real = runs.snapshot_refresh

    def refresh_while_inputs_arrive(**kwargs):
        passes.append(RecomputeState.objects.get(pk=benchmark.pk).requested_revision)
        done = real(**kwargs)
        make_submission(benchmark, f"late{len(passes)}", {"d0": 0.5, "d1": 0.4})
        recompute_request(benchmark_id=benchmark.pk)
        return done

    monkeypatch.setattr(runs, "snapshot_refresh", refresh_while_inputs_arrive)
    return benchmark, passes


@pytest.mark.parametrize("max_passes", [1, 3])
def test_a_recompute_computes_at_most_k_passes_while_inputs_keep_arriving(
    steady_inputs, settings, max_passes
):
    from config.queues import all_queues

    benchmark, passes = steady_inputs
    settings.RECOMPUTE_IN_THREAD = False
    settings.PODIUM_RECOMPUTE_MAX_PASSES = max_passes
    for queue in all_queues():
        _broker_messages(queue)
    created = runs.recompute_run(benchmark_id=benchmark.pk, owner="worker-1")
    assert len(passes) == max_passes  # then it stopped, though input kept arriving
    assert passes == sorted(set(passes))  # each pass the newest input when it started
    assert [s.version for s in created] == list(range(1, max_passes + 1))
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert state.is_stale and state.lease_owner == ""  # the worker is free, the work due
    assert state.computed_revision == passes[-1]
    # the hand-over: a fresh task at the back of the queue (the requests' own tasks met
    # the run's lease and ended)
    sent = [m for queue in all_queues() for m in _broker_messages(queue)]
    assert [m["task"] for m in sent][-1] == "estimation.recompute_benchmark"
    assert sent[-1]["argsrepr"] == f"({benchmark.pk},)"
    # the oldest change waiting is no older than the last pass's start
    assert recompute_activity(benchmark_id=benchmark.pk).unserved_since is not None


def test_the_oldest_unserved_input_is_not_reset_by_newer_ones():
    from datetime import timedelta

    from django.utils import timezone

    from estimation.requests import revision_bump

    benchmark = make_benchmark(slug="waits")

    def unserved_since():
        return recompute_activity(benchmark_id=benchmark.pk).unserved_since

    assert unserved_since() is None
    revision_bump(benchmark_id=benchmark.pk)
    first = unserved_since()
    assert first is not None
    for _ in range(3):
        revision_bump(benchmark_id=benchmark.pk)
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert unserved_since() == first
    assert (
        state.requested_at is not None and state.requested_at > first
    )  # the newest change, which the old metric showed
    later = first + timedelta(seconds=300)
    waited = recompute_activity(benchmark_id=benchmark.pk, now=later).unserved_seconds(later)
    assert waited == 300.0
    RecomputeState.objects.filter(pk=benchmark.pk).update(computed_revision=4)
    assert unserved_since() is None
    assert timezone.now() >= first


def test_the_hand_over_keeps_the_accounts_place_on_the_default_queue(steady_inputs, settings):
    """The task gives its slot back before it hands over, so the fresh task takes the
    account's share of the default queue rather than the bulk queue's back."""
    from config.queues import bulk_queue, default_queue
    from estimation.recompute.lanes import lane_slots_held, recompute_lane
    from estimation.tasks import recompute_benchmark
    from tests.factories import make_user

    benchmark, passes = steady_inputs
    benchmark.maintainers.add(make_user("steady-maintainer"))
    settings.RECOMPUTE_IN_THREAD = False
    settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = 1
    for queue in (default_queue(), bulk_queue()):
        _broker_messages(queue)
    lane = recompute_lane(benchmark.pk)  # what the dispatch took for this task
    assert lane.queue == default_queue() and lane_slots_held(benchmark.pk) == 1
    recompute_benchmark.apply(args=(benchmark.pk,), kwargs={"slot": lane.slot})
    assert len(passes) == 1
    handed = _broker_messages(default_queue())
    assert [(m["task"], m["argsrepr"]) for m in handed] == [
        ("estimation.recompute_benchmark", f"({benchmark.pk},)")
    ]
    assert _broker_messages(bulk_queue()) == []
    assert lane_slots_held(benchmark.pk) == 1  # the fresh task's slot, not the old one
