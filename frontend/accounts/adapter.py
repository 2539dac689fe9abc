"""Podium's hooks into django-allauth: our client address, our URLs, our login stages.

allauth does sign-up, e-mail confirmation, log-in, password change and reset (docs/operators.md,
"Sign-in and accounts"); these adapters only fit it to the site.
"""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress
from allauth.account.stages import EmailVerificationStage
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse

from frontend.accounts.user_copies import user_copies_drop
from leaderboard.throttling import client_address

_ALLAUTH_EMAIL_STAGE = "allauth.account.stages.EmailVerificationStage"


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request) -> str:
        # The address the API throttles and the log-in lockout see (PODIUM_NUM_PROXIES).
        return client_address(request)

    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        # The confirmation link keeps the address it had before allauth.
        url = reverse("account-email-verify", args=[emailconfirmation.key])
        return request.build_absolute_uri(url) if request is not None else url

    def confirm_email(self, request, email_address: EmailAddress) -> bool:
        with transaction.atomic():
            confirmed = super().confirm_email(request, email_address)
            if confirmed:
                unconfirmed_claims_release(email_address)
        return confirmed

    def get_login_stages(self) -> list[str]:
        return [
            f"{__name__}.AddressVerificationStage" if stage == _ALLAUTH_EMAIL_STAGE else stage
            for stage in super().get_login_stages()
        ]


class AddressVerificationStage(EmailVerificationStage):
    """allauth's mandatory confirmation, except for an account with no address at all:
    only an operator makes those (``createsuperuser``, the admin), since sign-up and
    provider sign-in both require one, and no link could ever reach them."""

    def handle(self):
        user = self.login.user
        if (
            user is not None
            and not user.email
            and not EmailAddress.objects.filter(user_id=user.pk).exists()
        ):
            return None, True
        return super().handle()


def address_confirmed_elsewhere(email: str) -> bool:
    """An address is taken once an account confirmed it, not before: an unconfirmed
    claim (a typo, or a stranger signing up with someone's address) must not keep the
    address's owner from signing up with it."""
    return EmailAddress.objects.filter(email__iexact=email, verified=True).exists()


def unconfirmed_claims_release(confirmed: EmailAddress) -> None:
    """The account that proved it reads the address owns it: every other account's
    unconfirmed claim on it goes, and an account left with no address it could ever
    confirm is deactivated (with no address, the login stage above would let it in)."""
    claims = EmailAddress.objects.filter(email__iexact=confirmed.email, verified=False).exclude(
        user_id=confirmed.user_id
    )
    claimants = set(claims.values_list("user_id", flat=True))
    claims.delete()
    users = get_user_model().objects.filter(pk__in=claimants)
    users.filter(email__iexact=confirmed.email).update(email="")
    users.exclude(emailaddress__isnull=False).update(is_active=False)
    user_copies_drop(claimants)  # update() sends no signal
