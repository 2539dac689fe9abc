"""A signed-in reader of a cached page (frontend/page_shell.py): every way of signing a
reader out signs out every copy of their cookie (an expiry written to the database behind
the session engine's back, once the session's cached copy lapses), the navigation drawn
from a pattern made once is the template drawn, and no reader's name or token is in
anyone else's answer."""

from __future__ import annotations

import re
from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.sessions.backends.cached_db import KEY_PREFIX
from django.contrib.sessions.backends.cached_db import SessionStore as CachedDbStore
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.middleware.csrf import _get_new_csrf_string
from django.template.context_processors import csrf
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from frontend.page_shell import SITE_NAV_TEMPLATE, _drawn, _site_nav
from tests.factories import make_benchmark, make_user
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
# Names that would break a pattern filled by str.format or a careless escape.
AWKWARD_NAMES = ["<b>ada&co</b>", "{token}", "{username}}", "podium-shell-username-4d1c9e"]


def _signed_in(username: str = "reader"):
    user = make_user(username)
    client = Client()
    client.force_login(user)
    return user, client


def _is_signed_in(client: Client) -> bool:
    response = client.get(reverse("account-home"))
    assert response.status_code in (200, 302)
    return response.status_code == 200


def _log_out(user, client):
    client.post(reverse("account-logout"))


def _change_password(user, client):
    user.set_password("another-password-for-tests")
    user.save()


def _deactivate(user, client):
    user.is_active = False
    user.save()


def _delete_user(user, client):
    user.delete()


@pytest.mark.parametrize("sign_out", [_log_out, _change_password, _deactivate, _delete_user])
def test_what_signs_a_reader_out_signs_out_every_copy_of_their_cookie(sign_out):
    user, client = _signed_in("stale-cookie-owner")
    old_cookie = client.cookies["sessionid"].value
    assert _is_signed_in(client)
    sign_out(user, client)
    stale = Client()
    stale.cookies["sessionid"] = old_cookie
    assert not _is_signed_in(stale)
    board = make_benchmark("after-sign-out")
    store_snapshot(board, large_payload(3))
    Client().get(f"/b/{board.slug}/")  # the anonymous entry
    page = stale.get(f"/b/{board.slug}/")
    assert page.status_code == 200 and b"stale-cookie-owner" not in page.content
    assert b'data-testid="nav-login"' in page.content
    assert b'data-testid="nav-account"' not in page.content


def _session_copy_seconds(session_key: str) -> int:
    """How long the session cache keeps its copy of the session (Redis's TTL; -2: none)."""
    sessions = caches[settings.SESSION_CACHE_ALIAS]
    client = sessions._cache.get_client(write=False)  # type: ignore[attr-defined]
    return client.ttl(sessions.make_key(KEY_PREFIX + session_key))


def test_a_session_expired_in_the_database_ends_when_its_cached_copy_lapses():
    """A signed-in request reads the session from the cache (no query); an expiry
    written to the database behind the session engine's back (a raw update) is read
    once the copy lapses, at most SESSION_CACHE_SECONDS later, as every copy does."""
    assert issubclass(import_module(settings.SESSION_ENGINE).SessionStore, CachedDbStore)
    _, client = _signed_in("expired-owner")
    session_key = client.cookies["sessionid"].value
    # The copy a request writes when it finds none (read just after that one request:
    # a minute's margin) expires within SESSION_CACHE_SECONDS, not with the session.
    caches[settings.SESSION_CACHE_ALIAS].delete(KEY_PREFIX + session_key)
    assert _is_signed_in(client)
    assert 0 < _session_copy_seconds(session_key) <= settings.SESSION_CACHE_SECONDS
    Session.objects.update(expire_date=timezone.now() - timezone.timedelta(seconds=1))
    caches[settings.SESSION_CACHE_ALIAS].delete(KEY_PREFIX + session_key)  # the copy lapsed
    stale = Client()
    stale.cookies["sessionid"] = session_key
    assert not _is_signed_in(stale)
    assert _session_copy_seconds(session_key) == -2  # an expired session is not cached


def test_a_session_signed_with_a_retired_secret_key_is_kept_and_moved_to_the_new_one():
    with override_settings(SECRET_KEY="the-old-key-for-tests-only-0123456789"):
        _, client = _signed_in()
        old_key = client.session.session_key
    with override_settings(
        SECRET_KEY="the-new-key-for-tests-only-0123456789",
        SECRET_KEY_FALLBACKS=["the-old-key-for-tests-only-0123456789"],
    ):
        assert _is_signed_in(client)
        assert client.session.session_key != old_key  # cycled, as Django cycles it
        assert _is_signed_in(client)
    with override_settings(SECRET_KEY="a-third-key-for-tests-only-0123456789"):
        assert not _is_signed_in(client)


@pytest.mark.parametrize("username", ["ada", *AWKWARD_NAMES])
def test_the_navigation_drawn_from_its_pattern_is_the_template_drawn(username):
    user = make_user(username)
    request = RequestFactory().get("/b/any/")
    request.user = user
    request.META["CSRF_COOKIE"] = _get_new_csrf_string()
    drawn = _drawn(SITE_NAV_TEMPLATE, {"request": request, "user": user, **csrf(request)})
    fast = _site_nav(request)
    assert len(TOKEN.findall(fast)) == 1
    assert TOKEN.sub("", fast) == TOKEN.sub("", drawn)


def test_awkward_names_show_to_their_reader_alone():
    board = make_benchmark("awkward")
    store_snapshot(board, large_payload(3))
    readers = {name: _signed_in(name)[1] for name in AWKWARD_NAMES}
    readers["anonymous"] = Client()
    bodies = {}
    for _ in range(2):  # a miss, then hits
        for name, client in readers.items():
            response = client.get(f"/b/{board.slug}/")
            assert response.status_code == 200
            bodies[name] = response.content.decode()
    for name, body in bodies.items():
        shown = {other for other in AWKWARD_NAMES if f">{escape(other)}</a>" in body}
        assert shown == ({name} if name != "anonymous" else set()), name
