from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from frontend.contribute.form_errors import AccessibleErrorsMixin
from leaderboard.models import ApiToken


class SignupForm(AccessibleErrorsMixin, UserCreationForm):
    """Username, email and a password checked by AUTH_PASSWORD_VALIDATORS."""

    email = forms.EmailField(
        help_text="Maintainers may use it to reach you about your submissions."
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # the stubs omit Meta
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        # Not refused when another account has it: that would tell anyone which addresses
        # have accounts. The address's owner hears of it instead (verification_send).
        return self.cleaned_data["email"].strip()


class LoginForm(AccessibleErrorsMixin, AuthenticationForm):
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
