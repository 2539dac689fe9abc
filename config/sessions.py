"""Sessions stored in the database and read through Redis (Django's ``cached_db``
engine), with a key that has no session remembered as such.

A cookie whose session has ended (expired, flushed, signed out on another device by a
password change), or a made-up one, is looked up in the database by ``cached_db`` on
every request that sends it. A browser drops it when the first answer deletes it; a
client that keeps sending one (a script, a crawler, an attacker bypassing the page cache)
would cost a query each time. Here an absent key is remembered for as long as a
session's cached copy may live (``SESSION_CACHE_SECONDS``), so such a request costs one
cache read. Session keys are random and never taken from a cookie (Django makes a new
one where the cookie's has no session), so a key remembered as absent does not become a
session.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.sessions.backends import cached_db
from django.core.cache import caches

logger = logging.getLogger(__name__)

ABSENT_PREFIX = "podium.sessions.absent."


class SessionStore(cached_db.SessionStore):
    def load(self):
        key = self.session_key
        if not key:
            return super().load()
        # The session's copy and the absent mark in one round trip: a signed-in request
        # reads no more than cached_db's own read.
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
        names = (self.cache_key_prefix + key, ABSENT_PREFIX + key)
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
