"""Project configuration. The Celery app is loaded with Django so tasks can be enqueued."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
