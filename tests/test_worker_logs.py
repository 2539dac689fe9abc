"""The faults a worker rides out are logged in one line, not a traceback (issue 41: the
fault soak's worker logs held a traceback for every beat sweep during a PostgreSQL stop
and for every Redis restart); anything else keeps its traceback."""

from __future__ import annotations

import logging

import pytest
from celery.worker.consumer import consumer as celery_consumer
from django.db import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from config.celery import app
from config.worker_logs import CONSUMER_LOGGER, PodiumTask, broker_lost_one_line
from estimation import tasks
from operations.models import TaskFailure

OUTAGE = 'connection failed: connection to server at "127.0.0.1" failed: Connection refused'


def test_every_project_task_is_a_podium_task():
    names = [n for n in app.tasks if n.startswith(("estimation.", "leaderboard.", "operations."))]
    assert "estimation.recompute_stale" in names
    assert all(isinstance(app.tasks[name], PodiumTask) for name in names)


def _sweep_failing_with(monkeypatch, caplog, error: Exception) -> logging.LogRecord:
    def sweep():
        raise error

    monkeypatch.setattr(tasks, "recompute_stale_enqueue", sweep)
    caplog.set_level(logging.INFO, logger="celery.app.trace")
    result = tasks.recompute_stale.apply(throw=False)
    assert result.failed()
    (record,) = [r for r in caplog.records if r.name == "celery.app.trace"]
    return record


@pytest.mark.django_db
def test_a_task_failing_in_a_database_outage_is_one_line_and_still_recorded(monkeypatch, caplog):
    record = _sweep_failing_with(monkeypatch, caplog, OperationalError(OUTAGE))
    assert "raised expected" in record.getMessage() and OUTAGE in record.getMessage()
    assert record.exc_info is None and "Traceback" not in caplog.text
    # Still a failure: recorded for the status page (operations/failures.py).
    assert TaskFailure.objects.filter(task="estimation.recompute_stale").exists()


@pytest.mark.django_db
def test_a_task_failing_otherwise_keeps_its_traceback(monkeypatch, caplog):
    record = _sweep_failing_with(monkeypatch, caplog, KeyError("a bug"))
    assert "raised unexpected" in record.getMessage()
    assert record.levelno == logging.ERROR and record.exc_info is not None


def _consumer_log(message: str, caplog) -> logging.LogRecord:
    caplog.clear()
    try:
        raise RedisConnectionError("Connection closed by server.")
    except RedisConnectionError:
        logging.getLogger(CONSUMER_LOGGER).warning(message, exc_info=True)
    (record,) = [r for r in caplog.records if r.name == CONSUMER_LOGGER]
    return record


def test_the_broker_lost_is_one_line_with_its_error(caplog):
    broker_lost_one_line()
    broker_lost_one_line()  # installed once however often called
    caplog.set_level(logging.WARNING, logger=CONSUMER_LOGGER)
    record = _consumer_log(celery_consumer.CONNECTION_RETRY, caplog)
    assert record.exc_info is None and "Traceback" not in caplog.text
    assert record.getMessage() == (
        "consumer: Connection to broker lost. Trying to re-establish the connection... "
        "(ConnectionError: Connection closed by server.)"
    )
    other = _consumer_log("consumer: something else went wrong", caplog)
    assert other.exc_info is not None and "Traceback" in caplog.text
