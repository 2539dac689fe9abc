"""With a real Celery worker over real Redis: a recompute that fails is visible in the
API and on the page within one sweep, and no task loops (issue 10, item 5)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from estimation import requests as recompute_requests
from estimation import services
from estimation.models import RecomputeState, ResultSnapshot
from estimation.services import recompute_stale_enqueue
from leaderboard.services import submission_accept, submission_reject
from tests.factories import make_benchmark, make_submission, make_user
from tests.processes import wait_until

pytestmark = pytest.mark.integration

VALUES = {
    "a": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
    "b": {"d1": 0.5, "d2": 0.9, "d3": 0.2},
    "c": {"d1": 0.1, "d2": 0.1, "d3": 0.3},
    "d": {"d1": 0.7, "d2": 0.3, "d3": 0.9},
}


class Beat:
    """The beat sweep, every ``interval`` seconds, counting what it enqueues; and every
    enqueue made anywhere in this process (runs, requests, sweeps)."""

    def __init__(self, monkeypatch, interval: float) -> None:
        self.interval = interval
        self.swept = 0
        self.enqueued: list[tuple[float, int]] = []
        real = recompute_requests.recompute_dispatch

        def counted(benchmark_id: int) -> None:
            self.enqueued.append((time.monotonic(), benchmark_id))
            real(benchmark_id)

        monkeypatch.setattr(recompute_requests, "recompute_dispatch", counted)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                recompute_stale_enqueue()
                self.swept += 1
        finally:
            connection.close()

    def enqueues_since(self, start: float) -> int:
        return sum(1 for at, _ in self.enqueued if at >= start)

    def __enter__(self) -> Beat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


def newest(benchmark) -> ResultSnapshot | None:
    return ResultSnapshot.objects.filter(benchmark=benchmark).order_by("-version").first()


def settled(benchmark, version: int, timeout: float):
    def done():
        snapshot = newest(benchmark)
        state = RecomputeState.objects.get(pk=benchmark.pk)
        return (
            snapshot is not None
            and snapshot.version >= version
            and snapshot.status != "computing"
            and state.lease_owner == ""
            and snapshot
        )

    return wait_until(done, timeout=timeout, interval=0.1)


def test_reject_until_unanalysable_then_unreadable_scores(
    celery_worker, client, settings, monkeypatch
):
    sweep = 0.5  # beat's interval here; "within one sweep" is checked against production's
    one_sweep = 10.0  # RECOMPUTE_SWEEP_SECONDS' default
    settings.RECOMPUTE_RETRY_BASE_SECONDS = 1
    settings.RECOMPUTE_RETRY_MAX_SECONDS = 2
    maintainer = make_user("maintainer")
    benchmark = make_benchmark(slug="fails")
    benchmark.maintainers.add(maintainer)
    with Beat(monkeypatch, interval=sweep) as beat:
        submission_accept(submission=make_submission(benchmark, "a", VALUES["a"]))
        assert settled(benchmark, 1, timeout=30).status == "failed"  # a alone
        with transaction.atomic():
            b = submission_accept(submission=make_submission(benchmark, "b", VALUES["b"]))
            c = submission_accept(submission=make_submission(benchmark, "c", VALUES["c"]))
        assert settled(benchmark, 2, timeout=30).status == "ready"
        submission_reject(submission=b, user=maintainer)
        assert settled(benchmark, 3, timeout=30).status == "ready"

        # (a) The remaining input (a alone) failed before, as version 1: it is recorded
        # again, as the newest version, and the API and the page say so.
        rejected = time.monotonic()
        submission_reject(submission=c, user=maintainer)
        failed = settled(benchmark, 4, timeout=one_sweep)
        assert (failed.version, failed.failed_during) == (4, "analysis")
        failure = client.get("/api/benchmarks/fails/snapshots/latest/").json()["failure"]
        assert time.monotonic() - rejected < one_sweep
        assert failure["served_version"] == 3
        assert [s["algorithm"] for s in failure["still_includes"]] == ["c"]
        page = client.get("/b/fails/").content.decode()
        assert "could not be computed" in page and "c (rejected)" in page

        # Nothing loops on a deterministic failure: no enqueue at all over the window.
        quiet = time.monotonic()
        time.sleep(3)
        assert beat.enqueues_since(quiet) == 0 and beat.swept >= 4

        # (b) Loading raises: recorded, visible, and retried with back-off only.
        def unreadable(**kwargs):
            raise RuntimeError("injected: the scores cannot be read")

        readable = services.result_table_build
        monkeypatch.setattr(services, "result_table_build", unreadable)
        accepted = time.monotonic()
        submission_accept(submission=make_submission(benchmark, "d", VALUES["d"]))
        load_failed = settled(benchmark, 5, timeout=one_sweep)
        assert load_failed.failed_during == "load"
        status = client.get("/api/benchmarks/fails/snapshots/status/").json()
        assert status["failure"]["failed_during"] == "load" and status["version"] == 3
        assert time.monotonic() - accepted < one_sweep
        assert "retried automatically" in client.get("/b/fails/").content.decode()

        window_start = time.monotonic()
        time.sleep(8)
        window = time.monotonic() - window_start
        sweeps_in_window = window / sweep
        retries = beat.enqueues_since(window_start)
        # back-off 1, 2, 2, 2 ... s after each failed retry: about 3 retries in 8 s
        # (re-enqueued by every sweep, it would be 16), each reusing the failed version.
        assert 1 <= retries <= 5, (retries, sweeps_in_window)
        assert RecomputeState.objects.get(pk=benchmark.pk).failures >= 2
        assert newest(benchmark).pk == load_failed.pk

        # Readable again: the next retry computes it and the failure notice goes.
        monkeypatch.setattr(services, "result_table_build", readable)
        ready = wait_until(
            lambda: ResultSnapshot.objects.filter(
                benchmark=benchmark, status="ready", version__gt=5
            ).first(),
            timeout=30,
        )
    assert ready is not None
    assert client.get("/api/benchmarks/fails/snapshots/latest/").json()["failure"] is None
    # The run marks its revision computed after it stores the advisor (after `ready`).
    assert wait_until(lambda: not RecomputeState.objects.get(pk=benchmark.pk).is_stale, timeout=10)
