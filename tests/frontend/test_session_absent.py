"""A session cookie with no session behind it (config/sessions.py): looked up in the
database once, then answered from the cache, while real sessions read as before. A
browser drops the cookie when the answer deletes it; a client that keeps sending it (a
script, a crawler, an attacker) no longer costs a query per request."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from config.sessions import ABSENT_PREFIX, SessionStore
from tests.factories import make_benchmark, make_user
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db


def _session_queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return sum("django_session" in q["sql"] for q in queries.captured_queries)


def test_a_cookie_of_no_session_is_looked_up_once():
    board = make_benchmark("absent-session")
    store_snapshot(board, large_payload(3))
    path = f"/b/{board.slug}/"
    for expected in (1, 0, 0):
        # A client that sends it again whatever the answer said (a browser drops it):
        # made up, or of a session since ended.
        stranger = Client()
        stranger.cookies["sessionid"] = "x" * 32
        assert _session_queries(stranger, path) == expected


def test_a_signed_out_cookie_stays_signed_out_and_signing_in_again_works():
    user = make_user("comes-back")
    client = Client()
    client.force_login(user)
    old = client.cookies["sessionid"].value
    client.post(reverse("account-logout"))
    stale = Client()
    stale.cookies["sessionid"] = old
    assert stale.get(reverse("account-home")).status_code == 302  # to sign in
    assert caches[settings.SESSION_CACHE_ALIAS].get(ABSENT_PREFIX + old)  # remembered
    assert stale.get(reverse("account-home")).status_code == 302
    stale.force_login(user)  # a new key: the absent one is never reused
    assert stale.cookies["sessionid"].value != old
    assert stale.get(reverse("account-home")).status_code == 200


def test_an_unreachable_cache_reads_the_database(monkeypatch):
    """The cache fails open, as cached_db's own reads do: a lookup, not a 500."""
    store = SessionStore("y" * 32)

    def unreachable(*args, **kwargs):
        raise ConnectionError("redis is down")

    sessions = caches[settings.SESSION_CACHE_ALIAS]
    monkeypatch.setattr(sessions, "get", unreachable)
    monkeypatch.setattr(sessions, "set", unreachable)
    with CaptureQueriesContext(connection) as queries:
        assert store.load() == {}
    assert any("django_session" in q["sql"] for q in queries.captured_queries)


def test_a_cached_session_is_read_in_one_cache_round_trip(monkeypatch):
    """The absent mark is read with the session's copy (get_many), not after it: a
    signed-in request pays no more cache reads than cached_db's own."""
    client = Client()
    client.force_login(make_user("one-trip"))
    key = client.cookies["sessionid"].value
    assert client.get(reverse("account-home")).status_code == 200  # the copy is cached
    sessions = caches[settings.SESSION_CACHE_ALIAS]
    calls = []
    for name in ("get", "get_many"):
        original = getattr(sessions, name)
        monkeypatch.setattr(
            sessions, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    with CaptureQueriesContext(connection) as queries:
        assert SessionStore(key).load()["_auth_user_id"]
    assert calls == ["get_many"] and not queries.captured_queries
