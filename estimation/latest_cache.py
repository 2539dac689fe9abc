"""The latest snapshot's answer for anonymous readers, one cache entry per benchmark and
metric, so that a polled ``snapshots/latest/`` costs one cache read and no query.

An entry holds what the API view computed for an anonymous request (its strong ETag,
Last-Modified, and the body serialised and compressed once) and is written only by
such a request of a public benchmark, when no newer version was computing: a private
(or unlisted) benchmark never gets one. It is dropped whenever what it says may
change: a snapshot of the benchmark is created, saved, deleted, becomes ready or fails
(``latest_invalidate``, called by the services and by the model signals below), or the
benchmark, one of its metrics or algorithms is saved or deleted (visibility, primary
metric, an algorithm's version). The generation token is also the key of the reader
pages' cache (frontend/page_cache.py), so the same invalidation drops those.

A reader that computed its entry from the database before an invalidation must not
store it after: each benchmark has a generation token, replaced on every invalidation;
the reader reads it before the database and stores only if it is unchanged.
Invalidation runs at once and again after the transaction commits (a reader between
the two would otherwise see the old rows under the new token). Entries also expire
after ``ENTRY_SECONDS``, which bounds what an invalidation lost to a Redis outage (the
cache fails open) can leave behind.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from config.cache import pages_cache

logger = logging.getLogger(__name__)

ENTRY_SECONDS = 60


@dataclass(frozen=True)
class LatestEntry:
    etag: str
    last_modified: datetime
    origin: str  # scheme://host/ the body's absolute URLs were built for
    body: Any  # the serialised, compressed body (estimation.api.bodies.CompressedBody)


def _key(slug: str, metric: str) -> str:
    # The metric as the client spelt it ("" for the primary one), hashed: any characters.
    return f"latest:{slug}:{hashlib.sha256(metric.encode()).hexdigest()[:24]}"


def _generation_key(slug: str) -> str:
    return f"latest-generation:{slug}"


def latest_entry_get(*, slug: str, metric: str) -> LatestEntry | None:
    entry = pages_cache.get(_key(slug, metric))
    return entry if isinstance(entry, LatestEntry) else None


def latest_generation(*, slug: str) -> str | None:
    """Read before the database; pass it to :func:`latest_entry_put`."""
    return pages_cache.get(_generation_key(slug))


def generation_cache_key(*, slug: str) -> str:
    return _generation_key(slug)


def benchmark_generation(*, slug: str) -> str:
    """The benchmark's current generation token, made if it has none (the page cache
    keys its entries by it: frontend/page_cache.py)."""
    key = _generation_key(slug)
    current = pages_cache.get(key)
    if current is None:
        pages_cache.add(key, uuid.uuid4().hex, timeout=None)
        current = pages_cache.get(key)
    return current if isinstance(current, str) else "none"


def latest_entry_put(*, slug: str, metric: str, generation: str | None, entry: LatestEntry) -> bool:
    """Store ``entry`` unless the benchmark was invalidated since ``generation`` was read."""
    if pages_cache.get(_generation_key(slug)) != generation:
        return False
    pages_cache.set(_key(slug, metric), entry, timeout=ENTRY_SECONDS)
    return True


def _drop(slug: str, metrics: Iterable[str]) -> None:
    pages_cache.set(_generation_key(slug), uuid.uuid4().hex, timeout=None)
    pages_cache.delete_many([_key(slug, name) for name in {"", *metrics}])


def latest_invalidate(
    *, benchmark_id: int | None = None, slug: str | None = None, metrics: Iterable[str] = ()
) -> None:
    """Drop the entries of a benchmark (by id, or by slug with its metric names), now and
    after the current transaction commits."""
    from leaderboard.models import Benchmark, Metric

    names = set(metrics)
    if slug is None:
        if benchmark_id is None:
            return
        # The slug and the metric names in one round trip (a snapshot's save waits on it).
        rows = list(Benchmark.objects.filter(pk=benchmark_id).values_list("slug", "metrics__name"))
        if not rows:
            return
        slug = rows[0][0]
        names |= {name for _, name in rows if name is not None}
    elif benchmark_id is not None:
        names |= set(
            Metric.objects.filter(benchmark_id=benchmark_id).values_list("name", flat=True)
        )
    _drop(slug, names)
    transaction.on_commit(lambda: _drop(slug, names))


def _snapshot_changed(sender, instance, **kwargs) -> None:
    latest_invalidate(benchmark_id=instance.benchmark_id)


def _benchmark_changed(sender, instance, **kwargs) -> None:
    latest_invalidate(slug=instance.slug, benchmark_id=instance.pk)


def _metric_changed(sender, instance, **kwargs) -> None:
    latest_invalidate(benchmark_id=instance.benchmark_id, metrics=[instance.name])


def _algorithm_changed(sender, instance, **kwargs) -> None:
    # A badge shows the algorithm's version (frontend/page_cache.py keys by generation).
    latest_invalidate(benchmark_id=instance.benchmark_id)


def connect_signals() -> None:
    from estimation.models import ResultSnapshot
    from leaderboard.models import Algorithm, Benchmark, Metric

    for signal in (post_save, post_delete):
        signal.connect(_algorithm_changed, sender=Algorithm, dispatch_uid="latest-algorithm")
        signal.connect(_snapshot_changed, sender=ResultSnapshot, dispatch_uid="latest-snapshot")
        signal.connect(_benchmark_changed, sender=Benchmark, dispatch_uid="latest-benchmark")
        signal.connect(_metric_changed, sender=Metric, dispatch_uid="latest-metric")
