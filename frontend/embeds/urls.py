from django.urls import path

from frontend.embeds import views

urlpatterns = [
    path("b/<slug:slug>/badge/<path:algorithm>.svg", views.algorithm_badge, name="embed-badge"),
    path("b/<slug:slug>/embed/", views.leaderboard_embed, name="embed-leaderboard"),
]
