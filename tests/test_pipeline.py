"""End to end: a score accepted through the service reaches a real Celery worker over
real Redis, the snapshot lands in PostgreSQL, and the API and the page show it."""

import time

import pytest
from django.db import connection, transaction

from estimation.core.contract import to_json
from estimation.models import ResultSnapshot
from estimation.selectors import snapshot_board
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.integration


def wait_for_snapshot(benchmark, version: int, timeout: float = 30.0) -> ResultSnapshot:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snapshot = ResultSnapshot.objects.filter(benchmark=benchmark, version=version).first()
        # ready is served before its board's bootstrap and evaluation: wait for those too
        # (uncertainty_s), so that the board compared below is the final one
        if snapshot is not None and snapshot.status == ResultSnapshot.Status.FAILED:
            return snapshot
        if snapshot is not None and "uncertainty_s" in (snapshot.timings or {}):
            return snapshot
        time.sleep(0.1)
    raise AssertionError(f"no snapshot v{version} of {benchmark.slug} within {timeout} s")


def test_accepted_scores_reach_the_worker_and_the_pages(celery_worker, client):
    assert connection.vendor == "postgresql"
    benchmark = make_benchmark(slug="pipeline")
    with transaction.atomic():  # one moderation batch: one recompute
        for algorithm, values in {
            "alpha": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
            "beta": {"d1": 0.5, "d2": 0.9, "d3": 0.2},
            "gamma": {"d1": 0.1, "d2": 0.1, "d3": 0.3},
        }.items():
            submission_accept(submission=make_submission(benchmark, algorithm, values))

    snapshot = wait_for_snapshot(benchmark, version=1)
    assert snapshot.status == ResultSnapshot.Status.READY, snapshot.error
    third = 1 / 3
    board = snapshot_board(snapshot=snapshot)
    assert board.column(board.win_rate) == pytest.approx(
        {"alpha": third, "beta": third, "gamma": third}
    )
    assert board.column(board.mean_rank) == pytest.approx(
        {"alpha": 2.0, "beta": 5 / 3, "gamma": 7 / 3}
    )

    api = client.get("/api/benchmarks/pipeline/snapshots/latest/").json()
    assert api["version"] == 1 and api["board"] == to_json(board)

    page = client.get("/b/pipeline/").content.decode()
    assert (
        'data-testid="snapshot-version">1<' in page
        and "alpha" in page
        and "2.33" in page
        and "P(win)" in page
    )

    # A change after the first snapshot gives exactly one new version.
    submission_accept(
        submission=make_submission(benchmark, "delta", {"d1": 1.0, "d2": 1.0, "d3": 1.0})
    )
    snapshot = wait_for_snapshot(benchmark, version=2)
    board = snapshot_board(snapshot=snapshot)
    assert board.column(board.win_rate)["delta"] == 1.0
    page = client.get("/b/pipeline/").content.decode()
    assert 'data-testid="snapshot-version">2<' in page
