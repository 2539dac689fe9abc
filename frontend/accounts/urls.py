"""/account/: our pages, then allauth's (sign-up, log-in, e-mail, passwords), then the
sign-in providers that are configured (no URL at all for one that is not)."""

from importlib import import_module

from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from frontend.accounts import views
from frontend.accounts.social import configured_providers


class _Moved(RedirectView):
    """An address from before allauth, leading to the page that does its job now."""

    query_string = True

    def get_redirect_url(self, *args, **kwargs):
        return super().get_redirect_url()  # the old address's parts mean nothing there


def _moved(pattern_name: str):
    return _Moved.as_view(pattern_name=pattern_name)


def _provider_urls() -> list:
    return [
        pattern
        for provider in configured_providers()
        for pattern in import_module(
            f"allauth.socialaccount.providers.{provider.id}.urls"
        ).urlpatterns
    ]


urlpatterns = [
    path("", views.account_home, name="account-home"),
    # POST only (Django refuses GET); then LOGOUT_REDIRECT_URL.
    path("logout/", auth_views.LogoutView.as_view(), name="account-logout"),
    path("email/verify/<str:key>/", views.EmailVerifyView.as_view(), name="account-email-verify"),
    path("email/verify/", views.email_verify_resend, name="account-email-verify-resend"),
    path("password/", _moved("account_change_password")),
    path("password/reset/sent/", _moved("account_reset_password_done")),
    path("tokens/", views.api_tokens, name="account-tokens"),
    path(
        "tokens/<int:token_id>/revoke/",
        views.api_token_revoke_view,
        name="account-token-revoke",
    ),
    path("submissions/", views.my_submissions, name="account-submissions"),
    path(
        "submissions/<int:submission_id>/withdraw/",
        views.submission_withdraw_view,
        name="account-submission-withdraw",
    ),
    path("", include("allauth.account.urls")),
    path("3rdparty/", include("allauth.socialaccount.urls")),
    *_provider_urls(),
    # Django's reset links (before allauth) no longer work: ask for a new one. After
    # allauth's, whose password/reset/key/<key>/ this would also match.
    path("password/reset/<str:uidb64>/<str:token>/", _moved("account_reset_password")),
]
