"""The signed-in reader's user read through Redis (frontend/accounts/user_copies.py): no
user row read while the copy lives, and no copy outlives a change to its user or
answers another user's session."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from frontend.accounts import user_copies
from frontend.accounts.adapter import unconfirmed_claims_release
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PAGE = "/account/tokens/"  # a signed-in page that reads the user and nothing cached


def _signed_in(username: str) -> Client:
    client = Client()
    client.force_login(make_user(username))
    return client


def _user_reads(client: Client, path: str = PAGE) -> tuple[int, str]:
    """How many times the request read the user table, and the status."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    user_table = get_user_model()._meta.db_table
    reads = [q for q in queries if f'FROM "{user_table}"' in q["sql"]]
    return len(reads), response


def _copies():
    copies = user_copies.copies_cache()
    assert copies is not None, "the tests run with Redis sessions (README)"
    return copies


def test_a_signed_in_readers_second_request_reads_no_user_row():
    client = _signed_in("ada")
    first, response = _user_reads(client)
    assert response.status_code == 200 and first == 1
    again, response = _user_reads(client)
    assert response.status_code == 200 and b"ada" in response.content
    assert again == 0


def test_a_deactivated_user_is_signed_out_at_once():
    client = _signed_in("ada")
    client.get(PAGE)  # copied
    ada = get_user_model().objects.get(username="ada")
    ada.is_active = False
    ada.save()
    reads, response = _user_reads(client)
    assert reads == 1  # the copy went with the save
    assert response.status_code == 302  # to the sign-in page: no longer signed in


def test_a_password_changed_elsewhere_signs_the_session_out():
    client = _signed_in("ada")
    client.get(PAGE)
    ada = get_user_model().objects.get(username="ada")
    ada.set_password("a new secret of hers 7391")
    ada.save()
    assert client.get(PAGE).status_code == 302


def test_a_copy_lives_no_longer_than_a_sessions_copy(monkeypatch):
    """A copy whose delete is lost (Redis unreachable for it) keeps a revoked user as
    long as a lost sign-out keeps a session: at most SESSION_CACHE_SECONDS (the timeout
    it is stored with, as the cache bounds it)."""
    copies = _copies()
    stored: list[object] = []
    real_add = type(copies).add

    def recorded(self, key, value, timeout=None, version=None):
        stored.append(timeout)
        return real_add(self, key, value, timeout, version)

    monkeypatch.setattr(type(copies), "add", recorded)
    client = _signed_in("ada")
    client.get(PAGE)
    assert len(stored) == 1
    assert 0 < copies.get_backend_timeout(stored[0]) <= settings.SESSION_CACHE_SECONDS


def test_a_copy_whose_password_hash_differs_from_the_sessions_is_not_used():
    """The session hash decides alone: a copy of the right user and backend made under
    another password (planted in Redis) is a miss, and the row is read."""
    client = _signed_in("ada")
    client.get(PAGE)
    key = user_copies._copy_key(get_user_model().objects.get(username="ada").pk)
    backend, copy = _copies().get(key)
    copy.password = "pbkdf2_sha256$1000000$another$password"
    _copies().set(key, (backend, copy), 60)
    reads, response = _user_reads(client)
    assert reads == 1 and response.status_code == 200


def test_a_row_read_before_a_change_is_not_stored_after_it(monkeypatch):
    """A request reads the row, the user is deactivated (the drop), then the request
    stores its copy: the drop's tombstone keeps it out, and the next request reads the
    row again."""
    client = _signed_in("ada")
    real_get_user = user_copies.auth.get_user

    def read_then_deactivated(request):
        user = real_get_user(request)  # read while active
        ada = get_user_model().objects.get(pk=user.pk)
        ada.is_active = False
        ada.save()  # committed before this request stores its copy
        return user

    monkeypatch.setattr(user_copies.auth, "get_user", read_then_deactivated)
    assert client.get(PAGE).status_code == 200  # this request read ada while active
    monkeypatch.setattr(user_copies.auth, "get_user", real_get_user)
    assert client.get(PAGE).status_code == 302


def test_a_sign_in_keeps_the_users_copy():
    """A sign-in saves last_login alone, which nothing a request decides reads."""
    first = _signed_in("ada")
    first.get(PAGE)
    second = Client()
    second.force_login(get_user_model().objects.get(username="ada"))
    assert _user_reads(first)[0] == 0


def test_a_deleted_user_is_signed_out():
    client = _signed_in("ada")
    client.get(PAGE)
    get_user_model().objects.get(username="ada").delete()
    assert client.get(PAGE).status_code == 302


def test_another_users_copy_under_this_users_key_is_never_used():
    ada_client, bob_client = _signed_in("ada"), _signed_in("bob")
    ada_client.get(PAGE)
    bob_client.get(PAGE)
    users = get_user_model().objects
    ada, bob = users.get(username="ada"), users.get(username="bob")
    bobs_copy = _copies().get(user_copies._copy_key(bob.pk))
    assert bobs_copy is not None
    _copies().set(user_copies._copy_key(ada.pk), bobs_copy, 60)  # planted in Redis
    reads, response = _user_reads(ada_client)
    assert reads == 1  # not Bob's copy: Ada's row read again
    assert b"ada" in response.content and b"bob" not in response.content


def test_an_account_deactivated_by_update_loses_its_copy():
    """``unconfirmed_claims_release`` deactivates with ``QuerySet.update`` (no signal)."""
    from allauth.account.models import EmailAddress

    claimant = _signed_in("mallory")
    mallory = get_user_model().objects.get(username="mallory")
    mallory.email = "shared@example.org"
    mallory.save()
    EmailAddress.objects.filter(user=mallory).delete()
    EmailAddress.objects.create(user=mallory, email="shared@example.org", verified=False)
    claimant.get(PAGE)  # copied
    owner = make_user("owner")
    confirmed = EmailAddress.objects.create(user=owner, email="shared@example.org", verified=True)
    unconfirmed_claims_release(confirmed)
    assert not get_user_model().objects.get(username="mallory").is_active
    assert claimant.get(PAGE).status_code == 302


@override_settings(SESSION_ENGINE="django.contrib.sessions.backends.db")
def test_without_redis_sessions_nothing_is_copied():
    client = _signed_in("ada")
    client.get(PAGE)
    assert _user_reads(client)[0] == 1
    assert (
        caches["sessions"].get(
            user_copies._copy_key(get_user_model().objects.get(username="ada").pk)
        )
        is None
    )
