"""Retention: prune_snapshots keeps every version a reader can cite (issue 10, item 7)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from estimation.core.analysis import analyze
from estimation.models import ResultSnapshot
from estimation.services import analysis_settings_for, result_table_build, snapshot_ready_store
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(settings):
    """Seven versions of one metric, finished at the given minutes, 30 days ago."""
    settings.SNAPSHOT_COALESCE_SECONDS = 600
    settings.SNAPSHOT_FAILED_KEEP_DAYS = 7
    benchmark = make_benchmark()
    for name, values in {"a": {"d1": 0.9, "d2": 0.1}, "b": {"d1": 0.5, "d2": 0.5}}.items():
        submission_accept(submission=make_submission(benchmark, name, values))
    metric = benchmark.metrics.get()
    table = result_table_build(benchmark=benchmark, metric=metric)
    payload = analyze(table, analysis_settings_for(benchmark=benchmark)).payload
    start = timezone.now() - timedelta(days=30)
    plan = [  # version: (status, minutes after start)
        (1, "ready", 0),  # served 1 minute: pruned
        (2, "ready", 1),  # served two hours: kept
        (3, "ready", 121),  # served 30 s but cited: kept
        (4, "ready", 121.5),  # served 50 s: pruned
        (5, "failed", 121.8),  # failed, not the newest, 30 days old: pruned
        (6, "ready", 122.3),  # served now: kept
        (7, "failed", 123),  # the newest (what the pages report): kept
    ]
    for version, status, minutes in plan:
        snapshot = ResultSnapshot.objects.create(
            benchmark=benchmark,
            metric=metric,
            version=version,
            fingerprint=str(version),
            engine_version="x",
        )
        if status == "ready":
            snapshot_ready_store(snapshot=snapshot, payload=payload)
        else:
            ResultSnapshot.objects.filter(pk=snapshot.pk).update(
                status="failed", failed_during="analysis", error="ValueError: x"
            )
        ResultSnapshot.objects.filter(pk=snapshot.pk).update(
            finished_at=start + timedelta(minutes=minutes)
        )
    return benchmark


def kept(benchmark):
    return list(
        ResultSnapshot.objects.filter(benchmark=benchmark)
        .order_by("version")
        .values_list("version", flat=True)
    )


def test_prune_snapshots_keeps_cited_served_and_newest_versions(client, history):
    assert client.get("/b/toy/v3/").status_code == 200  # a reader opens the permalink
    assert ResultSnapshot.objects.get(version=3).cited_at is not None

    out = io.StringIO()
    call_command("prune_snapshots", "--dry-run", stdout=out)
    assert out.getvalue().startswith("would delete 3 versions (2 superseded")
    assert kept(history) == [1, 2, 3, 4, 5, 6, 7]

    call_command("prune_snapshots", stdout=out)
    assert kept(history) == [2, 3, 6, 7]
    assert client.get("/b/toy/v1/").status_code == 404
    assert client.get("/b/toy/v3/").status_code == 200
    latest = client.get("/api/benchmarks/toy/snapshots/latest/").json()
    assert latest["version"] == 6 and latest["failure"]["version"] == 7
    call_command("prune_snapshots", stdout=out)  # nothing more to do
    assert kept(history) == [2, 3, 6, 7]


@pytest.mark.parametrize(
    "url",
    [
        "/b/toy/v4/export.csv",
        "/api/benchmarks/toy/snapshots/4/",
        "/api/benchmarks/toy/snapshots/4/export.json",
    ],
)
def test_an_export_or_the_version_url_cites_a_version(client, history, url):
    assert client.get(url).status_code == 200
    call_command("prune_snapshots", stdout=io.StringIO())
    assert 4 in kept(history) and 1 not in kept(history)


def test_the_live_page_and_latest_do_not_cite(client, history):
    client.get("/b/toy/")
    client.get("/api/benchmarks/toy/snapshots/latest/")
    assert not ResultSnapshot.objects.filter(cited_at__isnull=False).exists()
