"""The status tests start from no incidents: tests elsewhere kill and restart real
workers, which records incidents under this test run's queue (operations/incidents.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_incidents_left_over():
    import redis
    from django.conf import settings

    from operations.incidents import _keys

    if settings.CELERY_BROKER_URL.startswith("redis://"):
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        try:
            client.delete(*_keys())
        finally:
            client.close()
