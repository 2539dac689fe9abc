"""Podium's hooks into django-allauth: our client address, our URLs, our login stages.

allauth does sign-up, e-mail confirmation, log-in, password change and reset (README
"Sign-in and accounts"); these adapters only fit it to the site.
"""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress
from allauth.account.stages import EmailVerificationStage
from django.urls import reverse

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
