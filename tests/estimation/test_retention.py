"""Retention: prune_snapshots keeps every version a reader can cite."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from estimation.core.analysis import analyze
from estimation.models import PrunedSnapshot, ResultSnapshot
from estimation.services import analysis_settings_for, result_table_build, snapshot_ready_store
from leaderboard.services import submission_accept
from tests.engine_memo import analyze_remembered
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
    # the same table in every test: the engine's result is computed once per process
    payload = analyze_remembered(table, analysis_settings_for(benchmark=benchmark)).payload
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
    assert client.get("/b/toy/v1/").status_code == 410  # pruned: Gone, not Not Found
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


GONE_REASON = (
    "Version 1 of this benchmark's results was removed (older uncited versions are "
    "pruned); the latest is version 6."
)


def pruned(benchmark):
    return sorted(
        PrunedSnapshot.objects.filter(benchmark=benchmark).values_list("version", flat=True)
    )


def test_retention_records_what_it_prunes_and_a_dry_run_nothing(history):
    call_command("prune_snapshots", "--dry-run", stdout=io.StringIO())
    assert pruned(history) == []
    call_command("prune_snapshots", stdout=io.StringIO())
    assert pruned(history) == [1, 3, 4, 5]  # exactly the versions deleted (3: uncited here)
    assert set(pruned(history)).isdisjoint(kept(history))
    call_command("prune_snapshots", stdout=io.StringIO())
    assert pruned(history) == [1, 3, 4, 5]


@pytest.mark.parametrize(
    ("url", "latest"),
    [
        ("/b/toy/v1/", "/b/toy/v6/"),
        ("/b/toy/v1/board/", "/b/toy/v6/"),
        ("/b/toy/v1/export.csv", "/b/toy/v6/"),
        ("/b/toy/v1/export.json", "/b/toy/v6/"),
    ],
)
def test_a_pruned_permalink_or_export_is_gone_with_a_link_to_the_latest(
    client, history, url, latest
):
    call_command("prune_snapshots", stdout=io.StringIO())
    response = client.get(url)
    assert response.status_code == 410
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert GONE_REASON.replace("'", "&#x27;") in page
    assert f'href="{latest}"' in page
    assert ResultSnapshot.objects.get(version=6).cited_at is None  # a 410 cites nothing


@pytest.mark.parametrize(
    ("path", "latest"),
    [
        ("snapshots/1/", "snapshots/6/"),
        ("snapshots/1/export.json", "snapshots/6/export.json"),
        ("snapshots/1/export.csv", "snapshots/6/export.csv"),
        ("snapshots/1/sections/board/?top=1", "snapshots/6/sections/board/?top=1"),
    ],
)
def test_a_pruned_version_in_the_api_is_410_in_the_error_envelope(client, history, path, latest):
    call_command("prune_snapshots", stdout=io.StringIO())
    response = client.get(f"/api/benchmarks/toy/{path}")
    assert response.status_code == 410
    assert response.json() == {
        "detail": GONE_REASON,
        "latest_version": 6,
        "latest": f"http://testserver/api/benchmarks/toy/{latest}",
    }
    assert client.get(f"/api/benchmarks/toy/{latest}").status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/b/toy/v99/",
        "/b/toy/v99/export.csv",
        "/api/benchmarks/toy/snapshots/99/",
        "/api/benchmarks/toy/snapshots/99/export.json",
        "/api/benchmarks/toy/snapshots/99/sections/board/",
    ],
)
def test_a_version_that_never_existed_stays_404(client, history, url):
    call_command("prune_snapshots", stdout=io.StringIO())
    assert client.get(url).status_code == 404


def test_the_migration_remembers_versions_pruned_before_the_tombstones(history):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("estimation.migrations.0004_pruned_snapshot")
    ResultSnapshot.objects.filter(version__in=[1, 4]).delete()  # pruned by an older Podium
    migration.remember_earlier_prunes(apps, None)
    assert pruned(history) == [1, 4]  # gaps below the newest; nothing past it


def test_the_openapi_schema_documents_410_on_version_endpoints(client):
    schema = client.get("/api/schema/?format=json").json()
    for path in (
        "/api/benchmarks/{slug}/snapshots/{version}/",
        "/api/benchmarks/{slug}/snapshots/{version}/export.csv",
        "/api/benchmarks/{slug}/snapshots/{version}/export.json",
        "/api/benchmarks/{slug}/snapshots/{version}/sections/{name}/",
    ):
        gone = schema["paths"][path]["get"]["responses"]["410"]
        body = gone["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert set(schema["components"]["schemas"][body]["properties"]) == {
            "detail",
            "latest_version",
            "latest",
        }


def test_an_abandoned_version_goes_once_superseded_and_past_its_keep_time(history, settings):
    """Abandoned (its worker or the database went away): kept while it is the newest,
    and once superseded for SNAPSHOT_ABANDONED_KEEP_HOURS (the status pages show it)."""
    newest = ResultSnapshot.objects.get(benchmark=history, version=7)
    ResultSnapshot.objects.filter(pk=newest.pk).update(
        failed_during="abandoned", finished_at=timezone.now()
    )
    from estimation.recompute.retention import snapshots_prune

    snapshots_prune()
    assert 7 in kept(history)
    snapshot_ready_store(
        snapshot=ResultSnapshot.objects.create(
            benchmark=history, metric=newest.metric, version=8, fingerprint="8", engine_version="x"
        ),
        payload=analyze(
            result_table_build(benchmark=history, metric=newest.metric),
            analysis_settings_for(benchmark=history),
        ).payload,
    )
    snapshots_prune()
    assert 7 in kept(history) and 8 in kept(history)  # superseded, still within its keep
    later = timezone.now() + timedelta(hours=settings.SNAPSHOT_ABANDONED_KEEP_HOURS, minutes=1)
    result = snapshots_prune(now=later)
    assert 7 not in kept(history) and 8 in kept(history)
    assert result.failed >= 1
    assert PrunedSnapshot.objects.filter(benchmark=history, version=7).exists()
