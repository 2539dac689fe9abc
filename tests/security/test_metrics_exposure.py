"""/metrics is closed by default and names no benchmark that is not public.

The review read /metrics anonymously from outside with the production settings: gauges
labelled with every private and unlisted benchmark's slug (an unlisted slug is its only
secret), worker host names and queue depths, before any host check.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from estimation.models import RecomputeState, ResultSnapshot
from leaderboard.models import Benchmark
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db


@pytest.fixture
def boards():
    """A public, an unlisted and a private benchmark, each with a served version and a
    failing recompute."""
    for slug, visibility in (
        ("open-board", Benchmark.Visibility.PUBLIC),
        ("secret-unlisted-slug", Benchmark.Visibility.UNLISTED),
        ("secret-private-slug", Benchmark.Visibility.PRIVATE),
    ):
        benchmark = make_benchmark(slug=slug, visibility=visibility)
        ResultSnapshot.objects.create(
            benchmark=benchmark,
            metric=benchmark.metrics.get(),
            version=1,
            fingerprint="a" * 64,
            engine_version="1.0",
            status=ResultSnapshot.Status.READY,
            finished_at=timezone.now(),
        )
        RecomputeState.objects.update_or_create(
            benchmark=benchmark,
            defaults={
                "requested_revision": 2,
                "computed_revision": 1,
                "requested_at": timezone.now(),
                "failures": 3 if slug.startswith("secret-private") else 1,
            },
        )


def test_metrics_are_closed_when_nothing_is_configured(client, settings, boards):
    settings.PODIUM_METRICS_TOKEN = ""
    settings.PODIUM_METRICS_NETWORKS = []
    response = client.get("/metrics")
    assert response.status_code == 403
    assert b"podium_" not in response.content
    assert b"PODIUM_METRICS_TOKEN" in response.content


def test_a_scrape_network_lets_in_direct_peers_only(client, settings, boards):
    settings.PODIUM_METRICS_TOKEN = ""
    settings.PODIUM_METRICS_NETWORKS = ["10.0.0.0/8"]
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="::ffff:10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 403
    # Relayed by a proxy that sits in the network (Caddy on compose's): the client is
    # somewhere else, whatever the peer address says.
    relayed = client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_X_FORWARDED_FOR="192.0.2.7")
    assert relayed.status_code == 403


def test_a_token_is_compared_whole(client, settings, boards):
    settings.PODIUM_METRICS_TOKEN = "s3cret-token"
    settings.PODIUM_METRICS_NETWORKS = []
    for given in ("", "Bearer s3cret", "Bearer s3cret-token2", "s3cret-token"):
        response = client.get("/metrics", HTTP_AUTHORIZATION=given)
        assert response.status_code == 401, given
        assert b"podium_" not in response.content
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").status_code == 200


def test_metrics_answer_only_after_the_host_check(client, settings, boards):
    # A rebinding domain's page in a browser inside the scrape network gets nothing.
    settings.PODIUM_METRICS_NETWORKS = ["10.0.0.0/8"]
    settings.ALLOWED_HOSTS = ["podium.example.org"]
    refused = client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_HOST="rebind.attacker.example")
    assert refused.status_code == 400
    assert b"podium_" not in refused.content
    allowed = client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_HOST="podium.example.org")
    assert allowed.status_code == 200


def test_labels_name_public_benchmarks_only(client, settings, boards):
    settings.PODIUM_METRICS_TOKEN = "s3cret-token"
    text = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").content.decode()
    assert 'podium_recompute_failures{benchmark="open-board"} 1.0' in text
    # The others are one series, the worst of them, and no slug of theirs appears.
    assert 'podium_recompute_failures{benchmark="(not public)"} 3.0' in text
    assert 'podium_snapshot_age_seconds{benchmark="open-board",metric="score"}' in text
    assert 'podium_snapshot_age_seconds{benchmark="(not public)",metric=""}' in text
    assert "secret-" not in text


def test_a_malformed_scrape_network_stops_startup(monkeypatch):
    from config.env import env_networks

    monkeypatch.setenv("PODIUM_METRICS_NETWORKS", "10.0.0.0/8, 10.0.0.300/32")
    with pytest.raises(ImproperlyConfigured, match=r"PODIUM_METRICS_NETWORKS.*10\.0\.0\.300"):
        env_networks("PODIUM_METRICS_NETWORKS")
