"""Pages, by who they are for: readers, explorers of one benchmark, accounts, contributors."""

from django.urls import include, path

urlpatterns = [
    path("", include("frontend.readers.urls")),
    path("", include("frontend.explore.urls")),
    path("", include("frontend.compare.urls")),
    path("", include("frontend.embeds.urls")),
    path("account/", include("frontend.accounts.urls")),
    path("", include("frontend.contribute.urls")),
]
