"""Sessions stored in the database and read through Redis (Django's ``cached_db``
engine), with a key that has no session remembered as such, read with the page's entry.

A cookie whose session has ended (expired, flushed, signed out on another device by a
password change), or a made-up one, is looked up in the database by ``cached_db`` on
every request that sends it. A browser drops it when the first answer deletes it; a
client that keeps sending one (a script, a crawler, an attacker bypassing the page cache)
would cost a query each time. Here an absent key is remembered for as long as a
session's cached copy may live (``SESSION_CACHE_SECONDS``), so such a request costs one
cache read. Session keys are random and never taken from a cookie (Django makes a new
one where the cookie's has no session), so a key remembered as absent does not become a
session.

A reader page with a reader's own part (frontend/page_cache.py) reads its shared entry
before sessions run; where the sessions' Redis is the page cache's (the settings make
them so), that same round trip reads the session's copy and absent mark too
(:func:`prefetch_names`, :func:`prefetched_keep`), and the store reads them from the
request instead of asking again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.contrib.sessions import middleware
from django.contrib.sessions.backends import cached_db
from django.core.cache import caches
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest

logger = logging.getLogger(__name__)

ABSENT_PREFIX = "podium.sessions.absent."
_PREFETCHED = "_podium_session_prefetched"


@dataclass(frozen=True)
class _Prefetched:
    """What the page cache read of a session key: its copy (None: none) and absent mark."""

    key: str
    copy: dict | None
    absent: bool


def _names(key: str) -> tuple[str, str]:
    """The cache names of a session key's copy (cached_db's) and of its absent mark."""
    return cached_db.KEY_PREFIX + key, ABSENT_PREFIX + key


# Options of config.cache.FailOpenRedisCache that bound its own entries or outages, not
# where they are or how they are written.
_OWN_OPTIONS = frozenset({"max_timeout", "retry_seconds"})


def _server(cache: dict) -> tuple:
    """Where a cache's entries are, under which keys, written how."""
    options = {k: v for k, v in (cache.get("OPTIONS") or {}).items() if k not in _OWN_OPTIONS}
    named = ("BACKEND", "LOCATION", "KEY_PREFIX", "VERSION", "KEY_FUNCTION")
    return (*(cache.get(name) for name in named), sorted(options.items()))


def prefetch_names(request: HttpRequest, alias: str) -> tuple[str, str] | None:
    """The names to read with cache ``alias``'s round trip so that this request's session
    needs none of its own; None where that cache is not the sessions' own Redis under
    the same keys, or the request has no session cookie."""
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not key or not _sessions_share(alias):
        return None
    return _names(key)


@lru_cache(maxsize=8)
def _sessions_share(alias: str) -> bool:
    """Whether this engine's sessions are cached in cache ``alias``'s server under the
    same keys (decided once per process: it reads settings only)."""
    caches_ = settings.CACHES
    sessions, other = caches_.get(settings.SESSION_CACHE_ALIAS), caches_.get(alias)
    if settings.SESSION_ENGINE != __name__ or not sessions or not other:
        return False
    return _server(sessions) == _server(other)


@receiver(setting_changed)
def _settings_changed(*, setting: str, **kwargs) -> None:
    if setting in ("CACHES", "SESSION_ENGINE", "SESSION_CACHE_ALIAS"):
        _sessions_share.cache_clear()


def prefetched_keep(request: HttpRequest, names: tuple[str, str], found: dict) -> None:
    """Keep on ``request`` what :func:`prefetch_names`' names read (``found``: the
    round trip's answer, which lacks a name it did not find)."""
    key = names[0].removeprefix(cached_db.KEY_PREFIX)
    prefetched = _Prefetched(key, found.get(names[0]), bool(found.get(names[1])))
    setattr(request, _PREFETCHED, prefetched)


class SessionMiddleware(middleware.SessionMiddleware):
    """Django's, handing the store what the page cache read of its key, if anything."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        prefetched = getattr(request, _PREFETCHED, None)
        session = request.session
        if isinstance(prefetched, _Prefetched) and isinstance(session, SessionStore):
            session.prefetched = prefetched  # used by load() only for its own key


class SessionStore(cached_db.SessionStore):
    prefetched: _Prefetched | None = None

    def load(self):
        key = self.session_key
        if not key:
            return super().load()
        # The session's copy and the absent mark in one round trip: a signed-in request
        # reads no more than cached_db's own read (none where the page cache read them).
        prefetched = self.prefetched
        if prefetched is not None and prefetched.key == key:
            self.prefetched = None  # once: a second load reads the cache again
            copy, absent = prefetched.copy, prefetched.absent
        else:
            copy, absent = self._cached(key)
        if copy is not None:
            return copy
        if absent:
            self._session_key = None
            return {}
        data = super().load()  # the database (cached_db reads its cache once more first)
        if self.session_key is None:  # the database has no live session of it
            self._remember_absent(key)
        return data

    def _cached(self, key: str) -> tuple[dict | None, bool]:
        """The cached copy of the session and whether the key is marked absent."""
        names = _names(key)
        try:
            found = caches[settings.SESSION_CACHE_ALIAS].get_many(names)
        except Exception:  # the cache fails open, as cached_db's own reads do
            logger.warning("the session cache is unreachable", exc_info=True)
            return None, False
        return found.get(names[0]), bool(found.get(names[1]))

    def _remember_absent(self, key: str) -> None:
        try:
            caches[settings.SESSION_CACHE_ALIAS].set(
                ABSENT_PREFIX + key, 1, settings.SESSION_CACHE_SECONDS
            )
        except Exception:
            logger.warning("the session cache is unreachable", exc_info=True)
