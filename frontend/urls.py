"""Pages, by who they are for: readers, explorers of one benchmark, accounts, contributors."""

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers that ask for /favicon.ico without reading the page's icon link."""
    return HttpResponsePermanentRedirect(static("frontend/favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("", include("frontend.readers.urls")),
    path("", include("frontend.explore.urls")),
    path("", include("frontend.compare.urls")),
    path("", include("frontend.embeds.urls")),
    path("account/", include("frontend.accounts.urls")),
    path("", include("frontend.contribute.urls")),
]
