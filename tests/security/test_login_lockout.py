"""Password guessing: after PODIUM_LOGIN_FAILURE_LIMIT wrong passwords every login path
refuses even the right one, says why, and a documented command lifts the lock.

The review sent 60 wrong passwords, then the right one logged in, on each of
/account/login/, /api-auth/login/ and /admin/. /api-auth/login/ (the browsable API's)
now only leads to /account/login/: it takes no password at all.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
PATHS = ["/account/login/", "/admin/login/"]


@pytest.fixture
def victim():
    return get_user_model().objects.create_user(username="victim", password=PASSWORD, is_staff=True)


def _login(client: Client, path: str, password: str, username: str = "victim"):
    # allauth's form names the account "login"; Django's admin form "username".
    field = "username" if path.startswith("/admin/") else "login"
    return client.post(path, {field: username, "password": password})


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("path", PATHS)
def test_wrong_passwords_lock_the_account_and_the_message_says_so(path, victim):
    attacker = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = _login(attacker, path, "wrong-guess")
        assert response.status_code in (200, 429)
        assert not _logged_in(attacker)
    response = _login(attacker, path, PASSWORD)
    assert response.status_code == 429
    assert not _logged_in(attacker)
    page = response.content.decode()
    assert "Too many failed log-ins" in page and "wrong passwords" in page

    # The lock is the attacker's address's: its owner still logs in from elsewhere
    # (before: ten wrong passwords from one address locked the owner out everywhere) ...
    elsewhere = Client(REMOTE_ADDR="203.0.113.9")
    assert _login(elsewhere, path, PASSWORD).status_code == 302
    assert _logged_in(elsewhere)
    # ... and holds for the attacker's address whatever account it tries next.
    get_user_model().objects.create_user(username="other", password=PASSWORD)
    assert _login(attacker, path, PASSWORD, username="other").status_code == 429

    # The documented reset lifts it.
    call_command("axes_reset_username", "victim")
    call_command("axes_reset_ip", "127.0.0.1")
    owner = Client()
    response = _login(owner, path, PASSWORD)
    assert response.status_code == 302, response.content[:500]
    assert _logged_in(owner)


def test_one_lock_covers_every_path(victim):
    """Failures count across paths: an attacker cannot spread guesses over them."""
    attacker = Client()
    per_path = settings.AXES_FAILURE_LIMIT // len(PATHS) + 1
    for path in PATHS:
        for _ in range(per_path):
            _login(attacker, path, "wrong-guess")
    for path in PATHS:  # the guessing address is locked out on every path
        assert _login(attacker, path, PASSWORD).status_code == 429, path


def test_logging_into_an_own_account_between_guesses_does_not_reset_the_count(victim):
    """Axes resets on success by every lockout parameter, the address included; with that
    on, an attacker could log into an account of their own between guesses forever."""
    get_user_model().objects.create_user(username="attacker", password=PASSWORD)
    attacker = Client()
    for _ in range(4):  # 4 x (limit // 3) guesses: over the limit
        for _ in range(settings.AXES_FAILURE_LIMIT // 3):
            _login(attacker, "/account/login/", "wrong-guess")
        _login(attacker, "/account/login/", PASSWORD, username="attacker")
        attacker.logout()
    assert _login(attacker, "/account/login/", PASSWORD).status_code == 429


def test_the_browsable_apis_log_in_address_takes_no_password_and_leads_to_the_sites(victim):
    """No third way to guess: a POST there logs nobody in and counts nothing."""
    client = Client()
    for password in ["wrong-guess"] * settings.AXES_FAILURE_LIMIT + [PASSWORD]:
        response = _login(client, "/api-auth/login/?next=/api/benchmarks/", password)
        assert response.status_code == 302
        assert response["Location"] == "/account/login/?next=/api/benchmarks/"
        assert not _logged_in(client)
    # Nothing was counted: the right password still works on the site's form.
    response = client.post(
        "/account/login/?next=/api/benchmarks/", {"login": "victim", "password": PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == "/api/benchmarks/"
    assert _logged_in(client)


def test_with_the_sites_rate_limits_a_stranger_still_cannot_lock_the_owner_out(victim, settings):
    """allauth's own failed-login limit is keyed by the account alone (5 failures and the
    owner is refused from everywhere): the site's settings turn it off, axes counts."""
    from config.settings import base

    settings.ACCOUNT_RATE_LIMITS = base.ACCOUNT_RATE_LIMITS  # the tests' are all off
    attacker = Client(REMOTE_ADDR="198.51.100.66")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(attacker, "/account/login/", "wrong-guess")
    assert _login(attacker, "/account/login/", PASSWORD).status_code == 429
    owner = Client(REMOTE_ADDR="203.0.113.10")
    assert _login(owner, "/account/login/", PASSWORD).status_code == 302
    assert _logged_in(owner)
