from django.urls import path

from leaderboard.api.views import BenchmarkListApi, LatestSnapshotApi

urlpatterns = [
    path("benchmarks/", BenchmarkListApi.as_view(), name="api-benchmark-list"),
    path(
        "benchmarks/<slug:slug>/snapshots/latest/",
        LatestSnapshotApi.as_view(),
        name="api-snapshot-latest",
    ),
]
