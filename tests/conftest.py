"""Shared fixtures: real Redis and a real Celery worker for the pipeline tests."""

from __future__ import annotations

import pytest

from tests.shared_data import SHARED_DATA  # noqa: F401  (re-exported for the tests)


@pytest.fixture(scope="session")
def redis_url(django_db_setup) -> str:
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.fail(
            f"Redis is not reachable at {settings.CELERY_BROKER_URL}: {exc} (run `make services`)"
        )
    return settings.CELERY_BROKER_URL


@pytest.fixture
def celery_worker(redis_url, transactional_db):
    """A real Celery worker in a thread, consuming from real Redis, writing to PostgreSQL."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker
