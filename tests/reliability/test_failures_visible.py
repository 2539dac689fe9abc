"""With a real Celery worker over real Redis: a recompute that fails is visible in the
API and on the page within one sweep, and no task loops.

Counted in sweeps, not seconds (a loaded machine stretches every interval):
a failure is visible with the sweep paused (so within one sweep whatever its interval),
no sweep enqueues a deterministic failure again, and none enqueues a failed load before
its back-off has passed; the deadlines left are hang guards.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from datetime import datetime

import pytest
from django.db import connection, transaction
from django.utils import timezone

from estimation import requests as recompute_requests
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute import inputs
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


# A hang guard: far longer than any step here takes, even on a loaded machine.
HANG_GUARD = 120.0


@dataclass(frozen=True)
class Sweep:
    """One sweep: each benchmark's back-off (``retry_at``) read just before it, when it
    had ended, and what it enqueued."""

    retry_at: dict[int, datetime]
    ended: datetime
    enqueued: list[int]

    def early(self, benchmark_id: int) -> bool:
        """It enqueued the benchmark although its back-off ran past the sweep's end (the
        sweep's own clock was earlier still: a sound test of the back-off, at any load)."""
        retry_at = self.retry_at.get(benchmark_id)
        return benchmark_id in self.enqueued and retry_at is not None and self.ended < retry_at


class Beat:
    """The beat sweep, every ``interval`` seconds (pausable), recording each sweep; and
    every enqueue made anywhere in this process (runs, requests, sweeps)."""

    def __init__(self, monkeypatch, interval: float) -> None:
        self.interval = interval
        self.sweeps: list[Sweep] = []
        self.enqueued: list[tuple[float, int]] = []
        self._sweeping = threading.Lock()
        real = recompute_requests.recompute_dispatch

        def counted(benchmark_id: int, **kwargs) -> bool:
            self.enqueued.append((time.monotonic(), benchmark_id))
            return real(benchmark_id, **kwargs)

        monkeypatch.setattr(recompute_requests, "recompute_dispatch", counted)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                with self._sweeping:
                    retry_at = dict(
                        RecomputeState.objects.filter(retry_at__isnull=False).values_list(
                            "pk", "retry_at"
                        )
                    )
                    enqueued = recompute_stale_enqueue()
                    self.sweeps.append(Sweep(retry_at, timezone.now(), enqueued))
        finally:
            connection.close()

    @property
    def swept(self) -> int:
        return len(self.sweeps)

    @contextlib.contextmanager
    def paused(self):
        """No sweep runs (nor is one half done) inside."""
        with self._sweeping:
            yield

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
    sweep = 0.5  # beat's interval here
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
        # again, as the newest version, and the API and the page say so; with the sweep
        # paused, so no sweep is needed for it.
        with beat.paused():
            submission_reject(submission=c, user=maintainer)
            failed = settled(benchmark, 4, timeout=HANG_GUARD)
            failure = client.get("/api/benchmarks/fails/snapshots/latest/").json()["failure"]
        assert (failed.version, failed.failed_during) == (4, "analysis")
        assert failure["served_version"] == 3
        assert [s["algorithm"] for s in failure["still_includes"]] == ["c"]
        page = client.get("/b/fails/").content.decode()
        assert "could not be computed" in page and "c (rejected)" in page

        # Nothing loops on a deterministic failure: no enqueue at all over four sweeps.
        quiet, swept = time.monotonic(), beat.swept
        wait_until(lambda: beat.swept >= swept + 4, timeout=HANG_GUARD)
        assert beat.enqueues_since(quiet) == 0

        # (b) Loading raises: recorded, visible, and retried with back-off only.
        def unreadable(**kwargs):
            raise RuntimeError("injected: the scores cannot be read")

        readable = inputs.result_table_build
        monkeypatch.setattr(inputs, "result_table_build", unreadable)
        with beat.paused():  # visible with no sweep's help, as in (a)
            submission_accept(submission=make_submission(benchmark, "d", VALUES["d"]))
            load_failed = settled(benchmark, 5, timeout=HANG_GUARD)
            status = client.get("/api/benchmarks/fails/snapshots/status/").json()
        assert load_failed.failed_during == "load"
        assert status["failure"]["failed_during"] == "load" and status["version"] == 3
        assert "retried automatically" in client.get("/b/fails/").content.decode()

        # Retried by the sweep, with back-off only (1, 2, 2, 2 ... s after each failed
        # retry): no sweep enqueues it before its retry_at, however long the sweeps
        # take; each retry reuses the failed version. Over 16 sweeps.
        swept = beat.swept
        wait_until(
            lambda: beat.swept >= swept + 16
            and RecomputeState.objects.get(pk=benchmark.pk).failures >= 2,
            timeout=HANG_GUARD,
        )
        window = beat.sweeps[swept:]
        assert any(benchmark.pk in s.enqueued for s in window), "never retried"
        early = [s for s in window if s.early(benchmark.pk)]
        assert not early, early
        assert newest(benchmark).pk == load_failed.pk

        # Readable again: the next retry computes it and the failure notice goes.
        monkeypatch.setattr(inputs, "result_table_build", readable)
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
