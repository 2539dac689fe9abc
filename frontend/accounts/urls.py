from django.contrib.auth import views as auth_views
from django.urls import path

from frontend.accounts import passwords, views

urlpatterns = [
    path("", views.account_home, name="account-home"),
    path("signup/", views.signup, name="account-signup"),
    path("login/", views.LoginView.as_view(), name="account-login"),
    # POST only (Django refuses GET); then LOGOUT_REDIRECT_URL.
    path("logout/", auth_views.LogoutView.as_view(), name="account-logout"),
    path("password/", passwords.PasswordChangeView.as_view(), name="account-password-change"),
    path("password/reset/", passwords.PasswordResetView.as_view(), name="account-password-reset"),
    path("password/reset/sent/", passwords.password_reset_done, name="account-password-reset-done"),
    path(
        "password/reset/<uidb64>/<token>/",
        passwords.PasswordResetConfirmView.as_view(),
        name="account-password-reset-confirm",
    ),
    path("email/verify/<str:token>/", views.email_verify, name="account-email-verify"),
    path("email/verify/", views.email_verify_resend, name="account-email-verify-resend"),
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
]
