"""A Redis cache that fails open: with Redis down, reads miss and writes are dropped.

Everything Podium keeps in its cache can be recomputed (chart fragments, serialised API
bodies, throttle counters), so an outage of Redis must cost time, not pages: Django's
own ``RedisCache`` raises ``redis.ConnectionError`` from ``{% cache %}``, from throttles
and from every other use. This backend logs the failure once per outage and, for
``PODIUM_CACHE_RETRY_SECONDS`` after it, does not try Redis again at all, so a Redis
that hangs instead of refusing does not add its socket timeout to every request.
Throttles therefore do not limit while Redis is down.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache import BaseCache, caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.connection import ConnectionProxy
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# What can be made again, and anyone can make grow (reader pages, serialised bodies,
# computed results): the "pages" cache, apart from the default cache's counters, so
# that filling it evicts no throttle or sign-up limit (config/settings/base.py).
PAGES_ALIAS = "pages"
pages_cache: BaseCache = ConnectionProxy(caches, PAGES_ALIAS)  # type: ignore[assignment]

# What Redis or its socket raise when the server is gone, refuses, or times out.
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's client builds a ``redis.Redis`` for every operation (its response-callback
    table included: a tenth of a millisecond, the largest part of a cached page's cost);
    this one keeps one per connection pool. A ``redis.Redis`` holds no connection of its
    own (the pool does, and resets itself in a forked process), so it is shared safely."""

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        clients = self.__dict__.setdefault("_clients", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class FailOpenRedisCache(RedisCache):
    """``OPTIONS``: ``retry_seconds`` (how long an outage is assumed), ``max_timeout``
    (seconds: no entry lives longer, whatever its caller asks; None: no bound)."""

    def __init__(self, server, params):
        options = dict(params.get("OPTIONS") or {})
        self.retry_seconds = float(options.pop("retry_seconds", 5.0))
        max_timeout = options.pop("max_timeout", None)
        self.max_timeout = None if max_timeout is None else int(max_timeout)
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = ReusedClientRedisCacheClient
        self._down_until = 0.0
        self._lock = threading.Lock()

    def get_backend_timeout(self, timeout=DEFAULT_TIMEOUT):
        seconds = super().get_backend_timeout(timeout)
        if self.max_timeout is None:
            return seconds
        return self.max_timeout if seconds is None else min(seconds, self.max_timeout)

    @property
    def is_down(self) -> bool:
        return time.monotonic() < self._down_until

    def _guarded(self, operation: str, call: Callable[[], Any], fallback: Any) -> Any:
        if self.is_down:
            return fallback
        try:
            return call()
        except CACHE_ERRORS as exc:
            with self._lock:
                first = not self.is_down
                self._down_until = time.monotonic() + self.retry_seconds
            if first:
                logger.warning(
                    "cache unavailable (%s: %s); serving without it for %.0f s",
                    operation,
                    exc,
                    self.retry_seconds,
                )
            return fallback

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded(
            "add", lambda: super(Cache, self).add(key, value, timeout, version), False
        )

    def get(self, key, default=None, version=None):
        return self._guarded("get", lambda: super(Cache, self).get(key, default, version), default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._guarded("set", lambda: super(Cache, self).set(key, value, timeout, version), None)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded(
            "touch", lambda: super(Cache, self).touch(key, timeout, version), False
        )

    def delete(self, key, version=None):
        return self._guarded("delete", lambda: super(Cache, self).delete(key, version), False)

    def get_many(self, keys, version=None):
        return self._guarded("get_many", lambda: super(Cache, self).get_many(keys, version), {})

    def has_key(self, key, version=None):
        return self._guarded("has_key", lambda: super(Cache, self).has_key(key, version), False)

    def incr(self, key, delta=1, version=None):
        # A missing key raises ValueError (Django's contract); during an outage every key
        # is missing, so callers keep their own fallback.
        missing = object()
        result = self._guarded(
            "incr", lambda: super(Cache, self).incr(key, delta, version), missing
        )
        if result is missing:
            raise ValueError(f"Key {key!r} not found (the cache is unavailable)")
        return result

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded(
            "set_many", lambda: super(Cache, self).set_many(data, timeout, version), list(data)
        )

    def delete_many(self, keys, version=None):
        self._guarded("delete_many", lambda: super(Cache, self).delete_many(keys, version), None)

    def clear(self):
        return self._guarded("clear", lambda: super(Cache, self).clear(), False)


Cache = FailOpenRedisCache
