"""/api/...: the results of a benchmark (snapshots, their sections and exports) and the
snapshot contract; one view per operation, as in leaderboard.api.urls."""

from django.urls import path

from estimation.api.snapshots import (
    SnapshotContractApi,
    SnapshotExportCsvApi,
    SnapshotExportJsonApi,
    SnapshotHistoryApi,
    SnapshotLatestApi,
    SnapshotLatestSectionApi,
    SnapshotSchemaApi,
    SnapshotSectionApi,
    SnapshotStatusApi,
    SnapshotVersionApi,
)

benchmark = "benchmarks/<slug:slug>/"
snapshots = f"{benchmark}snapshots/"

urlpatterns = [
    path(snapshots, SnapshotHistoryApi.as_view(), name="api-snapshot-history"),
    path(f"{snapshots}latest/", SnapshotLatestApi.as_view(), name="api-snapshot-latest"),
    path(f"{snapshots}status/", SnapshotStatusApi.as_view(), name="api-snapshot-status"),
    path(
        f"{snapshots}latest/export.csv",
        SnapshotExportCsvApi.as_view(),
        name="api-snapshot-latest-csv",
    ),
    path(
        f"{snapshots}latest/export.json",
        SnapshotExportJsonApi.as_view(),
        name="api-snapshot-latest-json",
    ),
    path(
        f"{snapshots}latest/sections/<str:name>/",
        SnapshotLatestSectionApi.as_view(),
        name="api-snapshot-latest-section",
    ),
    path(f"{snapshots}<int:version>/", SnapshotVersionApi.as_view(), name="api-snapshot-version"),
    path(
        f"{snapshots}<int:version>/sections/<str:name>/",
        SnapshotSectionApi.as_view(),
        name="api-snapshot-section",
    ),
    path(
        f"{snapshots}<int:version>/export.csv",
        SnapshotExportCsvApi.as_view(),
        name="api-snapshot-version-csv",
    ),
    path(
        f"{snapshots}<int:version>/export.json",
        SnapshotExportJsonApi.as_view(),
        name="api-snapshot-version-json",
    ),
    path("contract/", SnapshotContractApi.as_view(), name="api-snapshot-contract"),
    path(
        "contract/snapshot.schema.json",
        SnapshotSchemaApi.as_view(),
        name="api-snapshot-schema",
    ),
]
