"""What a Celery worker logs for the faults it is built to ride out: one line, no traceback
(issue 41), as the web side logs an expected 503 (common/outages.py).

- A task that fails because the database is away (a beat sweep during an outage, a
  recompute out of retries) is an outage, not a bug: :class:`PodiumTask` names the outage
  errors as the tasks' expected errors (Celery's ``Task.throws``), so Celery logs the
  failure in one line; it still counts as a failure (``task_failure``, recorded for the
  status page by operations/failures.py, which warns while the record waits).
- The broker (Redis) restarting: Celery's consumer logs "Connection to broker lost" with
  the connection error's whole traceback; :class:`BrokerLostOneLine` keeps the line and the
  error's name and message.

Anything else keeps its traceback.
"""

from __future__ import annotations

import logging

from celery import Task

from common.outages import OUTAGE_ERRORS, outage_summary

CONSUMER_LOGGER = "celery.worker.consumer.consumer"
BROKER_LOST = "consumer: Connection to broker lost"


class PodiumTask(Task):
    """The project's task class (config/celery.py's ``task_cls``)."""

    throws = OUTAGE_ERRORS


class BrokerLostOneLine(logging.Filter):
    """The consumer's "Connection to broker lost" record without its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and str(record.msg).startswith(BROKER_LOST):
            record.msg = f"{record.getMessage()} ({outage_summary(error)})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


def broker_lost_one_line() -> None:
    """Install the filter on the consumer's logger (once, however often called)."""
    consumer = logging.getLogger(CONSUMER_LOGGER)
    if not any(isinstance(f, BrokerLostOneLine) for f in consumer.filters):
        consumer.addFilter(BrokerLostOneLine())
