"""Request throttles: per client, per user, and per benchmark for submissions.

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (environment variables in
``config.settings.base``) and are read on every request, so ``override_settings`` and a
settings change apply at once (DRF's own classes read them once, at import). Counters
live in the default cache (Redis when ``REDIS_URL`` is set). A scope whose rate is
``None`` is not throttled. If the cache is unreachable the request is let through: an
outage of the cache should not take the API down with it.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import cast

from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

logger = logging.getLogger(__name__)


def client_address(request) -> str:
    """The client's address, trusting ``PODIUM_NUM_PROXIES`` proxies' X-Forwarded-For
    (DRF's rule), for throttles and login lockouts alike."""
    return BaseThrottle().get_ident(request)


class _SettingsRateThrottle(SimpleRateThrottle):
    def get_rate(self) -> str | None:
        # The stubs type the rates as numbers; DRF's are "N/period" strings.
        rates = cast("dict[str, str | None]", api_settings.DEFAULT_THROTTLE_RATES)
        return rates.get(self.scope or "")

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError):
            logger.warning("throttle %s: the cache is unreachable; not throttling", self.scope)
            return True

    def _cache_key(self, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AnonThrottle(_SettingsRateThrottle):
    """Anonymous requests, per client address (see ``NUM_PROXIES``)."""

    scope = "anon"

    def get_cache_key(self, request, view) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self._cache_key(self.get_ident(request))


class UserThrottle(_SettingsRateThrottle):
    """Authenticated requests, per user (sessions and tokens together)."""

    scope = "user"

    def get_cache_key(self, request, view) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self._cache_key(str(request.user.pk))


class SubmitThrottle(_SettingsRateThrottle):
    """Submissions (JSON or file) by one user to one benchmark."""

    scope = "submit"

    def get_cache_key(self, request, view) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self._cache_key(f"{view.kwargs['slug']}:{request.user.pk}")


class BenchmarkSubmitThrottle(_SettingsRateThrottle):
    """Submissions to one benchmark by everyone: each accepted one costs a recompute."""

    scope = "benchmark_submit"

    def get_cache_key(self, request, view) -> str | None:
        return self._cache_key(view.kwargs["slug"])


# One policy for every submission path: the API's submission views use these classes,
# and the web forms count through ``submission_throttle_wait``, so both share counters.
SUBMISSION_THROTTLES = (SubmitThrottle, BenchmarkSubmitThrottle)


def submission_throttle_wait(request, *, slug: str) -> float | None:
    """Count one submission attempt by ``request.user`` to benchmark ``slug``.

    Returns None when it is allowed, or the seconds to wait (as DRF's throttles, whose
    counters these are). ``request`` is a Django or DRF request.
    """
    view = SimpleNamespace(kwargs={"slug": slug})
    waits = []
    for throttle_class in SUBMISSION_THROTTLES:
        throttle = throttle_class()
        if not throttle.allow_request(request, view):
            waits.append(throttle.wait() or 1.0)
    return max(waits) if waits else None
