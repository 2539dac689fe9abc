"""Researchers' account pages: home, e-mail confirmation, API tokens, my submissions.

Sign-up, log-in, password change and reset are allauth's views (frontend/accounts/urls.py)
in our templates (templates/account/).

Views parse the input, call one service or selector and render; the services decide
who may do what (their PermissionDenied becomes a 403).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from allauth.account import app_settings as allauth_settings
from allauth.account.internal.flows.email_verification import (
    send_verification_email_to_address,
)
from allauth.account.models import EmailAddress, get_emailconfirmation_model
from allauth.account.views import ConfirmEmailView
from allauth.core.internal.ratelimit import parse_rates
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from frontend.accounts.forms import TokenCreateForm
from frontend.accounts.selectors import (
    submission_decisions_since,
    submission_list_of_user,
    submission_of_user,
)
from frontend.contribute.access import forbidden
from frontend.contribute.form_errors import add_problems, form_summary
from leaderboard.models import ApiToken, Submission
from leaderboard.notifications import email_is_verified
from leaderboard.selectors import api_token_list
from leaderboard.services import (
    PermissionDenied,
    StateConflict,
    ValidationFailed,
    api_token_create,
    api_token_revoke,
    submission_withdraw,
)

SUBMISSIONS_PER_PAGE = 50
# "My submissions" shows maintainers' decisions made since the page was last seen in this
# session; a first visit looks back this far.
DECISIONS_SEEN_KEY = "podium-decisions-seen-at"
DECISIONS_LOOKBACK = timedelta(days=30)


@login_required
def account_home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/accounts/home.html",
        {"section": "home", "email_verified": email_is_verified(request.user)},
    )


class EmailVerifyView(ConfirmEmailView):
    """allauth's confirmation of the mailed link (opening it shows a Confirm button, so a
    mail scanner following links confirms nothing; the button confirms and logs in the
    browser that signed up); a link that is not valid says so on the log-in page."""

    def get(self, *args, **kwargs) -> HttpResponse:
        key = self.kwargs["key"]
        if get_emailconfirmation_model().from_key(key) is None:
            messages.error(self.request, "This link is not valid (expired, or used already).")
            return redirect(
                "account-home" if self.request.user.is_authenticated else settings.LOGIN_URL
            )
        return super().get(*args, **kwargs)


@login_required
@require_http_methods(["POST"])
def email_verify_resend(request: HttpRequest) -> HttpResponse:
    """A new link to the account's address (allauth's cooldown per address applies)."""
    user = cast(Any, request.user)  # login_required: an account
    if not user.email or email_is_verified(user):
        return redirect("account-home")
    # An address an operator typed in (the admin) has no allauth record yet.
    address = EmailAddress.objects.add_email(request, user, user.email)
    if send_verification_email_to_address(request, address):
        messages.success(request, f"We sent a new link to {address.email}.")
    else:
        messages.error(request, "A link was sent a moment ago; try again in a few minutes.")
    return redirect("account-home")


# The raw value of a new token rides to the next page view in a short-lived, signed,
# HttpOnly cookie scoped to the tokens page: never in the session row (the database),
# where it would stay if the redirect were not followed.
NEW_TOKEN_COOKIE = "podium-new-api-token"
NEW_TOKEN_COOKIE_SALT = "frontend.accounts.new-api-token"
NEW_TOKEN_COOKIE_SECONDS = 120


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request: HttpRequest) -> HttpResponse:
    """The active tokens, and a form that creates one; the raw value is shown only here, once."""
    form = TokenCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            token, raw = api_token_create(
                user=request.user,
                name=form.cleaned_data["name"],
                expires_in_days=form.cleaned_data.get("expires_in_days"),
            )
        except ValidationFailed as exc:
            add_problems(form, exc.problems)
        else:
            # Post/redirect/get: a reload neither shows the value again nor creates
            # another token.
            response: HttpResponse = redirect("account-tokens", permanent=False)
            response.set_signed_cookie(
                NEW_TOKEN_COOKIE,
                f"{token.pk}:{raw}",
                salt=NEW_TOKEN_COOKIE_SALT,
                max_age=NEW_TOKEN_COOKIE_SECONDS,
                path=reverse("account-tokens"),
                secure=request.is_secure() or settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Strict",
            )
            return response
    created = None
    shown = None
    if request.method == "GET":
        shown = request.get_signed_cookie(
            NEW_TOKEN_COOKIE,
            default=None,
            salt=NEW_TOKEN_COOKIE_SALT,
            max_age=NEW_TOKEN_COOKIE_SECONDS,
        )
    if shown:
        token_id, _, raw = shown.partition(":")
        new_token = api_token_list(user=request.user).filter(pk=int(token_id)).first()
        if new_token is not None:
            created = {"token": new_token, "raw": raw}
    context = {
        "section": "tokens",
        "form": form,
        "errors": form_summary(form),
        "created": created,
        "tokens": api_token_list(user=request.user),
    }
    response = render(request, "frontend/accounts/tokens.html", context)
    if NEW_TOKEN_COOKIE in request.COOKIES:
        response.delete_cookie(NEW_TOKEN_COOKIE, path=reverse("account-tokens"), samesite="Strict")
    return response


@login_required
@require_http_methods(["GET", "POST"])
def api_token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    """GET asks for confirmation; POST revokes."""
    try:
        token = api_token_list(user=request.user).get(pk=token_id)
    except ApiToken.DoesNotExist:
        raise Http404("No such active token") from None
    if request.method == "POST":
        try:
            api_token_revoke(token=token, user=request.user)
        except PermissionDenied as exc:
            return forbidden(request, str(exc))
        messages.success(request, f"Token “{token.name}” ({token.prefix}…) is revoked.")
        return redirect("account-tokens")
    return render(
        request, "frontend/accounts/token_revoke.html", {"section": "tokens", "token": token}
    )


@login_required
def my_submissions(request: HttpRequest) -> HttpResponse:
    page = Paginator(submission_list_of_user(user=request.user), SUBMISSIONS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    now = timezone.now()
    try:
        seen_at = datetime.fromisoformat(request.session.get(DECISIONS_SEEN_KEY, ""))
    except (TypeError, ValueError):
        seen_at = now - DECISIONS_LOOKBACK
    decisions = list(submission_decisions_since(user=request.user, since=seen_at))
    request.session[DECISIONS_SEEN_KEY] = now.isoformat()
    return render(
        request,
        "frontend/accounts/submissions.html",
        {
            "section": "submissions",
            "page": page,
            "Status": Submission.Status,
            "decisions": decisions,
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def submission_withdraw_view(request: HttpRequest, submission_id: int) -> HttpResponse:
    """GET asks for confirmation; POST withdraws (its scores stop counting)."""
    try:
        submission = submission_of_user(user=request.user, submission_id=submission_id)
    except Submission.DoesNotExist:
        raise Http404("No such submission of yours") from None
    if request.method == "POST":
        try:
            submission_withdraw(submission=submission, user=request.user)
        except PermissionDenied as exc:
            return forbidden(request, str(exc))
        except StateConflict as exc:  # e.g. already withdrawn (a second tab, a double click)
            messages.error(request, exc.reason)
            return redirect("account-submissions")
        messages.success(
            request,
            f"Your submission of {submission.algorithm.name} to "
            f"{submission.benchmark.title} is withdrawn.",
        )
        return redirect("account-submissions")
    return render(
        request,
        "frontend/accounts/submission_withdraw.html",
        {"section": "submissions", "submission": submission},
    )


# allauth's rate limits (ACCOUNT_RATE_LIMITS) answer through this handler (config/urls.py).
_LIMITED = {
    "account_signup": ("signup", "sign-ups"),
    "account_reset_password": ("reset_password", "password resets"),
    "account_reset_password_from_key": ("reset_password_from_key", "password resets"),
    "account_login": ("login", "log-ins"),
}


def too_many_attempts(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    url_name = request.resolver_match.url_name if request.resolver_match else ""
    action, what = _LIMITED.get(url_name or "", ("", "attempts"))
    rates = parse_rates(allauth_settings.RATE_LIMITS.get(action) or "")
    wait = max((rate.duration for rate in rates), default=60)
    response = render(
        request,
        "frontend/accounts/too_many_attempts.html",
        {"what": what, "wait_minutes": max(1, round(wait / 60))},
        status=429,
    )
    response["Retry-After"] = str(int(wait))
    return response
