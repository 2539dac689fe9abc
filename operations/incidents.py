"""Faults over before anyone looks: a Celery worker killed and restarted by its supervisor,
a web worker killed (or timed out) and replaced by gunicorn, the broker's Redis restarted. Each is back in seconds, so no
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
REDIS_RESTARTED = "redis-restarted"  # the broker's server restarted (a new run id)
INCIDENT_KINDS = (WORKER_RESTARTED, WEB_WORKER_DIED, WEB_WORKER_TIMEOUT, REDIS_RESTARTED)

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


_redis_run_id: str | None = None  # the broker's server this process last saw


def redis_restart_check(client, *, now: datetime | None = None) -> bool:
    """Called with each heartbeat (``client``: the broker's, connected): when the server's
    run id differs from the one this process saw last, Redis restarted in between; the
    first process to notice records it (one incident per restart, whichever process and
    whether or not Redis kept its data). True when this call recorded it."""
    global _redis_run_id
    try:
        server = client.info("server")
        run_id, uptime = str(server["run_id"]), int(server.get("uptime_in_seconds", 0))
        seen, _redis_run_id = _redis_run_id, run_id
        if seen is None or seen == run_id:
            return False
        first = client.set(f"{_keys()[0]}:redis-run:{run_id}", "1", nx=True, ex=86400)
    except CACHE_ERRORS:
        return False
    except (KeyError, ValueError, TypeError):  # not a Redis that says who it is
        return False
    if not first:
        return False  # another process noticed it first
    now = now or timezone.now()
    return incident_record(
        kind=REDIS_RESTARTED,
        source="redis",
        detail=(
            f"the broker's Redis restarted (up {uptime} s at {now:%H:%M:%S} UTC): tasks sent "
            "while it was down were retried or are redone by the sweeps"
        ),
        now=now,
    )


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
