from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

# The browsable API's log in and out, under DRF's names (its template tags reverse them).
# DRF's own log-in page breaks the CSP (style attributes in rest_framework/login_base.html)
# and would be a second password form, so its address leads to the site's own (a POST
# there logs nobody in); log-out is the site's view at DRF's address.
browsable_api_auth = (
    [
        path(
            "login/",
            RedirectView.as_view(pattern_name="account_login", query_string=True),
            name="login",
        ),
        path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    ],
    "rest_framework",
)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/", include("leaderboard.api.urls")),  # the API's root and docs first
    path("api/", include("estimation.api.urls")),
    path("api-auth/", include(browsable_api_auth)),
    path("", include("operations.urls")),
    path("", include("frontend.urls")),
]

handler400 = "config.handlers.bad_request"
handler403 = "config.handlers.permission_denied"
handler404 = "config.handlers.page_not_found"
handler500 = "config.handlers.server_error"
# allauth's rate limits (sign-up, password reset) answer through it.
handler429 = "frontend.accounts.views.too_many_attempts"
