"""The Celery app. Settings come from Django's with the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import celeryd_after_setup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

# The project's task class (config/worker_logs.py: an outage fails a task in one line).
app = Celery("podium", task_cls="config.worker_logs:PodiumTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _bulk_worker_yield(sender=None, instance=None, **kwargs):
    from config.queues import bulk_worker_yield

    bulk_worker_yield(sender, instance, **kwargs)


celeryd_after_setup.connect(_bulk_worker_yield, dispatch_uid="podium-bulk-nice", weak=False)


def _broker_lost_one_line(sender=None, instance=None, **kwargs):
    from config.worker_logs import broker_lost_one_line

    broker_lost_one_line()


celeryd_after_setup.connect(
    _broker_lost_one_line, dispatch_uid="podium-broker-lost-one-line", weak=False
)
