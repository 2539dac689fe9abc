"""A 5000 x 6 board recomputed by a real Celery worker, bootstrap included, within the
recompute's time limit. Minutes of CPU: run only when asked,
``PODIUM_LARGE_WORKER=1 pytest tests/estimation/test_worker_large_board.py``."""

from __future__ import annotations

import os
import time

import pytest
from django.conf import settings

from bench.common import synthetic_scores
from estimation.core.contract import BootstrapSummary, PairwiseScope
from estimation.models import ResultSnapshot
from estimation.selectors import snapshot_board, snapshot_section
from leaderboard import services
from leaderboard.ingest.results_csv import parse_results_csv
from leaderboard.models import Submission
from tests.factories import make_benchmark

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        os.environ.get("PODIUM_LARGE_WORKER") != "1", reason="set PODIUM_LARGE_WORKER=1"
    ),
]

M, N = 5000, 6


def test_a_5000_by_6_board_completes_in_a_worker_within_its_time_limit(celery_worker, tmp_path):
    values, _ = synthetic_scores(M, N, seed=0)
    path = tmp_path / "wide.csv"
    lines = ["dataset," + ",".join(f"algorithm-{j:04d}" for j in range(M))]
    lines += [f"d{i}," + ",".join(repr(float(v)) for v in values[i]) for i in range(N)]
    path.write_text("\n".join(lines) + "\n")
    benchmark = make_benchmark("large-worker")
    entries = services.submission_entries_from_csv(
        benchmark=benchmark, parsed=parse_results_csv(path)
    )
    started = time.monotonic()
    services.submissions_create(
        benchmark=benchmark, submitter=None, entries=entries, source=Submission.Source.IMPORT
    )
    limit = settings.RECOMPUTE_TIME_LIMIT
    snapshot = None
    while time.monotonic() - started < 2 * limit:
        snapshot = ResultSnapshot.objects.filter(benchmark=benchmark).order_by("-version").first()
        if snapshot is not None and (
            snapshot.status == ResultSnapshot.Status.FAILED
            or "uncertainty_s" in (snapshot.timings or {})
        ):
            break
        time.sleep(1)
    assert snapshot is not None and snapshot.status == ResultSnapshot.Status.READY, (
        snapshot and snapshot.error
    )
    assert "uncertainty_s" in snapshot.timings, snapshot.timings
    print("timings", snapshot.timings, "wall", time.monotonic() - started)
    board = snapshot_board(snapshot=snapshot)
    assert board is not None and len(board.algorithms) == M
    assert all(isinstance(e.bootstrap, BootstrapSummary) for e in board.estimators)
    scope = snapshot_section(snapshot_id=snapshot.pk, name="pairwise")
    assert isinstance(scope, PairwiseScope) and scope.n_algorithms == M
