"""A metric's region of practical equivalence: set through the API, carried into the
analysis settings of that metric's snapshots."""

from __future__ import annotations

from dataclasses import replace

from estimation.models import RecomputeState
from estimation.services import analysis_settings_for, snapshot_refresh
from leaderboard.models import Metric
from leaderboard.services import submission_accept
from tests.api.conftest import client_for
from tests.factories import make_submission


def test_a_maintainer_sets_and_clears_the_rope_and_a_recompute_is_requested(maintainer, benchmark):
    api = client_for(maintainer)
    response = api.post("/api/benchmarks/toy/metrics/score/rope/", {"rope": 0.01}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["rope"] == 0.01
    assert Metric.objects.get(benchmark=benchmark, name="score").rope == 0.01
    assert RecomputeState.objects.get(pk=benchmark.pk).requested_revision == 1
    listed = api.get("/api/benchmarks/toy/metrics/").json()["results"]
    assert listed[0]["rope"] == 0.01
    cleared = api.post("/api/benchmarks/toy/metrics/score/rope/", {"rope": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["rope"] is None


def test_the_rope_is_refused_when_negative_and_for_non_maintainers(
    maintainer, researcher, benchmark
):
    bad = client_for(maintainer).post(
        "/api/benchmarks/toy/metrics/score/rope/", {"rope": -1}, format="json"
    )
    assert bad.status_code == 400
    assert bad.json()["problems"][0]["field"] == "rope"
    other = client_for(researcher).post(
        "/api/benchmarks/toy/metrics/score/rope/", {"rope": 0.1}, format="json"
    )
    assert other.status_code == 403
    missing = client_for(maintainer).post(
        "/api/benchmarks/toy/metrics/nope/rope/", {"rope": 0.1}, format="json"
    )
    assert missing.status_code == 404


def test_the_snapshot_of_a_metric_with_a_rope_carries_the_practical_section(maintainer, benchmark):
    from estimation.selectors import SnapshotSections

    for name, scores in (
        ("a", {f"d{i}": 0.80 + i / 100 for i in range(6)}),
        ("b", {f"d{i}": 0.801 + i / 100 for i in range(6)}),
        ("c", {f"d{i}": 0.60 + i / 100 for i in range(6)}),
    ):
        submission_accept(submission=make_submission(benchmark, name, scores))
    Metric.objects.filter(benchmark=benchmark).update(rope=0.01)
    benchmark.bootstrap_size = 0
    benchmark.save()
    assert analysis_settings_for(benchmark=benchmark) == replace(
        analysis_settings_for(benchmark=benchmark), rope=None
    )  # the benchmark's settings have none: the metric's is added per metric
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    sections = SnapshotSections(snapshot)
    practical = sections["practical"]
    assert practical.rope == 0.01 and set(practical.algorithms) == {"a", "b", "c"}
    assert sections["board"].practical.rope == 0.01
