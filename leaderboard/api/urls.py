"""/api/...: one view per operation (HackSoft style: actions are sub-paths, writes POST)."""

from django.urls import path

from leaderboard.api.benchmarks import (
    AlgorithmDeleteApi,
    AlgorithmListApi,
    AlgorithmRenameApi,
    BenchmarkCreateApi,
    BenchmarkDetailApi,
    BenchmarkListApi,
    BenchmarkUpdateApi,
    DatasetDeleteApi,
    DatasetListApi,
    DatasetRenameApi,
    MetricListApi,
    MetricRopeApi,
)
from leaderboard.api.docs import ApiDocsView, ApiRootApi
from leaderboard.api.ownership import AlgorithmOwnerAddApi, AlgorithmOwnersTransferApi
from leaderboard.api.submissions import (
    SubmissionAcceptApi,
    SubmissionCreateApi,
    SubmissionDetailApi,
    SubmissionListApi,
    SubmissionRejectApi,
    SubmissionUploadApi,
    SubmissionWithdrawApi,
    UploadJobDetailApi,
)
from leaderboard.api.tokens import ApiTokenCreateApi, ApiTokenListApi, ApiTokenRevokeApi

benchmark = "benchmarks/<slug:slug>/"
submission = f"{benchmark}submissions/<int:submission_id>/"

urlpatterns = [
    path("docs/", ApiDocsView.as_view(), name="api-docs"),
    path("", ApiRootApi.as_view(), name="api-root"),
    path("benchmarks/", BenchmarkListApi.as_view(), name="api-benchmark-list"),
    path("benchmarks/create/", BenchmarkCreateApi.as_view(), name="api-benchmark-create"),
    path(benchmark, BenchmarkDetailApi.as_view(), name="api-benchmark-detail"),
    path(f"{benchmark}update/", BenchmarkUpdateApi.as_view(), name="api-benchmark-update"),
    path(f"{benchmark}metrics/", MetricListApi.as_view(), name="api-metric-list"),
    path(f"{benchmark}metrics/<str:metric>/rope/", MetricRopeApi.as_view(), name="api-metric-rope"),
    path(f"{benchmark}datasets/", DatasetListApi.as_view(), name="api-dataset-list"),
    path(f"{benchmark}algorithms/", AlgorithmListApi.as_view(), name="api-algorithm-list"),
    path(f"{benchmark}datasets/rename/", DatasetRenameApi.as_view(), name="api-dataset-rename"),
    path(f"{benchmark}datasets/delete/", DatasetDeleteApi.as_view(), name="api-dataset-delete"),
    path(
        f"{benchmark}algorithms/rename/", AlgorithmRenameApi.as_view(), name="api-algorithm-rename"
    ),
    path(
        f"{benchmark}algorithms/delete/", AlgorithmDeleteApi.as_view(), name="api-algorithm-delete"
    ),
    path(
        f"{benchmark}algorithms/owners/add/",
        AlgorithmOwnerAddApi.as_view(),
        name="api-algorithm-owner-add",
    ),
    path(
        f"{benchmark}algorithms/owners/transfer/",
        AlgorithmOwnersTransferApi.as_view(),
        name="api-algorithm-owners-transfer",
    ),
    path(f"{benchmark}submissions/", SubmissionListApi.as_view(), name="api-submission-list"),
    path(
        f"{benchmark}submissions/create/",
        SubmissionCreateApi.as_view(),
        name="api-submission-create",
    ),
    path(
        f"{benchmark}submissions/upload/",
        SubmissionUploadApi.as_view(),
        name="api-submission-upload",
    ),
    path(submission, SubmissionDetailApi.as_view(), name="api-submission-detail"),
    path(
        f"{benchmark}uploads/<int:job_id>/",
        UploadJobDetailApi.as_view(),
        name="api-upload-job-detail",
    ),
    path(f"{submission}withdraw/", SubmissionWithdrawApi.as_view(), name="api-submission-withdraw"),
    path(f"{submission}accept/", SubmissionAcceptApi.as_view(), name="api-submission-accept"),
    path(f"{submission}reject/", SubmissionRejectApi.as_view(), name="api-submission-reject"),
    path("tokens/", ApiTokenListApi.as_view(), name="api-token-list"),
    path("tokens/create/", ApiTokenCreateApi.as_view(), name="api-token-create"),
    path("tokens/<int:token_id>/revoke/", ApiTokenRevokeApi.as_view(), name="api-token-revoke"),
]
