"""Accounts cannot be used to mail strangers, or one account, without bound.

The review's account added address after address on /account/email/: each was mailed
a confirmation link with the account's username in it, 10 a minute; and eight client
addresses sent eight password-reset mails to one account in 3 s (the limit was per
client address only). Both run here with the shipped rates (config/settings/base.py;
the test settings turn allauth's limits off).
"""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client

from config.settings import base
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def shipped_limits(settings):
    settings.ACCOUNT_RATE_LIMITS = base.ACCOUNT_RATE_LIMITS
    settings.ACCOUNT_MAX_EMAIL_ADDRESSES = getattr(base, "ACCOUNT_MAX_EMAIL_ADDRESSES", None)


def _account(name: str):
    user = make_user(name)
    user.email = f"{name}@example.org"
    user.save()
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def test_adding_addresses_mails_a_bounded_number_of_strangers(shipped_limits):
    client = Client()
    client.force_login(_account("mailer"))
    for i in range(30):
        client.post("/account/email/", {"email": f"victim{i}@example.org", "action_add": ""})
    assert 0 < len(mail.outbox) <= 5
    assert EmailAddress.objects.filter(user__username="mailer").count() <= 5
    # and a day's worth is bounded too, not only an hour's
    assert "/d/user" in base.ACCOUNT_RATE_LIMITS["manage_email"]


def test_reset_mails_to_one_account_are_bounded_whatever_the_client_address(shipped_limits):
    _account("grace")
    for i in range(8):
        Client(REMOTE_ADDR=f"192.0.2.{i + 1}").post(
            "/account/password/reset/", {"email": "grace@example.org"}
        )
    assert 0 < len(mail.outbox) <= 3
    assert {tuple(message.to) for message in mail.outbox} == {("grace@example.org",)}


def test_several_rates_read_as_allauth_rates(monkeypatch):
    monkeypatch.setenv("PODIUM_MANAGE_EMAIL_RATE", "5/hour, 10/day")
    assert base.allauth_rate("PODIUM_MANAGE_EMAIL_RATE", "", per="user") == "5/h/user,10/d/user"
    assert base.allauth_rates("5/h/ip", None, "3/h/key") == "5/h/ip,3/h/key"
    assert base.allauth_rates(None, None) is None
