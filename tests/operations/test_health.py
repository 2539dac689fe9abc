"""/health/ (alive), /health/ready/ (database, migrations, cache, broker) and /metrics."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from estimation.models import RecomputeState
from operations import health
from operations.models import Heartbeat
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db


def test_alive_answers_json_for_any_host_without_touching_the_database(
    client, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = client.get("/health/", HTTP_HOST="10.0.0.5:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "alive"}
    assert response["Cache-Control"] == "no-store"


def test_ready_reports_each_check(client):
    response = client.get("/health/ready/", HTTP_HOST="web:8000")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ready"
    assert set(body["checks"]) == {"database", "migrations", "cache", "broker"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["cache"]["detail"] == "redis"


def test_ready_is_503_with_retry_after_when_the_cache_is_unreachable(client, settings):
    from django.core.cache import caches

    settings.CACHES = {
        **settings.CACHES,
        "default": {
            **settings.CACHES["default"],
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        },
    }
    caches._settings = None  # re-read CACHES
    try:
        del caches["default"]
    except (AttributeError, KeyError):
        pass
    try:
        response = client.get("/health/ready/")
    finally:
        caches._settings = None
        try:
            del caches["default"]
        except (AttributeError, KeyError):
            pass
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["cache"]["ok"] is False
    assert "Connection" in body["checks"]["cache"]["detail"]
    assert body["checks"]["database"]["ok"] is True


def test_ready_names_unapplied_migrations(client, monkeypatch):
    from django.db.migrations.executor import MigrationExecutor

    monkeypatch.setattr(health, "_migrations_applied", False)
    real = MigrationExecutor.migration_plan

    def pending(self, targets, clean_start=False):
        # The plan as if operations' migrations were not applied yet.
        return real(self, [("operations", None)]) or [
            (self.loader.graph.nodes[("operations", "0001_initial")], False)
        ]

    monkeypatch.setattr(MigrationExecutor, "migration_plan", pending)
    response = client.get("/health/ready/")
    assert response.status_code == 503
    detail = response.json()["checks"]["migrations"]["detail"]
    assert "operations.0001_initial" in detail and "manage.py migrate" in detail


def test_probes_skip_the_https_redirect_and_other_methods_reach_the_url(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/health/").status_code == 200
    assert client.post("/health/").status_code in (301, 405)


@override_settings(PODIUM_METRICS_NETWORKS=["127.0.0.0/8"])
def test_metrics_expose_requests_and_the_shared_state(client):
    benchmark = make_benchmark(slug="metrics-toy")
    RecomputeState.objects.update_or_create(
        benchmark=benchmark,
        defaults={"requested_revision": 3, "computed_revision": 1, "requested_at": timezone.now()},
    )
    Heartbeat.objects.create(
        role="worker",
        name="celery@w1",
        queues=["podium"],
        started_at=timezone.now(),
        seen_at=timezone.now() - timedelta(seconds=40),
    )
    assert client.get("/api/benchmarks/").status_code == 200
    response = client.get("/metrics")
    assert response.status_code == 200
    text = response.content.decode()
    assert "podium_http_request_duration_seconds_count{" in text
    assert 'method="GET",status="2xx",view="api-benchmark-list"' in text
    assert "podium_database_up 1.0" in text
    assert "podium_recomputes_queued 1.0" in text
    assert "podium_queue_depth " in text
    assert 'podium_heartbeat_age_seconds{name="celery@w1",role="worker"}' in text
    for name in (
        "podium_snapshot_age_seconds",
        "podium_recompute_duration_seconds",
        "podium_snapshots",
        "podium_recompute_failures",
        "podium_recompute_oldest_wait_seconds",
    ):
        assert f"# TYPE {name} gauge" in text, name


@override_settings(PODIUM_METRICS_TOKEN="s3cret")
def test_metrics_need_the_token_when_one_is_set(client):
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200
