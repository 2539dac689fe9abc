"""At most one queued recompute per benchmark.

Every change to a benchmark's input bumps its requested revision and asks for a
recompute; a run computes the newest revision there is when it starts. So while one
recompute of a benchmark waits in the queue, another adds nothing but queue time for
everyone else (issue 26: 30 changes of ``seed`` queued 30 full recomputes, and another
benchmark's waited 504 s). :func:`recompute_claim` takes a short-lived mark in the
shared cache when a task is queued; the task drops it as it starts, so a change during
a run still queues exactly one more.

A mark whose task was lost (with the broker, or with a worker that had taken it) must not
hold its benchmark back for long (issue 41): the mark holds the time it was taken, and
the stale sweep claims over a mark older than ``PODIUM_RECOMPUTE_REQUEUE_SECONDS``
(``stale_after``) for a benchmark that is still due and that no live run holds. A task
that was only slow to start then runs as a duplicate, which finds its revision computed.
Every mark also expires after ``PODIUM_RECOMPUTE_COALESCE_SECONDS``.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache


def _key(benchmark_id: int) -> str:
    return f"podium:recompute-queued:{benchmark_id}"


def recompute_claim(
    benchmark_id: int, *, stale_after: float | None = None, now: float | None = None
) -> bool:
    """True if no recompute of the benchmark is queued (and marks one as queued now).

    ``stale_after``: a mark taken longer ago than this many seconds counts as lost and is
    taken over (the stale sweep's claim)."""
    seconds = settings.PODIUM_RECOMPUTE_COALESCE_SECONDS
    if not seconds:
        return True
    now = time.time() if now is None else now
    try:
        if cache.add(_key(benchmark_id), now, timeout=seconds):
            return True
        if stale_after is None:
            return False
        taken = cache.get(_key(benchmark_id))
        if isinstance(taken, (int, float)) and now - taken < stale_after:
            return False
        cache.set(_key(benchmark_id), now, timeout=seconds)
        return True
    except Exception:  # the cache is down: queue it, as before coalescing
        return True


def recompute_release(benchmark_id: int) -> None:
    """The queued recompute has started: the next change queues another."""
    try:
        cache.delete(_key(benchmark_id))
    except Exception:
        pass


def _completion_key(benchmark_id: int) -> str:
    return f"podium:completion-queued:{benchmark_id}"


def completion_claim(benchmark_id: int) -> bool:
    """True if no completion of the benchmark is queued (and marks one as queued now,
    for ``PODIUM_RECOMPUTE_REQUEUE_SECONDS``: a lost one is queued again after that).
    Off with coalescing (``PODIUM_RECOMPUTE_COALESCE_SECONDS`` 0)."""
    if not settings.PODIUM_RECOMPUTE_COALESCE_SECONDS:
        return True
    try:
        return bool(
            cache.add(
                _completion_key(benchmark_id),
                1,
                timeout=max(settings.PODIUM_RECOMPUTE_REQUEUE_SECONDS, 1),
            )
        )
    except Exception:  # the cache is down: queue it (a duplicate completes nothing twice)
        return True


def completion_queued(benchmark_id: int) -> bool:
    """Whether a completion of the benchmark is queued and has not started (False with
    the cache down: nothing is known)."""
    try:
        return cache.get(_completion_key(benchmark_id)) is not None
    except Exception:
        return False


def completion_release(benchmark_id: int) -> None:
    """The queued completion has started: the next served version queues another."""
    try:
        cache.delete(_completion_key(benchmark_id))
    except Exception:
        pass
