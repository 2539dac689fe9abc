"""Password change and reset: Django's own views, in the site's pages.

The reset form answers the same whatever address is given (no account is revealed),
is rate-limited per client address (``PODIUM_PASSWORD_RESET_RATE``), and its mail goes
only to an active account's confirmed address with a usable password; the link
works once, for ``PASSWORD_RESET_TIMEOUT``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.shortcuts import render
from django.urls import reverse_lazy

from frontend.accounts.limits import rate_wait
from frontend.contribute.form_errors import form_summary
from leaderboard.notifications import email_is_verified

_TEMPLATE = "frontend/accounts/password_form.html"


class _PasswordPage:
    heading = ""
    lead = ""
    submit = ""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)  # type: ignore[misc]
        context.update(
            heading=self.heading,
            lead=self.lead,
            submit=self.submit,
            errors=form_summary(context["form"]) if context.get("form") else [],
        )
        return context


class PasswordChangeView(_PasswordPage, auth_views.PasswordChangeView):
    template_name = _TEMPLATE
    success_url = reverse_lazy("account-home")
    heading = "Change your password"
    submit = "Change password"

    def form_valid(self, form):
        messages.success(self.request, "Your password is changed.")
        return super().form_valid(form)


class VerifiedPasswordResetForm(PasswordResetForm):
    """Django's form, mailing only a confirmed address (never a stranger's)."""

    def get_users(self, email):
        return (user for user in super().get_users(email) if email_is_verified(user))


class PasswordResetView(_PasswordPage, auth_views.PasswordResetView):
    template_name = _TEMPLATE
    form_class = VerifiedPasswordResetForm
    email_template_name = "frontend/accounts/password_reset_email.txt"
    subject_template_name = "frontend/accounts/password_reset_subject.txt"
    success_url = reverse_lazy("account-password-reset-done")
    heading = "Reset your password"
    lead = "Give the e-mail address of your account; we send a link to set a new password."
    submit = "Send the link"

    def post(self, request, *args, **kwargs):
        wait = rate_wait(request, kind="reset", rate=settings.PODIUM_PASSWORD_RESET_RATE)
        if wait is not None:
            response = render(
                request,
                "frontend/accounts/password_reset_done.html",
                {"throttled": max(1, wait // 60)},
                status=429,
            )
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)


def password_reset_done(request):
    return render(request, "frontend/accounts/password_reset_done.html")


class PasswordResetConfirmView(_PasswordPage, auth_views.PasswordResetConfirmView):
    template_name = _TEMPLATE
    success_url = reverse_lazy("account-login")
    heading = "Set a new password"
    submit = "Set password"

    def form_valid(self, form):
        messages.success(self.request, "Your password is set: log in with it.")
        return super().form_valid(form)
