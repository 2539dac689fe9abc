"""A beat entry due while Redis (the broker) is down is sent at the next tick once it is
back, not dropped until its next due time (a prune due during an outage was
lost); a restart of beat in between keeps it. A real redis-server, stopped and started."""

from __future__ import annotations

import logging

import pytest
import redis
from celery import Celery

from operations.beat import HeartbeatScheduler
from tests.reliability.conftest import ScratchRedis

pytestmark = pytest.mark.integration

QUEUE = "beat-late"


@pytest.fixture
def broker():
    scratch = ScratchRedis()
    scratch.start()
    try:
        yield scratch
    finally:
        scratch.stop()


def _scheduler(broker: ScratchRedis, schedule_file) -> HeartbeatScheduler:
    app = Celery("beat-late", broker=broker.url, set_as_current=False)
    app.conf.broker_transport_options = {"max_retries": 1, "interval_start": 0}
    app.conf.broker_connection_max_retries = 20  # a hang guard
    app.conf.beat_schedule = {
        "prune-snapshots": {
            "task": "estimation.prune_snapshots",
            "schedule": 3600.0,  # due once an hour: a dropped one would be an hour late
            "options": {"queue": QUEUE},
        }
    }
    return HeartbeatScheduler(app=app, schedule_filename=str(schedule_file), lazy=False)


def test_a_prune_due_while_redis_is_down_is_sent_at_the_next_tick(
    broker, tmp_path, settings, caplog
):
    settings.PODIUM_HEARTBEAT_SECONDS = 0  # no heartbeat: this test is about sending
    scheduler = _scheduler(broker, tmp_path / "schedule")
    entry = scheduler.schedule["prune-snapshots"]
    producer = scheduler.producer  # connected while Redis runs, as a running beat is
    broker.stop()
    with caplog.at_level(logging.WARNING):
        scheduler.apply_entry(entry, producer=producer)  # due now: Redis is down
    assert scheduler.unsent == {"prune-snapshots"}
    (line,) = [r for r in caplog.records if r.name == "operations.beat"]
    assert line.exc_info is None and "\n" not in line.getMessage()
    scheduler.tick()  # still down: kept
    assert scheduler.unsent == {"prune-snapshots"}
    scheduler.close()

    # Beat restarts (the outage outlasted it): the unsent entry comes back from its file.
    restarted = _scheduler(broker, tmp_path / "schedule")
    assert restarted.unsent == {"prune-snapshots"}
    broker.start()
    restarted.tick()
    assert restarted.unsent == frozenset()
    client = redis.Redis.from_url(broker.url)
    assert client.llen(QUEUE) == 1  # sent once, an hour before its next due time
    restarted.tick()
    assert client.llen(QUEUE) == 1  # and not again
    restarted.close()
