"""Which queue a recompute goes to: fair shares per account (issue 26).

A benchmark's account is its first maintainer (the one who created it). Each account
may have ``PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT`` recomputes queued or running on
the default queue at once; any more go to the bulk queue (config/queues.py). So while
one account floods (many benchmarks, settings changes), another benchmark's recompute
waits behind none of the flooder's as long as the default queue has more processes than
that share (config/queues.py), and behind at most that many otherwise.

The slots an account holds are one sorted set in Redis: a member per task, scored by the
time until which it counts (issue 41). A queued task's slot counts for the recompute time
limit plus the coalescing window (how long a queued task may wait); once the task runs,
its slot counts only ``lane_alive_seconds()`` ahead, pushed on by the run's lease
heartbeat. A task killed with its worker stops beating, and its slot stops counting
within that time, so the account's next recompute (the stale sweep's) has the default
queue again instead of waiting on the bulk queue. Expired members are dropped whenever
a slot is taken. With the cache down (or not Redis) every recompute takes the default
queue, as before.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

from config.cache import CACHE_ERRORS
from config.queues import bulk_queue, default_queue
from leaderboard.models import Benchmark

logger = logging.getLogger(__name__)

# Atomic in Redis: drop the account's expired slots; take one if fewer than the share
# are held. KEYS[1]: the account's set; ARGV: now, the new slot's expiry, its member,
# the share, the set's own expiry in seconds.
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""
_SEPARATOR = "|"


@dataclass(frozen=True)
class Lane:
    queue: str
    # The account slot this task holds, "<set key>|<member>" (None: it holds none).
    slot: str | None


def _account_key(benchmark_id: int) -> str:
    first = (
        Benchmark.maintainers.through.objects.filter(benchmark_id=benchmark_id)
        .order_by("user_id")
        .values_list("user_id", flat=True)
        .first()
    )
    owner = f"account-{first}" if first is not None else f"benchmark-{benchmark_id}"
    return f"podium:lane:{owner}"


def _queued_seconds() -> int:
    """How long a slot counts while its task waits in the queue."""
    return settings.RECOMPUTE_TIME_LIMIT + max(settings.PODIUM_RECOMPUTE_COALESCE_SECONDS, 60)


def lane_alive_seconds() -> float:
    """How long a running task's slot counts after its last heartbeat: two lease lengths
    (the heartbeat renews every third of one)."""
    return 2.0 * settings.RECOMPUTE_LEASE_SECONDS


def _redis(key: str) -> tuple[Any, str] | None:
    """The cache's Redis client and ``key`` as stored (prefixed), or None when the cache
    is not Redis or is marked down (config/cache.py)."""
    backend: Any = cache
    if getattr(backend, "is_down", False) or not hasattr(backend, "_cache"):
        return None
    try:
        client = backend._cache.get_client(key, write=True)
    except AttributeError:  # a cache that is not Redis (local memory)
        return None
    return client, backend.make_and_validate_key(key)


def _split(slot: str) -> tuple[str, str] | None:
    key, _, member = slot.rpartition(_SEPARATOR)
    return (key, member) if key and member else None


def recompute_lane(benchmark_id: int, *, now: float | None = None) -> Lane:
    """Take one of the account's slots on the default queue, or send it to bulk."""
    cap = settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT
    if cap <= 0:
        return Lane(default_queue(), None)  # fairness off: one queue, as before
    key = _account_key(benchmark_id)
    found = _redis(key)
    if found is None:
        return Lane(default_queue(), None)
    client, stored = found
    now = time.time() if now is None else now
    member = uuid.uuid4().hex
    try:
        taken = client.eval(
            _TAKE, 1, stored, now, now + _queued_seconds(), member, cap, _queued_seconds() + 60
        )
    except CACHE_ERRORS:  # the cache is down: no shares
        logger.warning("lane of benchmark %s not taken: the cache is unavailable", benchmark_id)
        return Lane(default_queue(), None)
    if not taken:
        return Lane(bulk_queue(), None)
    return Lane(default_queue(), f"{key}{_SEPARATOR}{member}")


def lane_running(slot: str | None, *, now: float | None = None) -> None:
    """The task holding ``slot`` is alive and running: its slot counts for
    :func:`lane_alive_seconds` more (a slot already dropped stays dropped)."""
    parts = _split(slot) if slot else None
    found = _redis(parts[0]) if parts else None
    if parts is None or found is None:
        return
    client, stored = found
    now = time.time() if now is None else now
    try:
        client.zadd(stored, {parts[1]: now + lane_alive_seconds()}, xx=True)
    except CACHE_ERRORS:
        pass


def lane_release(slot: str | None) -> None:
    """Give the account's slot back (the task holding it ended, or was never sent)."""
    parts = _split(slot) if slot else None
    found = _redis(parts[0]) if parts else None
    if parts is None or found is None:
        return
    client, stored = found
    try:
        client.zrem(stored, parts[1])
    except CACHE_ERRORS:  # cache down: the slot expires by itself
        pass


def lane_slots_held(benchmark_id: int, *, now: float | None = None) -> int:
    """How many of the benchmark's account's slots on the default queue count now."""
    key = _account_key(benchmark_id)
    found = _redis(key)
    if found is None:
        return 0
    client, stored = found
    now = time.time() if now is None else now
    try:
        return int(client.zcount(stored, f"({now}", "+inf"))
    except CACHE_ERRORS:  # the cache is down: no shares are kept
        return 0
