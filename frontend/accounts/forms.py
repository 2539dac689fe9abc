from __future__ import annotations

from allauth.account import forms as allauth_forms
from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from django import forms
from django.contrib import messages

from frontend.accounts.adapter import address_confirmed_elsewhere
from frontend.contribute.form_errors import AccessibleErrorsMixin
from leaderboard.models import ApiToken


class SignupForm(AccessibleErrorsMixin, allauth_forms.SignupForm):
    """allauth's: a username, an address to confirm, a password checked by
    AUTH_PASSWORD_VALIDATORS. An address another account confirmed is not refused (that
    would tell anyone which addresses have accounts): its owner is told by mail."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["email"].help_text = (
            "We mail it a link to confirm it; maintainers may use it to reach you about "
            "your submissions."
        )

    def validate_unique_email(self, value) -> str:
        if address_confirmed_elsewhere(value):
            return super().validate_unique_email(value)
        # Held unconfirmed at most: this account may claim it too, and whoever opens the
        # link owns it (AccountAdapter.confirm_email releases the other claims).
        self.account_already_exists = False
        return get_adapter().validate_unique_email(value)

    def try_save(self, request):
        user, response = super().try_save(request)
        # The same words whether an account was made or the address's owner was told.
        messages.info(
            request,
            f"We sent a link to {self.cleaned_data['email']}; open it to confirm the "
            "address and log in (mail about your submissions goes only to a confirmed one).",
        )
        return user, response


class LoginForm(AccessibleErrorsMixin, allauth_forms.LoginForm):
    """allauth's, without the reset link it puts in the password's help text: the page
    has its own "Forgot your password?" below the form (it was shown twice)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["password"].help_text = ""


class ChangePasswordForm(AccessibleErrorsMixin, allauth_forms.ChangePasswordForm):
    pass


class ResetPasswordForm(AccessibleErrorsMixin, allauth_forms.ResetPasswordForm):
    """allauth's, mailing only an account that confirmed the address (never a stranger's
    address typed into someone else's account); the page says the same either way."""

    def clean_email(self) -> str:
        email = super().clean_email()
        # allauth's: the active accounts with the address (set in its clean_email)
        found: list = self.users  # type: ignore[has-type]
        verified = set(
            EmailAddress.objects.filter(
                email__iexact=email, verified=True, user__in=found
            ).values_list("user_id", flat=True)
        )
        self.users = [user for user in found if user.pk in verified]
        return email


class ResetPasswordKeyForm(AccessibleErrorsMixin, allauth_forms.ResetPasswordKeyForm):
    pass


class TokenCreateForm(AccessibleErrorsMixin, forms.Form):
    name = forms.CharField(
        max_length=ApiToken._meta.get_field("name").max_length,
        help_text="What the token is for, e.g. “laptop” or “CI uploads”.",
    )
    expires_in_days = forms.IntegerField(
        required=False,
        min_value=1,
        label="Expires after (days)",
        help_text="Leave it empty for a token that lasts until you revoke it.",
    )
