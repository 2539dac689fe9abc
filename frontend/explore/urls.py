from django.urls import path

from frontend.explore import views

urlpatterns = [
    path("b/<slug:slug>/charts/", views.benchmark_charts_page, name="explore-charts"),
    path("b/<slug:slug>/datasets/", views.dataset_index, name="explore-dataset-index"),
    path("b/<slug:slug>/scores.csv", views.scores_export, name="explore-scores-export"),
    path(
        "b/<slug:slug>/datasets/<path:dataset>/",
        views.dataset_detail,
        name="explore-dataset",
    ),
    path(
        "b/<slug:slug>/algorithms/<path:algorithm>/",
        views.algorithm_detail,
        name="explore-algorithm",
    ),
    path("methods/", views.methods, name="methods"),
]
