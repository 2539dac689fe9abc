from django.urls import path, register_converter

from frontend.compare import views
from frontend.compare.converters import AlgorithmNameConverter

register_converter(AlgorithmNameConverter, "algorithm")

urlpatterns = [
    path("b/<slug:slug>/compare/", views.compare_picker, name="compare-picker"),
    path(
        "b/<slug:slug>/compare/<algorithm:a>/<algorithm:b>/",
        views.compare_pair,
        name="compare-pair",
    ),
    path("b/<slug:slug>/pareto/", views.compare_pareto, name="compare-pareto"),
]
