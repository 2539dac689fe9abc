"""Every recompute failure is recorded and visible; failures that may pass on retry are
backed off; a run that lost its benchmark saves nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from estimation import requests as recompute_requests
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute.leases import LeaseLost, lease_acquire
from estimation.services import (
    recompute_run,
    recompute_stale_enqueue,
    snapshot_ready_store,
)
from leaderboard.services import submission_accept, submission_reject
from tests.api.conftest import client_for
from tests.factories import make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db

VALUES = {
    "a": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
    "b": {"d1": 0.5, "d2": 0.9, "d3": 0.2},
    "c": {"d1": 0.1, "d2": 0.1, "d3": 0.3},
}


def accept(benchmark, name):
    return submission_accept(submission=make_submission(benchmark, name, VALUES[name]))


def run(benchmark, owner="worker"):
    return recompute_run(benchmark_id=benchmark.pk, owner=owner)


def versions(benchmark):
    return [
        (s.version, s.status, s.failed_during)
        for s in ResultSnapshot.objects.filter(benchmark=benchmark).order_by("version")
    ]


def test_rejecting_until_unanalysable_is_recorded_even_when_that_input_failed_before(client):
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    accept(benchmark, "a")
    run(benchmark)  # a alone: cannot be analysed
    b, c = accept(benchmark, "b"), accept(benchmark, "c")
    run(benchmark)
    submission_reject(submission=b, user=maintainer)
    run(benchmark)
    submission_reject(submission=c, user=maintainer)
    run(benchmark)  # a alone again: the input of version 1
    assert versions(benchmark) == [
        (1, "failed", "analysis"),
        (2, "ready", ""),
        (3, "ready", ""),
        (4, "failed", "analysis"),
    ]
    assert "at least 2 algorithms" in ResultSnapshot.objects.get(version=4).error
    assert not RecomputeState.objects.get(pk=benchmark.pk).is_stale  # deterministic: no retry
    assert run(benchmark) == []  # and nothing new until the input changes

    latest = client.get("/api/benchmarks/toy/snapshots/latest/").json()
    assert latest["version"] == 3  # older results are still served, and say so
    failure = latest["failure"]
    assert failure["version"] == 4 and failure["served_version"] == 3
    assert failure["failed_during"] == "analysis" and failure["retry_at"] is None
    assert "at least 2 algorithms are needed" in failure["reason"]
    assert failure["still_includes"] == [
        {"submission": c.pk, "algorithm": "c", "status": "rejected"}
    ]
    assert failure["lacks"] == [] and failure["n_still_includes"] == 1
    status = client.get("/api/benchmarks/toy/snapshots/status/").json()
    assert status["failure"] == failure and status["newest"]["status"] == "failed"

    page = client.get("/b/toy/").content.decode()
    assert 'data-testid="recompute-failure"' in page
    assert "could not be computed" in page and "at least 2 algorithms are needed" in page
    assert "The results shown are older: version 3" in page and "c (rejected)" in page
    maintained = client_for(maintainer).get("/maintain/").content.decode()
    assert (
        'data-testid="maintained-failure"' in maintained and "Readers see version 3" in maintained
    )
    history = client_for(maintainer).get("/b/toy/maintain/snapshots/").content.decode()
    assert 'data-testid="recompute-failure"' in history


def test_back_to_the_served_input_writes_a_version_that_clears_the_failure(client):
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    accept(benchmark, "a")
    accept(benchmark, "b")
    run(benchmark)
    broken = submission_accept(
        submission=make_submission(benchmark, "c", {"d1": 0.5, "d2": 0.5, "d3": 0.5})
    )
    real = ResultSnapshot.objects.get(version=1)
    from estimation.recompute import refresh

    original = refresh.analyze
    refresh.analyze = lambda *a, **k: (_ for _ in ()).throw(FloatingPointError("injected"))
    try:
        run(benchmark)
    finally:
        refresh.analyze = original
    assert client.get("/api/benchmarks/toy/snapshots/latest/").json()["failure"]["version"] == 2
    submission_reject(submission=broken, user=maintainer)
    (repeat,) = run(benchmark)
    assert (repeat.version, repeat.status, repeat.fingerprint) == (3, "ready", real.fingerprint)
    assert sorted(repeat.sections.values_list("etag", flat=True)) == sorted(
        real.sections.values_list("etag", flat=True)
    )
    latest = client.get("/api/benchmarks/toy/snapshots/latest/").json()
    assert latest["version"] == 3 and latest["failure"] is None
    assert 'data-testid="recompute-failure"' not in client.get("/b/toy/").content.decode()


def test_a_load_failure_is_recorded_and_retried_with_back_off(monkeypatch, settings, client):
    from estimation.recompute import inputs

    settings.RECOMPUTE_RETRY_BASE_SECONDS = 30
    settings.RECOMPUTE_RETRY_MAX_SECONDS = 100
    benchmark = make_benchmark()
    accept(benchmark, "a")
    accept(benchmark, "b")
    run(benchmark)

    def unreadable(**kwargs):
        raise RuntimeError("scores table unreadable")

    monkeypatch.setattr(inputs, "result_table_build", unreadable)
    dispatched = []
    monkeypatch.setattr(
        recompute_requests, "recompute_dispatch", lambda pk, **kwargs: dispatched.append(pk)
    )
    accept(benchmark, "c")
    # The back-off is checked against the clock read around the run, not against a
    # margin for how long the run took (a loaded machine takes longer).
    before = timezone.now()
    (failed,) = run(benchmark)
    after = timezone.now()
    assert (failed.version, failed.status, failed.failed_during) == (2, "failed", "load")
    assert failed.error == "RuntimeError: scores table unreadable"
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert state.is_stale and state.failures == 1 and state.lease_owner == ""
    assert before + timedelta(seconds=30) <= state.retry_at <= after + timedelta(seconds=30)
    assert dispatched == []  # the run did not re-enqueue itself
    assert recompute_stale_enqueue() == []  # nor does the sweep before retry_at

    latest = client.get("/api/benchmarks/toy/snapshots/latest/").json()
    assert latest["version"] == 1 and latest["failure"]["failed_during"] == "load"
    assert latest["failure"]["retry_at"] is not None
    status = client.get("/api/benchmarks/toy/snapshots/status/").json()
    for body in (latest, status):  # internals are for maintainers only
        assert "scores table unreadable" not in str(body)
    assert "retried automatically" in status["newest"]["error"]
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    seen = client_for(maintainer).get("/api/benchmarks/toy/snapshots/status/").json()
    assert seen["newest"]["error"] == "RuntimeError: scores table unreadable"
    assert latest["failure"]["lacks"][0]["algorithm"] == "c"

    # The back-off doubles and is capped; a repeated failure keeps its version.
    for failures, delay in ((2, 60), (3, 100), (4, 100)):
        RecomputeState.objects.filter(pk=benchmark.pk).update(retry_at=timezone.now())
        assert recompute_stale_enqueue() == [benchmark.pk]
        before = timezone.now()
        (again,) = run(benchmark)
        after = timezone.now()
        assert again.pk == failed.pk
        state = RecomputeState.objects.get(pk=benchmark.pk)
        assert state.failures == failures
        back_off = timedelta(seconds=delay)
        assert before + back_off <= state.retry_at <= after + back_off

    monkeypatch.undo()  # readable again
    (ready,) = run(benchmark)
    assert (ready.version, ready.status) == (3, "ready")
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert not state.is_stale and state.failures == 0 and state.retry_at is None
    assert client.get("/api/benchmarks/toy/snapshots/latest/").json()["failure"] is None


def test_a_superseded_run_cannot_flip_its_abandoned_version_to_ready(monkeypatch):
    from estimation.recompute import refresh, runs

    benchmark = make_benchmark()
    accept(benchmark, "a")
    accept(benchmark, "b")
    real_analyze = refresh.analyze

    def analyze_then_lose_the_lease(table, settings, progress, **options):
        analysis = real_analyze(table, settings, progress=progress, **options)
        # Meanwhile the lease expired and another worker took over and abandoned us.
        RecomputeState.objects.filter(pk=benchmark.pk).update(
            lease_expires_at=timezone.now() - timedelta(seconds=1)
        )
        assert lease_acquire(benchmark_id=benchmark.pk, owner="worker-2")
        runs._abandon_orphaned_snapshots(benchmark_id=benchmark.pk)
        return analysis

    monkeypatch.setattr(refresh, "analyze", analyze_then_lose_the_lease)
    assert run(benchmark, owner="worker-1") == []
    snapshot = ResultSnapshot.objects.get(benchmark=benchmark)
    assert snapshot.status == "failed" and snapshot.error.startswith("abandoned")
    assert not snapshot.sections.exists()
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert state.lease_owner == "worker-2" and state.is_stale  # the new owner's to finish


def test_the_ready_save_needs_the_lease_and_a_computing_version():
    from estimation.core.analysis import analyze
    from estimation.recompute.store import snapshot_ready_save
    from estimation.services import analysis_settings_for, result_table_build

    benchmark = make_benchmark()
    accept(benchmark, "a")
    accept(benchmark, "b")
    metric = benchmark.metrics.get()
    table = result_table_build(benchmark=benchmark, metric=metric)
    payload = analyze(table, analysis_settings_for(benchmark=benchmark)).payload
    snapshot = ResultSnapshot.objects.create(
        benchmark=benchmark, metric=metric, version=1, fingerprint="f", engine_version="x"
    )
    assert lease_acquire(benchmark_id=benchmark.pk, owner="worker-2")
    with pytest.raises(LeaseLost):  # the lease is another run's
        snapshot_ready_save(
            snapshot=snapshot,
            bodies=services_bodies(payload),
            payload=payload,
            timings={},
            owner="worker-1",
        )
    snapshot.refresh_from_db()
    assert snapshot.status == "computing" and not snapshot.sections.exists()
    ResultSnapshot.objects.filter(pk=snapshot.pk).update(status="failed", error="abandoned: x")
    with pytest.raises(LeaseLost):  # no longer computing
        snapshot_ready_store(snapshot=snapshot, payload=payload)
    snapshot.refresh_from_db()
    assert snapshot.status == "failed" and not snapshot.sections.exists()


def services_bodies(payload):
    from estimation.services import section_bodies

    return section_bodies(payload)
