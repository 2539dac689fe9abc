"""The Celery app. Settings come from Django's with the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import celeryd_after_setup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("podium")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _bulk_worker_yield(sender=None, instance=None, **kwargs):
    from config.queues import bulk_worker_yield

    bulk_worker_yield(sender, instance, **kwargs)


celeryd_after_setup.connect(_bulk_worker_yield, dispatch_uid="podium-bulk-nice", weak=False)
