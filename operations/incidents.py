"""Faults over before anyone looks: a Celery worker killed and restarted by its supervisor,
a web worker killed (or timed out) and replaced by gunicorn. Each is back in seconds, so no
heartbeat or health check stays down long enough to show it; the event itself is recorded
here and shown on /status/ ("Recent incidents") and in /metrics
(``podium_incidents_total``).

Kept in Redis, not the database: the processes that record them (gunicorn's master, a
worker starting) must not need the database, and an incident during a database outage is
the one most worth seeing. A sorted set by time, trimmed to the last
:data:`INCIDENTS_KEPT` and at most :data:`INCIDENTS_LIMIT` entries, with a TTL; the totals
per kind are a hash (a Prometheus counter: a Redis restart resets it, which Prometheus
reads as a counter reset).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from config.cache import CACHE_ERRORS
from config.queues import default_queue
from operations.queues import broker_client

logger = logging.getLogger(__name__)

WORKER_RESTARTED = "worker-restarted"  # a Celery worker started after an unclean stop
WEB_WORKER_DIED = "web-worker-died"  # a gunicorn worker ended without its exit hook
WEB_WORKER_TIMEOUT = "web-worker-timeout"  # gunicorn aborted a worker past its timeout
INCIDENT_KINDS = (WORKER_RESTARTED, WEB_WORKER_DIED, WEB_WORKER_TIMEOUT)

INCIDENTS_KEPT = timedelta(days=1)
INCIDENTS_LIMIT = 200
INCIDENTS_WARN = timedelta(minutes=15)  # how long a new one is a warning on /status/


def _keys() -> tuple[str, str]:
    """(events, totals) of this deployment, named by its default queue as the broker's
    lists and the heartbeat mirror are."""
    return f"podium:incidents:{default_queue()}", f"podium:incidents-total:{default_queue()}"


@dataclass(frozen=True)
class Incident:
    kind: str
    source: str  # the worker's name, or "web"
    at: datetime
    detail: str  # a sentence for the operator


def incident_record(*, kind: str, source: str, detail: str, now: datetime | None = None) -> bool:
    """Record one incident (and log it as one warning line); False when Redis is away.
    Never raises: the callers are a starting worker and gunicorn's master."""
    if kind not in INCIDENT_KINDS:
        raise ValueError(f"kind must be one of {INCIDENT_KINDS}; got {kind!r}")
    now = now or timezone.now()
    logger.warning("incident %s: %s", kind, detail)
    client = broker_client()
    if client is None:
        return False
    events, totals = _keys()
    entry = json.dumps(
        # the pid makes two incidents of one moment two members of the set
        {
            "kind": kind,
            "source": source,
            "at": now.isoformat(),
            "detail": detail,
            "pid": os.getpid(),
        }
    )
    score = now.timestamp()
    try:
        with client.pipeline(transaction=True) as pipe:
            pipe.zadd(events, {entry: score})
            pipe.zremrangebyscore(events, "-inf", score - INCIDENTS_KEPT.total_seconds())
            pipe.zremrangebyrank(events, 0, -INCIDENTS_LIMIT - 1)
            pipe.expire(events, int(INCIDENTS_KEPT.total_seconds()))
            pipe.hincrby(totals, kind, 1)
            pipe.execute()
        return True
    except CACHE_ERRORS as exc:
        logger.warning("incident %s not recorded: %s", kind, exc)
        return False
    finally:
        client.close()


def incidents_recent(*, now: datetime | None = None) -> list[Incident] | None:
    """The incidents of the last :data:`INCIDENTS_KEPT`, newest first; None when Redis
    cannot be asked."""
    now = now or timezone.now()
    client = broker_client()
    if client is None:
        return None
    events, _ = _keys()
    try:
        stored = cast(
            list[bytes],
            client.zrevrangebyscore(
                events, "+inf", (now - INCIDENTS_KEPT).timestamp(), start=0, num=INCIDENTS_LIMIT
            ),
        )
    except CACHE_ERRORS:
        return None
    finally:
        client.close()
    found = []
    for raw in stored:
        try:
            data = json.loads(raw)
            at = parse_datetime(data["at"])
            kind, source, detail = str(data["kind"]), str(data["source"]), str(data["detail"])
        except (ValueError, KeyError, TypeError):
            continue  # written by something else: not shown
        if at is not None:
            found.append(Incident(kind=kind, source=source, at=at, detail=detail))
    return found


def incident_totals() -> dict[str, int] | None:
    """Incidents recorded per kind since Redis last started; None when it cannot be asked."""
    client = broker_client()
    if client is None:
        return None
    _, totals = _keys()
    try:
        stored = cast(dict[bytes, bytes], client.hgetall(totals))
    except CACHE_ERRORS:
        return None
    finally:
        client.close()
    counts = {kind: 0 for kind in INCIDENT_KINDS}
    for kind, value in stored.items():
        if kind.decode() in counts and value.isdigit():
            counts[kind.decode()] = int(value)
    return counts


def incidents_warning(incidents: list[Incident], *, now: datetime) -> str | None:
    """The status page's warning while an incident is new (:data:`INCIDENTS_WARN`)."""
    new = [i for i in incidents if now - i.at <= INCIDENTS_WARN]
    if not new:
        return None
    minutes = int(INCIDENTS_WARN.total_seconds() // 60)
    count = f"{len(new)} incident{'s' * (len(new) != 1)}"
    return f"{count} in the last {minutes} minutes (the latest: {new[0].detail}): see Incidents."
