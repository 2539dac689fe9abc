from django.urls import path

from frontend.readers import views

urlpatterns = [
    path("", views.benchmark_index, name="benchmark-index"),
    path("b/<slug:slug>/", views.benchmark_leaderboard, name="benchmark-leaderboard"),
    path("b/<slug:slug>/board/", views.benchmark_board_fragment, name="benchmark-board-fragment"),
    path(
        "b/<slug:slug>/failure/",
        views.benchmark_failure_fragment,
        name="benchmark-failure-fragment",
    ),
    path("b/<slug:slug>/history/", views.benchmark_history, name="benchmark-history"),
    path("b/<slug:slug>/v<int:version>/", views.benchmark_version, name="benchmark-version"),
    path(
        "b/<slug:slug>/v<int:version>/board/",
        views.benchmark_version_board_fragment,
        name="benchmark-version-board-fragment",
    ),
    path(
        "b/<slug:slug>/v<int:version>/export.<str:fmt>",
        views.benchmark_export,
        name="benchmark-export",
    ),
]
