from django.urls import path
from django.views.decorators.http import require_safe

from operations import views

urlpatterns = [
    path("health/", require_safe(views.health_alive), name="health-alive"),
    path("health/ready/", require_safe(views.health_ready), name="health-ready"),
    path("metrics", require_safe(views.metrics), name="metrics"),
    path("status/", views.status_page, name="operations-status"),
]
