"""The lease heartbeat: a live run keeps its benchmark through a long
stage, and a killed worker's benchmark is taken over soon, by real worker processes."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection

from estimation.core.analysis import uncertainty_deferred
from estimation.core.contract import NotApplicable
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute import refresh, runs
from estimation.recompute.coalesce import completion_queued
from estimation.recompute.leases import lease_acquire
from estimation.selectors import snapshot_board, snapshot_latest
from estimation.services import recompute_run
from leaderboard.models import Submission
from leaderboard.services import submission_accept, submissions_create
from tests.factories import make_benchmark, make_submission
from tests.processes import SHUTDOWN_SECONDS, celery_worker_process, wait_until
from tests.test_faults import big_entries

pytestmark = pytest.mark.integration


def two_algorithms(slug: str):
    benchmark = make_benchmark(slug=slug)
    for name, values in {"a": {"d1": 0.9, "d2": 0.1}, "b": {"d1": 0.5, "d2": 0.5}}.items():
        submission_accept(submission=make_submission(benchmark, name, values))
    return benchmark


def slow_stage(monkeypatch, benchmark, seconds: float, intruders: list[bool]):
    """An analysis with one long stage (no progress reported) during which another
    worker tries to take the benchmark."""
    real = refresh.analyze

    def analyze(table, settings, progress, **options):
        time.sleep(seconds)
        intruders.append(lease_acquire(benchmark_id=benchmark.pk, owner="intruder"))
        return real(table, settings, progress=progress, **options)

    monkeypatch.setattr(refresh, "analyze", analyze)


def test_the_heartbeat_keeps_a_live_run_through_a_stage_longer_than_the_lease(
    transactional_db, settings, monkeypatch
):
    """Counted in renewals, not seconds: the stage (no progress reported) lasts until the
    heartbeat has pushed the lease three lease lengths past where the run took it; an
    intruder asking at that moment (the clock given to it) finds it held. (Asked at the
    machine's own time, a heartbeat starved for a lease length on a loaded machine would
    lose the lease, as it should.)"""
    settings.RECOMPUTE_LEASE_SECONDS = 1
    benchmark = two_algorithms("heartbeat")
    intruders: list[bool] = []
    real = refresh.analyze

    def analyze(table, settings, progress, **options):
        taken = RecomputeState.objects.get(pk=benchmark.pk).lease_expires_at
        later = taken + timedelta(seconds=3)

        def renewed_past_later():
            expires = RecomputeState.objects.get(pk=benchmark.pk).lease_expires_at
            return expires is not None and expires > later

        wait_until(renewed_past_later, timeout=60, interval=0.05)  # a hang guard
        intruders.append(lease_acquire(benchmark_id=benchmark.pk, owner="intruder", now=later))
        return real(table, settings, progress=progress, **options)

    monkeypatch.setattr(refresh, "analyze", analyze)
    (snapshot,) = recompute_run(benchmark_id=benchmark.pk, owner="live-worker")
    assert intruders == [False]  # three lease lengths later, still ours
    assert snapshot.status == "ready"
    assert RecomputeState.objects.get(pk=benchmark.pk).lease_owner == ""


def test_without_the_heartbeat_the_run_loses_and_saves_nothing(
    transactional_db, settings, monkeypatch
):
    settings.RECOMPUTE_LEASE_SECONDS = 1
    benchmark = two_algorithms("no-heartbeat")
    monkeypatch.setattr(runs, "lease_heartbeat", lambda **kwargs: None)
    intruders: list[bool] = []
    slow_stage(monkeypatch, benchmark, 2.0, intruders)
    assert recompute_run(benchmark_id=benchmark.pk, owner="slow-worker") == []
    assert intruders == [True]  # the expired lease was taken over
    snapshot = ResultSnapshot.objects.get(benchmark=benchmark)
    assert snapshot.status == "computing"  # left for the intruder to abandon and redo
    assert not snapshot.sections.exists()
    assert RecomputeState.objects.get(pk=benchmark.pk).lease_owner == "intruder"


def test_a_worker_killed_mid_completion_is_replaced_by_the_first_sweep(
    transactional_db, settings, redis_url
):
    """The version is served, then its bootstrap runs as a completion task of its own,
    which holds no lease (it must not hold back the next ready version): a
    worker killed there leaves the revision computed, and the first sweep queues the
    completion, which completes the same version in place."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app
    from config.queues import all_queues
    from estimation.tasks import recompute_stale

    lease = 3
    settings.RECOMPUTE_LEASE_SECONDS = lease
    benchmark = make_benchmark(slug="killed-9", bootstrap_size=2000)  # seconds: killable
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=big_entries(m=30, n=200),
        source=Submission.Source.IMPORT,
    )  # committed: the recompute task waits in Redis
    # The worker marks a completion it queues (coalescing on, the mark kept for longer
    # than a loaded machine may take to start it) and drops the mark as it starts it.
    marks = {"PODIUM_RECOMPUTE_COALESCE_SECONDS": "300", "PODIUM_RECOMPUTE_REQUEUE_SECONDS": "600"}
    with celery_worker_process(PODIUM_RECOMPUTE_LEASE_SECONDS=str(lease), **marks) as worker:
        # The snapshot is served and its revision recorded before its bootstrap (seconds
        # here), and the completion task has started (its queued mark dropped; still
        # queued, the worker below would take it from the queue with no sweep): the kill
        # lands in the completion task, mid-bootstrap.
        def served_and_recorded():
            if RecomputeState.objects.get(pk=benchmark.pk).is_stale:
                return None
            if completion_queued(benchmark.pk):
                return None
            return ResultSnapshot.objects.filter(benchmark=benchmark, status="ready").first()

        orphan = wait_until(served_and_recorded, timeout=90, interval=0.02)
        worker.kill()  # SIGKILL mid-bootstrap
        assert uncertainty_deferred(snapshot_board(snapshot=orphan))
        worker.wait(timeout=30)
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert not state.is_stale and state.lease_owner == ""  # served; no run to wait for

    # The beat sweep (every second here) and a second worker take over, counted in sweeps
    # (a loaded machine stretches the seconds).
    stop = threading.Event()
    sweeps: list[bool] = []

    def beat() -> None:
        try:
            while not stop.wait(1.0):
                sweeps.append(benchmark.pk in recompute_stale())
        finally:
            connection.close()

    sweeper = threading.Thread(target=beat, daemon=True)
    sweeper.start()
    try:
        with start_worker(
            app,
            pool="solo",
            perform_ping_check=False,
            shutdown_timeout=SHUTDOWN_SECONDS,
            queues=all_queues(),
        ):
            ready = wait_until(
                lambda: not uncertainty_deferred(snapshot_board(snapshot=orphan))
                and snapshot_latest(benchmark=benchmark),
                timeout=120,  # a hang guard
                interval=0.2,
            )
    finally:
        stop.set()
        sweeper.join(timeout=30)
    assert sweeps and sweeps[0], sweeps  # the first sweep queued the completion
    # The same version, completed in place (the orphaned-computing case is
    # tests/reliability/test_stranded_recomputes.py's).
    assert ready.pk == orphan.pk
    assert ResultSnapshot.objects.filter(benchmark=benchmark).count() == 1
    board = snapshot_board(snapshot=ready)
    assert len(board.algorithms) == 30 and not isinstance(board.evaluation, NotApplicable)
