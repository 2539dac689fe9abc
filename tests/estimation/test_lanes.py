"""Fair shares of the default queue (estimation/recompute/lanes.py, config/queues.py), on real Redis."""

from __future__ import annotations

import pytest
from django.core.cache import caches

from config.queues import UPLOAD_TASK, bulk_queue, default_queue, route_task
from estimation.recompute.lanes import lane_release, lane_slots_held, recompute_lane
from estimation.requests import recompute_dispatch
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def one_slot(settings):
    # Slots are keyed by account and benchmark ids, which PostgreSQL never hands out
    # twice in a run, under this run's cache prefix: no test sees another's slots.
    settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = 1
    # Redis is up for these tests: an earlier test's timeout on a loaded machine marks
    # the fail-open cache down for its retry window (config/cache.py), and every lane
    # would then be the default queue, as it should be during an outage.
    backend = caches["default"]
    backend._down_until = 0.0  # type: ignore[attr-defined]
    yield
    assert not backend.is_down, "Redis timed out during the test: lanes fell back"  # type: ignore[attr-defined]


def _owned(slug, user):
    benchmark = make_benchmark(slug)
    benchmark.maintainers.add(user)
    return benchmark


def test_an_account_beyond_its_share_goes_to_the_bulk_queue_and_others_do_not():
    flooder, other = make_user("flooder"), make_user("other")
    flooded = [_owned(f"f{i}", flooder) for i in range(5)]
    lanes = [recompute_lane(benchmark.pk) for benchmark in flooded]
    assert [lane.queue for lane in lanes] == [default_queue()] + [bulk_queue()] * 4
    assert lanes[0].slot and all(lane.slot is None for lane in lanes[1:])
    # another account's benchmark is not behind the flooder's share
    assert recompute_lane(_owned("o", other).pk).queue == default_queue()
    assert lane_slots_held(flooded[3].pk) == 1  # counted per account, not per benchmark
    # the flooder's task ends: its next recompute has the default queue again
    lane_release(lanes[0].slot)
    assert lane_slots_held(flooded[0].pk) == 0
    assert recompute_lane(flooded[1].pk).queue == default_queue()


def test_a_larger_share_and_fairness_off():
    from django.conf import settings

    flooder = make_user("flooder")
    benchmark = _owned("f", flooder)
    settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = 3
    queues = [recompute_lane(benchmark.pk).queue for _ in range(4)]
    assert queues == [default_queue()] * 3 + [bulk_queue()]
    settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = 0
    assert {recompute_lane(benchmark.pk).queue for _ in range(5)} == {default_queue()}


def test_releasing_more_than_was_taken_never_grants_extra_slots():
    benchmark = _owned("f", make_user("flooder"))
    lane = recompute_lane(benchmark.pk)
    for _ in range(3):  # a retried or duplicated task's finally, or an expired slot
        lane_release(lane.slot)
    lane_release("podium:lane:never-taken")
    taken = [recompute_lane(benchmark.pk).queue for _ in range(2)]
    assert taken == [default_queue(), bulk_queue()]


def test_benchmarks_without_maintainers_each_have_their_own_lane():
    first, second = make_benchmark("a"), make_benchmark("b")
    assert recompute_lane(first.pk).queue == default_queue()
    assert recompute_lane(second.pk).queue == default_queue()
    assert recompute_lane(first.pk).queue == bulk_queue()


def test_uploads_are_routed_to_the_bulk_queue_and_the_rest_by_default():
    assert route_task(UPLOAD_TASK, (1,), {}, {}) == {"queue": bulk_queue()}
    assert route_task("estimation.recompute_stale", (), {}, {}) is None


def test_the_dispatch_sends_the_lane_with_the_task(settings, monkeypatch):
    settings.RECOMPUTE_IN_THREAD = False
    sent = []
    monkeypatch.setattr(
        "estimation.tasks.recompute_benchmark.apply_async",
        lambda args, kwargs=None, **options: sent.append((args, kwargs, options["queue"])),
    )
    flooder = make_user("flooder")
    first, second = _owned("f1", flooder), _owned("f2", flooder)
    recompute_dispatch(first.pk)
    recompute_dispatch(second.pk)
    (args1, kwargs1, queue1), (args2, kwargs2, queue2) = sent
    assert (args1, queue1) == ((first.pk,), default_queue()) and kwargs1["slot"]
    assert (args2, kwargs2, queue2) == ((second.pk,), {"slot": None}, bulk_queue())


def test_with_the_cache_down_every_recompute_takes_the_default_queue():
    import time

    benchmark = _owned("f", make_user("flooder"))
    backend = caches["default"]
    backend._down_until = time.monotonic() + 60  # type: ignore[attr-defined]  # as after a failure
    try:
        assert {recompute_lane(benchmark.pk).queue for _ in range(3)} == {default_queue()}
        assert lane_slots_held(benchmark.pk) == 0
    finally:
        backend._down_until = 0.0  # type: ignore[attr-defined]


def test_a_running_slot_counts_while_its_heartbeat_beats_and_lapses_after():
    """A task killed with its worker gives nothing back: its slot stops counting
    lane_alive_seconds() after its last beat (it held the account's share of the
    default queue for 660-900 s)."""
    from estimation.recompute.lanes import lane_alive_seconds, lane_running

    benchmark = _owned("f", make_user("flooder"))
    t0 = 1_000_000.0
    lane = recompute_lane(benchmark.pk, now=t0)
    assert lane.queue == default_queue()
    lane_running(lane.slot, now=t0)  # the task started
    alive = lane_alive_seconds()
    for beat in (t0 + alive / 2, t0 + alive):  # its lease heartbeat
        lane_running(lane.slot, now=beat)
        assert lane_slots_held(benchmark.pk, now=beat + alive / 2) == 1
        assert recompute_lane(benchmark.pk, now=beat + alive / 2).queue == bulk_queue()
    # killed: no beat after t0 + alive; one more alive period later the slot is gone
    later = t0 + 2 * alive + 1
    assert lane_slots_held(benchmark.pk, now=later) == 0
    retaken = recompute_lane(benchmark.pk, now=later)
    assert retaken.queue == default_queue() and retaken.slot != lane.slot
    lane_running(lane.slot, now=later)  # a beat of the lost task revives nothing
    assert lane_slots_held(benchmark.pk, now=later) == 1


def test_a_queued_slot_counts_until_the_queue_wait_bound():
    from django.conf import settings

    benchmark = _owned("f", make_user("flooder"))
    t0 = 2_000_000.0
    recompute_lane(benchmark.pk, now=t0)
    waited = settings.RECOMPUTE_TIME_LIMIT + 59  # queued, not started: still counts
    assert recompute_lane(benchmark.pk, now=t0 + waited).queue == bulk_queue()
    bound = settings.RECOMPUTE_TIME_LIMIT + max(settings.PODIUM_RECOMPUTE_COALESCE_SECONDS, 60)
    assert recompute_lane(benchmark.pk, now=t0 + bound + 1).queue == default_queue()


def test_the_queue_depth_counts_both_queues():
    import redis
    from django.conf import settings

    from operations.queues import queue_depth

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete(default_queue(), bulk_queue())  # this process's queues: tasks sent unrun
    try:
        client.rpush(default_queue(), b"{}")
        client.rpush(bulk_queue(), b"{}", b"{}")
        assert (queue_depth(default_queue()), queue_depth(bulk_queue())) == (1, 2)
        assert queue_depth() == 3
    finally:
        client.delete(default_queue(), bulk_queue())
