"""Request throttles: per client, per user, and per benchmark for submissions.

Submission throttles are checked narrowest first and the first refusal ends the check
(:class:`SubmissionThrottles`): a request one account's own limit refuses is charged
to no budget it shares with others, so one account cannot spend a benchmark's shared
budget faster than its own limit lets it. A benchmark's maintainers are outside its
shared budget, and accounts that own one of its algorithms share one of their own, so
strangers can never throttle them.

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

from leaderboard.selectors import SubmitterStanding, submitter_standing

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
    """Submissions to one benchmark by everyone: each accepted one costs a recompute.

    Its maintainers are not counted; owners of its algorithms count in a budget of their
    own, apart from everyone else's, so no stranger can spend theirs.
    """

    scope = "benchmark_submit"

    def get_cache_key(self, request, view) -> str | None:
        slug = view.kwargs["slug"]
        standing = submitter_standing(user=getattr(request, "user", None), slug=slug)
        if standing is SubmitterStanding.MAINTAINER:
            return None
        if standing is SubmitterStanding.OWNER:
            return self._cache_key(f"{slug}:owners")
        return self._cache_key(slug)


# One policy for every submission path: the API's submission views check these after
# the per-client and per-user limits (SubmissionThrottles), and the web forms through
# ``submission_throttle_wait``, so both share counters. Narrowest first.
SUBMISSION_THROTTLES: tuple[type[SimpleRateThrottle], ...] = (
    SubmitThrottle,
    BenchmarkSubmitThrottle,
)


def _first_refusal(throttle_classes, request, view) -> float | None:
    """Ask each throttle in turn; the seconds to wait at the first refusal, else None.

    Later throttles are not asked (so not charged) once one has refused.
    """
    for throttle_class in throttle_classes:
        throttle = throttle_class()
        if not throttle.allow_request(request, view):
            return throttle.wait() or 1.0
    return None


class SubmissionThrottles(BaseThrottle):
    """The API's submission throttles, narrowest first, stopping at the first refusal.

    DRF asks every throttle of a view and each charges its own counter whatever the
    others answer, so requests a user's own limit refused still spent the benchmark's
    shared budget (620 refused requests locked everyone out for an hour).
    """

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request, view) -> bool:
        chain = (AnonThrottle, UserThrottle, *SUBMISSION_THROTTLES)
        self._wait = _first_refusal(chain, request, view)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


def submission_throttle_wait(request, *, slug: str) -> float | None:
    """Count one submission attempt by ``request.user`` to benchmark ``slug``.

    Returns None when it is allowed, or the seconds to wait (as DRF's throttles, whose
    counters these are). ``request`` is a Django or DRF request.
    """
    return _first_refusal(SUBMISSION_THROTTLES, request, SimpleNamespace(kwargs={"slug": slug}))


class PageMissThrottle(_SettingsRateThrottle):
    """Anonymous reader pages rendered because the page cache had none, per address:
    each costs a full render and three stored codings (frontend/page_cache.py)."""

    scope = "page_miss"

    def get_cache_key(self, request, view) -> str | None:
        return self._cache_key(self.get_ident(request))


def page_miss_wait(request) -> float | None:
    """Count one page-cache miss of ``request``'s client; None when allowed, else the
    seconds to wait."""
    return _first_refusal((PageMissThrottle,), request, None)
