from django.urls import path

from frontend.readers import views

urlpatterns = [
    path("", views.benchmark_index, name="benchmark-index"),
    path("b/<slug:slug>/", views.benchmark_leaderboard, name="benchmark-leaderboard"),
]
