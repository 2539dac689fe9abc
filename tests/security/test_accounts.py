"""Attacks on the accounts (django-allauth): sign-up, passwords and mail.

Signup was unthrottled (15 accounts from one address), eight-character passwords were
accepted, and ten wrong passwords from one address locked the owner out from every
other address (tests/security/test_login_lockout.py covers that one).
"""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def _signup(client: Client, name: str, password: str = "a-long-enough-passphrase"):
    return client.post(
        "/account/signup/",
        {
            "username": name,
            "email": f"{name}@example.org",
            "password1": password,
            "password2": password,
        },
    )


def test_passwords_shorter_than_twelve_characters_are_refused():
    response = _signup(Client(), "ada", password="Zq8!vL2#pX")  # 10 characters
    assert response.status_code == 200
    assert "at least 12 characters" in response.content.decode()
    assert not get_user_model().objects.filter(username="ada").exists()
    assert _signup(Client(), "ada", password="Zq8!vL2#pX4$").status_code == 302  # 12


def test_signups_from_one_address_are_rate_limited(settings):
    settings.ACCOUNT_RATE_LIMITS = {"signup": "3/h/ip"}
    answers = [_signup(Client(), f"sock{i}").status_code for i in range(5)]
    assert answers == [302, 302, 302, 429, 429]
    assert get_user_model().objects.count() == 3
    refused = _signup(Client(), "sock9")
    assert "Too many sign-ups from your address" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    other = Client(REMOTE_ADDR="198.51.100.7")
    assert _signup(other, "elsewhere").status_code == 302


def test_a_token_can_expire_and_its_last_use_is_shown():
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.test import APIClient

    from leaderboard.models import ApiToken
    from leaderboard.services import api_token_create
    from tests.factories import make_user

    owner = make_user("owner")
    web = Client()
    web.force_login(owner)
    response = web.post("/account/tokens/", {"name": "ci", "expires_in_days": "30"})
    assert response.status_code == 302
    token = ApiToken.objects.get(name="ci")
    assert token.expires_at is not None
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    _, raw = api_token_create(user=owner, name="nightly", expires_in_days=1)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert api.get("/api/tokens/").status_code == 200
    page = web.get("/account/tokens/").content.decode()
    assert page.count('data-testid="token-expires"') == 2
    assert "never" not in page.split('data-token-id="')[1].split("</tr>")[0]  # used, expiring
    ApiToken.objects.filter(name="nightly").update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api.get("/api/tokens/").status_code == 401
    rows = web.get("/account/tokens/").content.decode().count('data-testid="token-row"')
    assert rows == 1  # the expired one is no longer listed as active


def test_password_reset_reveals_no_account_is_rate_limited_and_works_once(settings):
    import re

    from django.core import mail

    from tests.factories import make_user

    settings.ACCOUNT_RATE_LIMITS = {"reset_password": "3/h/ip"}
    user = make_user("grace")
    user.email = "grace@example.org"
    user.save()
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    unverified = make_user("squatter")  # a stranger's address typed into another account
    unverified.email = "victim@example.org"
    unverified.save()
    EmailAddress.objects.create(user=unverified, email=unverified.email, primary=True)
    assert client_post_reset(Client(), "victim@example.org").status_code == 200
    assert mail.outbox == []  # never mailed: nobody proved to read it
    client = Client()
    known = client.post("/account/password/reset/", {"email": "grace@example.org"}, follow=True)
    unknown = client.post("/account/password/reset/", {"email": "nobody@example.org"}, follow=True)
    assert known.status_code == unknown.status_code == 200
    assert 'data-testid="reset-sent"' in known.content.decode()
    assert 'data-testid="reset-sent"' in unknown.content.decode()  # the same answer
    (message,) = mail.outbox  # only to the account's own address
    assert message.to == ["grace@example.org"]
    link = re.search(r"https?://[^/]+(/account/password/reset/\S+/)", message.body).group(1)
    page = client.get(link, follow=True)
    new = "a-new-long-passphrase"
    done = client.post(
        page.redirect_chain[-1][0] if page.redirect_chain else link,
        {"password1": new, "password2": new},
    )
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)
    again = client.get(link, follow=True)
    assert 'data-testid="reset-link-invalid"' in again.content.decode()
    client.post("/account/password/reset/", {"email": "x@example.org"})  # over the rate now
    throttled = client.post("/account/password/reset/", {"email": "grace@example.org"})
    assert throttled.status_code == 429 and len(mail.outbox) == 1


def test_a_logged_in_user_changes_the_password_with_the_old_one():
    from tests.factories import make_user

    user = make_user("ada")
    client = Client()
    client.force_login(user)
    moved = client.get("/account/password/")  # the address from before allauth
    assert moved.status_code == 302 and moved.url == "/account/password/change/"
    short = client.post(
        "/account/password/change/",
        {"oldpassword": "pw-for-tests-only", "password1": "short", "password2": "short"},
    )
    assert short.status_code == 200 and "at least 12 characters" in short.content.decode()
    new = "another-long-passphrase"
    response = client.post(
        "/account/password/change/",
        {"oldpassword": "pw-for-tests-only", "password1": new, "password2": new},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)


def client_post_reset(client: Client, email: str):
    return client.post("/account/password/reset/", {"email": email}, follow=True)


def test_decision_mail_goes_only_to_a_verified_address(django_capture_on_commit_callbacks):
    """Attack 4: with a victim's address on an unverified account, an attacker's benchmark
    title and rejection note were mailed to the victim."""
    import re

    from django.core import mail

    from leaderboard.services import submission_reject
    from tests.factories import make_benchmark, make_submission, make_user

    web = Client()
    response = _signup(web, "attacker")
    assert response.status_code == 302
    (link_mail,) = mail.outbox  # the one mail an unverified address ever gets
    assert link_mail.to == ["attacker@example.org"] and "confirm" in link_mail.subject
    attacker = get_user_model().objects.get(username="attacker")
    benchmark = make_benchmark("bait")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    pending = make_submission(benchmark, "alg", {"d1": 0.5}, submitter=attacker)
    with django_capture_on_commit_callbacks(execute=True):
        submission_reject(submission=pending, user=maintainer, note="see phish.example")
    assert len(mail.outbox) == 1  # nothing to the unverified address
    assert web.get("/account/").status_code == 302  # nobody logs in unconfirmed ...
    viewer = Client()
    viewer.force_login(attacker)  # ... but an account that has one sees it is not
    home = viewer.get("/account/").content.decode()
    assert 'data-testid="email-unverified"' in home
    link = re.search(r"https?://[^/]+(/account/email/verify/\S+/)", link_mail.body).group(1)
    assert web.post(link).status_code == 302
    assert 'data-testid="email-verified"' in web.get("/account/").content.decode()
    second = make_submission(benchmark, "alg2", {"d1": 0.5}, submitter=attacker)
    with django_capture_on_commit_callbacks(execute=True):
        submission_reject(submission=second, user=maintainer)
    assert len(mail.outbox) == 2 and mail.outbox[1].to == ["attacker@example.org"]
    assert web.get("/account/email/verify/forged-token/").status_code == 302


def test_signup_does_not_say_which_addresses_have_accounts():
    """Attack 4: signup said which e-mail addresses were taken."""
    from django.core import mail

    from tests.factories import make_user

    owner = make_user("owner")
    owner.email = "owner@example.org"
    owner.save()
    EmailAddress.objects.create(user=owner, email=owner.email, verified=True, primary=True)
    fresh, taken = Client(), Client()
    new = _signup(fresh, "newcomer")
    probe = taken.post(
        "/account/signup/",
        {
            "username": "prober",
            "email": "OWNER@example.org",
            "password1": "a-long-enough-passphrase",
            "password2": "a-long-enough-passphrase",
        },
    )
    assert new.status_code == probe.status_code == 302 and new.url == probe.url
    # allauth keeps addresses in lower case.
    for client, email in ((fresh, "newcomer@example.org"), (taken, "owner@example.org")):
        page = client.get(new.url).content.decode()  # the same words, its own address
        assert f"We sent a link to {email}; open it to confirm the address" in page
    link, note = mail.outbox
    assert "confirm" in link.subject and link.to == ["newcomer@example.org"]
    assert note.subject == "Podium: someone signed up with your address"
    assert note.to == ["owner@example.org"] and "/account/email/verify/" not in note.body
    # No second account with the address: nothing the prober could log into or confirm.
    assert not get_user_model().objects.filter(username="prober").exists()
    assert EmailAddress.objects.filter(email__iexact="owner@example.org").count() == 1


def _signup_as(client: Client, name: str, email: str):
    password = "a-long-enough-passphrase"
    return client.post(
        "/account/signup/",
        {"username": name, "email": email, "password1": password, "password2": password},
    )


def _link(message) -> str:
    import re

    return re.search(r"https?://[^/]+(/account/email/verify/\S+/)", message.body).group(1)


def test_an_unconfirmed_claim_does_not_keep_the_owner_from_their_address():
    """A stranger who signed up with someone's address (never able to confirm it) held
    it for good: the owner's own sign-up made no account and reset mails only confirmed
    addresses. Now an address is taken once confirmed; whoever opens the link owns it."""
    from django.core import mail

    users = get_user_model().objects
    assert _signup_as(Client(), "squatter", "owner@example.org").status_code == 302
    owner_web = Client()
    assert _signup_as(owner_web, "owner", "Owner@example.org").status_code == 302
    squatter_link, owner_link = mail.outbox
    assert owner_link.to == ["owner@example.org"] and "confirm" in owner_link.subject
    assert users.filter(username="owner").exists()  # an account, not an "already" note
    assert owner_web.post(_link(owner_link)).status_code == 302
    assert owner_web.get("/account/").status_code == 200  # confirmed and logged in
    # The squatter's claim is gone, and the account, with no address, cannot log in.
    assert list(EmailAddress.objects.filter(email__iexact="owner@example.org")) == [
        EmailAddress.objects.get(user__username="owner", verified=True)
    ]
    squatter = users.get(username="squatter")
    assert squatter.email == "" and not squatter.is_active
    squatter_web = Client()
    login = squatter_web.post(
        "/account/login/", {"login": "squatter", "password": "a-long-enough-passphrase"}
    )
    assert login.status_code == 302 and login.url == "/account/inactive/"
    assert "_auth_user_id" not in squatter_web.session
    assert Client().post(_link(squatter_link)).status_code in (302, 404)
    assert not EmailAddress.objects.filter(user=squatter, verified=True).exists()
    # Confirmed now: a third sign-up with it makes no account and tells the owner.
    assert _signup_as(Client(), "third", "owner@example.org").status_code == 302
    assert not users.filter(username="third").exists()
    assert mail.outbox[-1].subject == "Podium: someone signed up with your address"
    assert mail.outbox[-1].to == ["owner@example.org"]


def test_an_account_with_a_confirmed_address_keeps_it_when_another_unconfirmed_goes():
    """Releasing a claim removes only that address: an account that confirmed another
    one keeps it and stays active."""
    from django.core import mail

    from tests.factories import make_user

    other = make_user("other")
    EmailAddress.objects.create(user=other, email="other@example.org", verified=True, primary=True)
    EmailAddress.objects.create(user=other, email="shared@example.org", verified=False)
    owner_web = Client()
    assert _signup_as(owner_web, "owner", "shared@example.org").status_code == 302
    assert owner_web.post(_link(mail.outbox[-1])).status_code == 302
    other.refresh_from_db()
    assert other.is_active
    assert list(EmailAddress.objects.filter(user=other).values_list("email", flat=True)) == [
        "other@example.org"
    ]


@pytest.mark.parametrize("name", ["bаse1", "bᴀse1", "BASE1"])
def test_a_username_that_looks_like_a_taken_one_is_refused(name):
    """Pages name an algorithm's owners by username: 'bаse1' (Cyrillic а) and 'bᴀse1'
    were free beside 'base1'. Usernames are plain ASCII, and case-insensitively unique."""
    from tests.factories import make_user

    make_user("base1")
    page = _signup_as(Client(), name, "someone@example.org")
    assert page.status_code == 200
    errors = page.context["form"].errors["username"]
    expected = (
        "A user with that username already exists."
        if name.isascii()
        else "Use only the letters a-z and A-Z, digits and @ . + - _ in a username (a name "
        "with other letters could look like another researcher's)."
    )
    assert errors == [expected]
    assert not get_user_model().objects.filter(username=name).exists()


def test_the_migration_keeps_confirmed_addresses_confirmed_and_no_others():
    """0014: each account's address becomes its allauth EmailAddress, verified only when
    a VerifiedEmail of that same address recorded its owner's confirmation."""
    import importlib
    from types import SimpleNamespace

    from django.apps import apps as django_apps

    from tests.factories import make_user

    def account(name: str, email: str):
        user = make_user(name)
        user.email = email
        user.save()
        return user

    confirmed = account("confirmed", "Confirmed@example.org")
    changed = account("changed", "new@example.org")  # confirmed an older address
    account("unconfirmed", "victim@example.org")  # never confirmed
    make_user("no-address")
    rows = [
        SimpleNamespace(user_id=confirmed.pk, email="confirmed@example.org"),
        SimpleNamespace(user_id=changed.pk, email="old@example.org"),
    ]
    verified_emails = SimpleNamespace(objects=SimpleNamespace(all=lambda: rows))

    class HistoricalApps:
        def get_model(self, app_label: str, name: str):
            if name == "VerifiedEmail":
                return verified_emails
            return django_apps.get_model(app_label, name)

    migration = importlib.import_module("leaderboard.migrations.0014_verified_email_to_allauth")
    migration.addresses_to_allauth(HistoricalApps(), None)
    got = {a.user.username: (a.email, a.verified, a.primary) for a in EmailAddress.objects.all()}
    assert got == {
        "confirmed": ("confirmed@example.org", True, True),
        "changed": ("new@example.org", False, True),
        "unconfirmed": ("victim@example.org", False, True),
    }
    migration.addresses_to_allauth(HistoricalApps(), None)  # run twice: nothing more
    assert EmailAddress.objects.count() == 3


def test_the_rate_settings_read_as_allauth_rates_and_a_bad_one_names_itself(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from config.settings.base import allauth_rate

    monkeypatch.setenv("PODIUM_SIGNUP_RATE", "7/minute")
    assert allauth_rate("PODIUM_SIGNUP_RATE", "5/hour") == "7/m/ip"
    monkeypatch.setenv("PODIUM_SIGNUP_RATE", "")
    assert allauth_rate("PODIUM_SIGNUP_RATE", "5/hour") is None  # empty: no limit
    monkeypatch.delenv("PODIUM_SIGNUP_RATE")
    assert allauth_rate("PODIUM_SIGNUP_RATE", "5/hour") == "5/h/ip"
    monkeypatch.setenv("PODIUM_SIGNUP_RATE", "5/fortnight")
    with pytest.raises(ImproperlyConfigured, match="PODIUM_SIGNUP_RATE must be N/second"):
        allauth_rate("PODIUM_SIGNUP_RATE", "5/hour")


def test_the_confirm_your_address_page_says_its_message_once(client):
    """allauth's "Confirmation e-mail sent" flash repeated the page's own text."""
    response = client.post(
        "/account/signup/",
        {
            "username": "once",
            "email": "once@example.org",
            "password1": "a-long-enough-passphrase",
            "password2": "a-long-enough-passphrase",
        },
        follow=True,
    )
    body = response.content.decode()
    assert 'data-testid="verification-sent"' in body
    assert body.count("We sent a link to") == 1
    assert body.count("open it to confirm the address") == 1
    assert "We sent a link to once@example.org" in body
    assert "Confirmation e-mail sent" not in body
    # Opened again (no flash left), the page still says what happened, once.
    again = client.get(response.request["PATH_INFO"]).content.decode()
    assert again.count("We sent a link to") == 1
