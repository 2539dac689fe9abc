from django.urls import path

from frontend.contribute import maintaining, moderating, owners, views

urlpatterns = [
    path("b/<slug:slug>/submit/", views.submit_form, name="contribute-submit"),
    path("b/<slug:slug>/submit/csv/", views.submit_upload, name="contribute-upload"),
    path("b/<slug:slug>/submit/csv/map/", views.submit_upload_map, name="contribute-upload-map"),
    path(
        "b/<slug:slug>/submit/template.csv",
        views.submit_csv_template,
        name="contribute-csv-template",
    ),
    path(
        "b/<slug:slug>/submit/csv/confirm/",
        views.submit_upload_confirm,
        name="contribute-upload-confirm",
    ),
    path(
        "b/<slug:slug>/submit/csv/jobs/<int:job_id>/",
        views.submit_upload_job,
        name="contribute-upload-job",
    ),
    path("benchmarks/new/", maintaining.benchmark_new, name="contribute-benchmark-new"),
    path("maintain/", maintaining.maintained, name="contribute-maintained"),
    path("b/<slug:slug>/maintain/", maintaining.benchmark_edit, name="contribute-benchmark-edit"),
    path("b/<slug:slug>/maintain/moderation/", moderating.moderation, name="contribute-moderation"),
    path(
        "b/<slug:slug>/maintain/catalogue/",
        maintaining.benchmark_catalogue,
        name="contribute-benchmark-catalogue",
    ),
    path(
        "b/<slug:slug>/maintain/moderation/bulk/",
        moderating.moderation_bulk,
        name="contribute-moderation-bulk",
    ),
    path(
        "b/<slug:slug>/maintain/moderation/<int:submission_id>/",
        moderating.moderation_decide,
        name="contribute-moderation-decide",
    ),
    path(
        "b/<slug:slug>/algorithm-owners/",
        owners.algorithm_owners,
        name="contribute-algorithm-owners",
    ),
    path("b/<slug:slug>/maintain/snapshots/", moderating.snapshots, name="contribute-snapshots"),
]
