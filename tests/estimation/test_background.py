"""The embedded mode's background recompute thread (estimation/recompute/background.py).

Real PostgreSQL, real analysis; the only instrument is a gate that holds the run until
the test has looked, so that "the request returned before the computation finished" and
"one thread per benchmark" are observed, not inferred from timing.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.utils import timezone

from estimation import services as estimation_services
from estimation import tasks as estimation_tasks
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute.background import recompute_threads_join
from estimation.requests import recompute_dispatch
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _recompute_threads(benchmark_id: int) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"podium-recompute-{benchmark_id}"]


@pytest.fixture
def gated_runs(monkeypatch):
    """recompute_run, held at its start until ``gate`` is set; records each call's thread."""
    gate = threading.Event()
    calls: list[str] = []
    real = estimation_tasks.recompute_run

    def held(*, benchmark_id: int, owner: str, **options):
        calls.append(threading.current_thread().name)
        assert gate.wait(30), "the test never opened the gate"
        return real(benchmark_id=benchmark_id, owner=owner, **options)

    monkeypatch.setattr(estimation_tasks, "recompute_run", held)
    return gate, calls


def test_accept_returns_at_once_and_a_thread_computes_the_snapshot(settings, gated_runs):
    settings.RECOMPUTE_IN_THREAD = True
    gate, calls = gated_runs
    maintainer = make_user("maintainer")
    benchmark = make_benchmark(bootstrap_size=100)
    benchmark.maintainers.add(maintainer)
    first = make_submission(benchmark, "alg-a", {"d1": 0.5, "d2": 0.7, "d3": 0.6})
    second = make_submission(benchmark, "alg-b", {"d1": 0.4, "d2": 0.8, "d3": 0.5})

    submission_accept(submission=first, user=maintainer)
    submission_accept(submission=second, user=maintainer)

    # The run is held at its start until the gate opens, yet both accepts have returned:
    # nothing waited for it (an accept that did would be stuck until the gate's own hang
    # guard failed the run). Shown by what happened, not by how long the accepts took.
    assert not gate.is_set()
    assert not ResultSnapshot.objects.filter(benchmark=benchmark).exists()
    # Two requests, one thread: the second marked the running thread to go again.
    assert len(_recompute_threads(benchmark.pk)) == 1
    deadline = time.monotonic() + 30  # the thread reaches the run a moment after it starts
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == [f"podium-recompute-{benchmark.pk}"]

    gate.set()
    recompute_threads_join(timeout=60)

    snapshot = ResultSnapshot.objects.get(benchmark=benchmark)
    assert snapshot.status == ResultSnapshot.Status.READY
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert state.computed_revision == state.requested_revision
    assert state.lease_owner == ""
    assert not _recompute_threads(benchmark.pk)


def test_a_thread_respects_a_lease_held_elsewhere(settings):
    """Same lease rules as workers: while another owner holds a live lease, the thread
    computes nothing; the stale sweep runs it once the lease is gone."""
    settings.RECOMPUTE_IN_THREAD = True
    benchmark = make_benchmark(bootstrap_size=0)
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    submission = make_submission(benchmark, "alg-a", {"d1": 0.5, "d2": 0.7})
    make_submission(benchmark, "alg-b", {"d1": 0.6, "d2": 0.3}, submitter=maintainer)
    recompute_threads_join(timeout=60)  # the maintainer's own submission's run
    ResultSnapshot.objects.filter(benchmark=benchmark).delete()
    RecomputeState.objects.filter(pk=benchmark.pk).update(
        lease_owner="worker-elsewhere",
        lease_expires_at=timezone.now() + timezone.timedelta(minutes=5),
    )

    submission_accept(submission=submission, user=maintainer)
    recompute_threads_join(timeout=60)
    assert not ResultSnapshot.objects.filter(benchmark=benchmark).exists()
    assert RecomputeState.objects.get(pk=benchmark.pk).is_stale

    RecomputeState.objects.filter(pk=benchmark.pk).update(lease_owner="", lease_expires_at=None)
    assert estimation_services.recompute_stale_enqueue() == [benchmark.pk]
    recompute_threads_join(timeout=60)
    assert ResultSnapshot.objects.get(benchmark=benchmark).status == ResultSnapshot.Status.READY


def test_dispatch_goes_to_celery_when_the_thread_mode_is_off(settings, monkeypatch):
    settings.RECOMPUTE_IN_THREAD = False
    sent: list[int] = []
    monkeypatch.setattr(
        "estimation.tasks.recompute_benchmark.apply_async",
        lambda args, kwargs=None, **options: sent.append(args[0]),
    )
    recompute_dispatch(12345)
    assert sent == [12345]
    assert not _recompute_threads(12345)
