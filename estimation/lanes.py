"""Which queue a recompute goes to: fair shares per account (issue 26).

A benchmark's account is its first maintainer (the one who created it). Each account
may have ``PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT`` recomputes queued or running on
the default queue at once; any more go to the bulk queue (config/queues.py). So while
one account floods (many benchmarks, settings changes), another benchmark's recompute
waits behind none of the flooder's as long as the default queue has more processes than
that share (config/queues.py), and behind at most that many otherwise. The count lives in
the shared cache; a slot a lost task never gave back expires after the recompute time
limit plus the coalescing window, and with the cache down every recompute takes the
default queue, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from config.queues import bulk_queue, default_queue
from leaderboard.models import Benchmark


@dataclass(frozen=True)
class Lane:
    queue: str
    # The cache key of the account slot this task holds (None: it holds none).
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


def _slot_seconds() -> int:
    return settings.RECOMPUTE_TIME_LIMIT + max(settings.PODIUM_RECOMPUTE_COALESCE_SECONDS, 60)


def recompute_lane(benchmark_id: int) -> Lane:
    """Take one of the account's slots on the default queue, or send it to bulk."""
    cap = settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT
    if cap <= 0:
        return Lane(default_queue(), None)  # fairness off: one queue, as before
    key = _account_key(benchmark_id)
    try:
        cache.add(key, 0, timeout=_slot_seconds())
        held = cache.incr(key)
    except Exception:  # the cache is down (or the key just expired): no shares
        return Lane(default_queue(), None)
    if held > cap:
        lane_release(key)
        return Lane(bulk_queue(), None)
    return Lane(default_queue(), key)


def lane_release(slot: str | None) -> None:
    """Give the account's slot back (the task holding it ended, or was never sent)."""
    if not slot:
        return
    try:
        if cache.decr(slot) < 0:
            cache.delete(slot)
    except Exception:  # expired or cache down: nothing is held any more
        pass


def lane_slots_held(benchmark_id: int) -> int:
    """How many of the benchmark's account's slots on the default queue are held now."""
    try:
        return int(cache.get(_account_key(benchmark_id)) or 0)
    except Exception:  # the cache is down: no shares are kept
        return 0
