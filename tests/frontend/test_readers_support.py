"""Builders shared by the reader-page tests (no tests here): engine-computed snapshots."""

from __future__ import annotations

import functools

import numpy as np
from django.contrib.auth import get_user_model
from django.utils import timezone

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import SnapshotPayload
from estimation.core.table import ResultTable
from estimation.models import ResultSnapshot
from estimation.services import snapshot_ready_store, snapshot_refresh
from leaderboard.models import Benchmark, Submission
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    benchmark_create,
    submission_accept,
    submission_create,
)
from tests.engine_memo import engine_results_remembered
from tests.factories import hold_recompute_lease

SCORES = {
    "alpha": {"d1": 0.9, "d2": 0.8, "d3": 0.1, "d4": 0.7},
    "beta": {"d1": 0.5, "d2": 0.9, "d3": 0.2, "d4": 0.6},
    "gamma": {"d1": 0.1, "d2": 0.1, "d3": 0.3, "d4": 0.2},
}


def submit(benchmark: Benchmark, algorithm: str, values: dict, metric: str | None = None):
    """An accepted submission of ``{dataset: value}``; accepting it asks for a recompute,
    which the test transaction never commits (the tests call ``snapshot_refresh``)."""
    # One author per algorithm: only an algorithm's owner may submit under its name again.
    author = Submission.objects.filter(
        benchmark=benchmark, algorithm__name=algorithm, submitter__isnull=False
    ).first()
    user = (
        author.submitter
        if author is not None
        else get_user_model().objects.create_user(
            username=f"user-{Submission.objects.count()}", password="pw-for-tests-only"
        )
    )
    entry = SubmissionInput(
        algorithm=algorithm,
        scores=[ScoreInput(dataset=d, value=v, metric=metric) for d, v in values.items()],
    )
    submission = submission_create(
        benchmark=benchmark, submitter=user, entry=entry, source=Submission.Source.API
    )
    return submission_accept(submission=submission)


def computed_benchmark(
    slug: str = "toy", scores: dict | None = None, metrics=(("score", "higher"),), **fields
) -> Benchmark:
    """A benchmark whose version 1 the engine computed from ``scores``."""
    fields.setdefault("bootstrap_size", 200)
    benchmark = benchmark_create(slug=slug, title=f"Benchmark {slug}", metrics=metrics, **fields)
    for algorithm, values in (scores or SCORES).items():
        submit(benchmark, algorithm, values)
    refresh(benchmark)
    return benchmark


def refresh(benchmark: Benchmark) -> list[ResultSnapshot]:
    """The benchmark's snapshots recomputed; the pages are under test, not the engine, so
    an input this process has analysed before reuses its result (tests/engine_memo.py)."""
    with engine_results_remembered():
        snapshots = snapshot_refresh(benchmark_id=benchmark.pk)
    for snapshot in snapshots:
        assert snapshot.status == ResultSnapshot.Status.READY, snapshot.error
    return snapshots


@functools.cache
def large_payload(m: int, n: int = 30, folds: int = 5) -> SnapshotPayload:
    """An engine payload for ``m`` algorithms on ``n`` datasets with folds (built once)."""
    rng = np.random.default_rng(7)
    skill = rng.normal(size=m)
    fold_values = skill[None, None, :] + rng.normal(size=(n, folds, m))
    table = ResultTable(
        datasets=tuple(f"d{i:02d}" for i in range(n)),
        algorithms=tuple(f"algo-{j:03d}" for j in range(m)),
        values=fold_values.mean(axis=1),
        fold_values=fold_values,
    )
    return analyze(table, AnalysisSettings(bootstrap=100, evaluation_repeats=1)).payload


def store_snapshot(
    benchmark: Benchmark, payload: SnapshotPayload, version: int = 1
) -> ResultSnapshot:
    snapshot = ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=benchmark.metrics.get(is_primary=True),
        version=version,
        fingerprint=f"{version:064d}",
        engine_version=payload.engine_version,
        finished_at=timezone.now(),
    )
    return snapshot_ready_store(snapshot=snapshot, payload=payload)


def computing_snapshot(
    benchmark: Benchmark, version: int, stage="bootstrap", progress=0.4, *, run_alive=True
):
    """A version marked computing, whose run is alive (holds the lease) or died."""
    hold_recompute_lease(benchmark.pk, alive=run_alive)
    return ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=benchmark.metrics.get(is_primary=True),
        version=version,
        fingerprint="f" * 64,
        engine_version="test",
        stage=stage,
        progress=progress,
    )
