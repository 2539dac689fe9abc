"""Researchers' account pages: sign up, log in and out, API tokens, my submissions.

Views parse the input, call one service or selector and render; the services decide
who may do what (their PermissionDenied becomes a 403).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from frontend.accounts.forms import LoginForm, SignupForm, TokenCreateForm
from frontend.accounts.limits import rate_wait, signup_wait
from frontend.accounts.selectors import (
    submission_decisions_since,
    submission_list_of_user,
    submission_of_user,
)
from frontend.accounts.services import user_signup
from frontend.accounts.verification import verification_confirm, verification_send
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


def _safe_next(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


@never_cache
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account-home")
    if request.method == "POST" and (wait := signup_wait(request)) is not None:
        response = render(
            request,
            "frontend/accounts/signup.html",
            {
                "form": SignupForm(),
                "errors": [],
                "next": _safe_next(request, ""),
                "throttled": f"Too many sign-ups from your address; try again in "
                f"{max(1, wait // 60)} minutes.",
            },
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = user_signup(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        verification_send(request=request, user=user)
        messages.success(
            request,
            f"Welcome, {user.username}: your account is ready. We sent a link to "
            f"{user.email}; open it to confirm the address (mail about your submissions "
            "goes only to a confirmed one).",
        )
        return redirect(_safe_next(request, reverse("account-home")))
    return render(
        request,
        "frontend/accounts/signup.html",
        {"form": form, "errors": form_summary(form), "next": _safe_next(request, "")},
    )


class LoginView(auth_views.LoginView):
    template_name = "frontend/accounts/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["errors"] = form_summary(context["form"])
        return context


@login_required
def account_home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/accounts/home.html",
        {"section": "home", "email_verified": email_is_verified(request.user)},
    )


def email_verify(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to an address: opening it confirms the address."""
    user = verification_confirm(token=token)
    if user is None:
        messages.error(request, "This link is not valid (expired, or the address changed).")
    else:
        messages.success(request, f"{user.email} is confirmed.")
    return redirect("account-home" if request.user.is_authenticated else "account-login")


@login_required
@require_http_methods(["POST"])
def email_verify_resend(request: HttpRequest) -> HttpResponse:
    wait = rate_wait(request, kind="verify", rate=settings.PODIUM_SIGNUP_RATE)
    if wait is not None:
        messages.error(request, f"Too many links asked for; try again in {wait // 60} minutes.")
    elif not email_is_verified(user := cast(Any, request.user)):
        verification_send(request=request, user=user)
        messages.success(request, f"We sent a new link to {user.email}.")
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
