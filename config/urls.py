from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from leaderboard.api.docs import ApiDocsView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", ApiDocsView.as_view(), name="api-docs"),
    path("api/", include("leaderboard.api.urls")),
    # Log in / out for the browsable API (a session is what creates personal tokens).
    path("api-auth/", include("rest_framework.urls")),
    path("", include("frontend.urls")),
]

handler400 = "config.handlers.bad_request"
handler403 = "config.handlers.permission_denied"
handler404 = "config.handlers.page_not_found"
handler500 = "config.handlers.server_error"
