"""Rate limits on account pages that log nobody in: signup and password reset.

Every signup POST from one client address counts (a refused one too: probing which
usernames are taken is what it slows down), up to ``PODIUM_SIGNUP_RATE`` (``N/period``
as the API throttles take it, e.g. ``5/hour``; empty turns it off), and every
password-reset request up to ``PODIUM_PASSWORD_RESET_RATE``. Log-in has its own
lockout (django-axes, config/settings/base.py).
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle

from leaderboard.throttling import client_address


def signup_wait(request) -> int | None:
    """Seconds until this address may sign up again, or None if it may now."""
    return rate_wait(request, kind="signup", rate=getattr(settings, "PODIUM_SIGNUP_RATE", ""))


def rate_wait(request, *, kind: str, rate: str) -> int | None:
    """Count one ``kind`` of request from this client address against ``rate``; the
    seconds to wait when over it, else None."""
    if not rate:
        return None
    allowed, period = SimpleRateThrottle.parse_rate(None, rate)  # type: ignore[arg-type]
    assert allowed is not None and period is not None
    key = f"podium:{kind}:{client_address(request)}"
    cache.add(key, 0, timeout=period)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=period)
        count = 1
    return period if count > allowed else None
