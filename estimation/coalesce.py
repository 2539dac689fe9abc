"""At most one queued recompute per benchmark.

Every change to a benchmark's input bumps its requested revision and asks for a
recompute; a run computes the newest revision there is when it starts. So while one
recompute of a benchmark waits in the queue, another adds nothing but queue time for
everyone else (issue 26: 30 changes of ``seed`` queued 30 full recomputes, and another
benchmark's waited 504 s). :func:`recompute_claim` takes a short-lived mark in the
shared cache when a task is queued; the task drops it as it starts, so a change during
a run still queues exactly one more. A mark left by a lost task expires after
``PODIUM_RECOMPUTE_COALESCE_SECONDS``, and the stale sweep enqueues what is still due.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache


def _key(benchmark_id: int) -> str:
    return f"podium:recompute-queued:{benchmark_id}"


def recompute_claim(benchmark_id: int) -> bool:
    """True if no recompute of the benchmark is queued (and marks one as queued now)."""
    seconds = settings.PODIUM_RECOMPUTE_COALESCE_SECONDS
    if not seconds:
        return True
    try:
        return bool(cache.add(_key(benchmark_id), 1, timeout=seconds))
    except Exception:  # the cache is down: queue it, as before coalescing
        return True


def recompute_release(benchmark_id: int) -> None:
    """The queued recompute has started: the next change queues another."""
    try:
        cache.delete(_key(benchmark_id))
    except Exception:
        pass
