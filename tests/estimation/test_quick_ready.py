"""The board is served before its bootstrap and evaluation, then completed in
place to the bytes of one ``analyze()`` call, and every validator and cache moves."""

from __future__ import annotations

import json

import numpy as np
import pytest

from estimation.core.analysis import UNCERTAINTY_DEFERRED, UNCERTAINTY_GAVE_WAY, analyze
from estimation.models import ResultSnapshot, SnapshotSection
from estimation.recompute import uncertainty
from estimation.selectors import snapshot_status
from estimation.services import (
    ADVISOR_SECTION,
    BOARD_SECTION,
    analysis_settings_for,
    result_table_build,
    section_bodies,
    snapshot_refresh,
    snapshot_uncertainty_store,
)
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db
BASE = "/api/benchmarks/toy/snapshots/"
DEFERRED = {"not_applicable": UNCERTAINTY_DEFERRED}


@pytest.fixture
def benchmark():
    """Four algorithms, six datasets, three folds each (so every stage runs)."""
    benchmark = make_benchmark("toy", bootstrap_size=200)
    rng = np.random.default_rng(0)
    for shift, name in enumerate(("alpha", "beta", "gamma", "delta")):
        values = {f"d{i}": [float(v) for v in rng.normal(shift / 4, 1, 3)] for i in range(6)}
        submission_accept(submission=make_submission(benchmark, name, values, folds=True))
    return benchmark


def _one_shot_board(benchmark) -> tuple[str, str]:
    metric = benchmark.metrics.get()
    table = result_table_build(benchmark=benchmark, metric=metric)
    settings = analysis_settings_for(benchmark=benchmark)
    return section_bodies(analyze(table, settings).payload)[BOARD_SECTION]


def _board(snapshot) -> SnapshotSection:
    return SnapshotSection.objects.get(snapshot=snapshot, name=BOARD_SECTION)


def _deferred(body: str) -> bool:
    board = json.loads(body)
    return board["evaluation"] == DEFERRED and all(
        e["bootstrap"] == DEFERRED for e in board["estimators"]
    )


def test_the_completed_board_is_the_one_shot_board_and_validators_move(
    benchmark, client, monkeypatch
):
    seen = {}
    real = uncertainty.analyze_uncertainty

    def look_then_complete(table, settings, board, **options):
        snapshot = ResultSnapshot.objects.get(benchmark=benchmark)
        assert snapshot.status == ResultSnapshot.Status.READY  # served already
        stored = _board(snapshot)
        assert _deferred(stored.body)
        status = client.get(f"{BASE}status/")
        latest = client.get(f"{BASE}latest/")  # also fills the anonymous latest cache
        assert latest.json()["board"]["evaluation"] == DEFERRED
        section = client.get(f"{BASE}1/sections/board/")
        seen.update(
            status=status["ETag"],
            latest=latest["ETag"],
            section=section["ETag"],
            selector=snapshot_status(benchmark=benchmark, metric=benchmark.metrics.get()).etag,
        )
        return real(table, settings, board, **options)

    monkeypatch.setattr(uncertainty, "analyze_uncertainty", look_then_complete)
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    assert seen, "the board was not served before its completion"
    body, etag = _one_shot_board(benchmark)
    stored = _board(snapshot)
    assert stored.body == body and stored.etag == etag  # byte for byte
    assert SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()
    timings = ResultSnapshot.objects.get(pk=snapshot.pk).timings
    assert {"uncertainty_s", "advisor_s"} <= set(timings)
    assert {"bootstrap", "evaluation"} <= set(timings["stages"])

    metric = benchmark.metrics.get()
    assert snapshot_status(benchmark=benchmark, metric=metric).etag != seen["selector"]
    status = client.get(f"{BASE}status/", HTTP_IF_NONE_MATCH=seen["status"])
    assert status.status_code == 200 and status["ETag"] != seen["status"]
    latest = client.get(f"{BASE}latest/", HTTP_IF_NONE_MATCH=seen["latest"])
    assert latest.status_code == 200 and latest["ETag"] != seen["latest"]
    assert latest.json()["board"] == json.loads(body)  # not the cached deferred body
    section = client.get(f"{BASE}1/sections/board/", HTTP_IF_NONE_MATCH=seen["section"])
    assert section.status_code == 200 and section["ETag"] == f'"{etag}"'
    assert section.json() == json.loads(body)


def test_a_completion_that_gave_way_or_died_is_finished_by_the_next_run(benchmark, client):
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk, superseded=lambda: True)
    assert snapshot.status == ResultSnapshot.Status.READY
    # It gave way: its permalink says the spread is not coming, not "being computed".
    board = json.loads(_board(snapshot).body)
    assert board["evaluation"] == {"not_applicable": UNCERTAINTY_GAVE_WAY}
    assert all(
        e["bootstrap"] == {"not_applicable": UNCERTAINTY_GAVE_WAY} for e in board["estimators"]
    )
    assert not SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()
    page = client.get("/b/toy/").content.decode()
    assert "uncertainty-pending" not in page and "data-pending" not in page
    gave_way = _board(snapshot).etag
    # Giving way again changes nothing: no validator moves.
    snapshot_uncertainty_store(
        snapshot=snapshot,
        table=result_table_build(benchmark=benchmark, metric=benchmark.metrics.get()),
        settings=analysis_settings_for(benchmark=benchmark),
        stop=lambda: True,
    )
    assert _board(snapshot).etag == gave_way

    assert snapshot_refresh(benchmark_id=benchmark.pk) == []  # same input: completes it
    body, _ = _one_shot_board(benchmark)
    assert _board(snapshot).body == body
    assert SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()
    assert ResultSnapshot.objects.filter(benchmark=benchmark).count() == 1
    page = client.get("/b/toy/").content.decode()
    assert "uncertainty-pending" not in page and "data-pending" not in page
    before = _board(snapshot).etag
    assert snapshot_refresh(benchmark_id=benchmark.pk) == []  # idempotent
    assert _board(snapshot).etag == before


def test_a_failed_completion_says_why_and_keeps_the_board(benchmark, monkeypatch):
    def broken(table, settings, board, **options):
        raise FloatingPointError("injected fault")

    monkeypatch.setattr(uncertainty, "analyze_uncertainty", broken)
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    board = json.loads(_board(snapshot).body)
    reason = board["evaluation"]["not_applicable"]
    assert "injected fault" in reason and "failed" in reason
    assert all(e["bootstrap"]["not_applicable"] == reason for e in board["estimators"])
    assert board["verdict"]["sentences"]  # the verdict stands on the win rate's exact interval
    assert SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()


@pytest.mark.parametrize("gave_way", [False, True])
def test_a_version_pruned_while_its_board_is_completed_is_left_gone(
    benchmark, monkeypatch, gave_way
):
    """Retention prunes a superseded version while its completion runs (the fault soak's
    completion task then failed with DoesNotExist re-reading it, issue 41): the
    completion ends quietly and adds no advisor to a version that is gone."""
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk, complete=False)
    pruned = []

    def prune_then_answer() -> bool:
        pruned.append(ResultSnapshot.objects.filter(pk=snapshot.pk).delete())
        return gave_way

    advisor = []
    monkeypatch.setattr(uncertainty, "analyze_advisor", lambda *a, **k: advisor.append(1))
    complete = snapshot_uncertainty_store(
        snapshot=snapshot,
        table=result_table_build(benchmark=benchmark, metric=benchmark.metrics.get()),
        settings=analysis_settings_for(benchmark=benchmark),
        stop=prune_then_answer,
    )
    assert pruned and complete is False
    assert not ResultSnapshot.objects.filter(pk=snapshot.pk).exists()
    assert uncertainty.snapshots_complete(benchmark_id=benchmark.pk) == [] and advisor == []
