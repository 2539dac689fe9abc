"""Nothing a dead or stranded task held keeps a benchmark's results stale.

Measured in a soak: after a worker was killed one benchmark got no new results for 407 s
(its lane slot on the default queue outlived the task), after two short PostgreSQL stops
another waited 452 s (the task's retries ran out, leaving a version "computing 15 %" with
nothing running it), and four benchmarks committed at once were served one after the
other's bootstrap and advisor. Here: a killed task's slot lapses and the sweep queues the
benchmark on the default queue; the sweep abandons orphaned "computing" versions and
queues their benchmarks; every waiting benchmark is served before any completion work.
"""

from __future__ import annotations

import json
import time

import pytest
import redis
from django.conf import settings as django_settings
from django.utils import timezone

from config.queues import all_queues, bulk_queue, default_queue
from estimation.activity import ORPHANED, recompute_activity, version_problems
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.recompute.lanes import lane_alive_seconds, lane_slots_held
from estimation.selectors import snapshot_latest
from estimation.services import recompute_stale_enqueue
from estimation.tasks import recompute_stale
from leaderboard.models import Benchmark, Submission
from leaderboard.services import submissions_create
from operations.queues import PRIORITY_SUFFIXES
from tests.factories import make_benchmark, make_submission, make_user
from tests.processes import SHUTDOWN_SECONDS, celery_worker_process, wait_until
from tests.test_faults import big_entries

pytestmark = pytest.mark.integration


def _queued(queue: str, *, take: bool = True) -> list[str]:
    """The names of the tasks waiting in ``queue`` (every priority); ``take``: and the
    queue emptied."""
    client = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    names = []
    for suffix in PRIORITY_SUFFIXES:
        for raw in list(client.lrange(queue + suffix, 0, -1)):  # type: ignore[arg-type]
            names.append(json.loads(raw)["headers"]["task"])
        if take:
            client.delete(queue + suffix)
    return names


def test_a_killed_tasks_lane_slot_lapses_and_the_sweep_queues_it_on_the_default_queue(
    transactional_db, settings, redis_url
):
    settings.RECOMPUTE_LEASE_SECONDS = 2
    settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = 1
    settings.PODIUM_MAX_BOOTSTRAP = 5000
    for queue in all_queues():
        _queued(queue)
    maintainer = make_user("flooded-maintainer")
    benchmark = make_benchmark(slug="killed-lane", bootstrap_size=5000)
    benchmark.maintainers.add(maintainer)
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=big_entries(m=60, n=500),
        source=Submission.Source.IMPORT,
    )  # committed: the task waits on the default queue, holding the account's slot
    assert lane_slots_held(benchmark.pk) == 1
    with celery_worker_process(PODIUM_RECOMPUTE_LEASE_SECONDS="2") as worker:
        orphan = wait_until(
            lambda: ResultSnapshot.objects.filter(
                benchmark=benchmark, status=ResultSnapshot.Status.COMPUTING
            ).first(),
            timeout=90,
            interval=0.005,
        )
        worker.kill()  # SIGKILL: nothing in the task gives its slot back
        worker.wait(timeout=30)
    # The slot still counts right after the kill, and no longer once its heartbeat has been
    # silent for lane_alive_seconds() (the clock given, not waited for).
    killed_at = time.time()
    assert lane_slots_held(benchmark.pk, now=killed_at) == 1
    assert lane_slots_held(benchmark.pk, now=killed_at + lane_alive_seconds() + 1) == 0
    # Real time: the lease (2 s) and the slot (4 s) lapse; a hang guard, not a bound.
    wait_until(lambda: lane_slots_held(benchmark.pk) == 0, timeout=60, interval=0.2)
    wait_until(lambda: not recompute_activity(benchmark_id=benchmark.pk).task_alive, timeout=60)
    assert _orphaned() == {(benchmark.slug, orphan.version)}

    assert recompute_stale_enqueue() == [benchmark.pk]
    orphan.refresh_from_db()  # the sweep said so at once, before any worker ran
    assert orphan.status == ResultSnapshot.Status.FAILED
    assert orphan.failed_during == ResultSnapshot.FailedDuring.ABANDONED
    assert _orphaned() == set()
    assert _abandoned() == {(benchmark.slug, orphan.version)}
    # queued on the default queue again, not behind the bulk queue's work
    assert _queued(bulk_queue(), take=False) == []
    assert _queued(default_queue(), take=False) == ["estimation.recompute_benchmark"]
    with celery_worker_process(queues=[default_queue()], PODIUM_RECOMPUTE_LEASE_SECONDS="2"):
        ready = wait_until(lambda: snapshot_latest(benchmark=benchmark), timeout=180, interval=0.2)
    assert ready.version > orphan.version
    assert not RecomputeState.objects.get(pk=benchmark.pk).is_stale


def _orphaned() -> set[tuple[str, int]]:
    """(slug, version) of each version marked computing that no live run holds."""
    return {(p.slug, p.version) for p in version_problems() if p.kind == ORPHANED}


def _abandoned() -> set[tuple[str, int]]:
    abandoned = ResultSnapshot.FailedDuring.ABANDONED
    return {(p.slug, p.version) for p in version_problems() if p.kind == abandoned}


def _open_benchmark(slug: str, *, rows: int = 4) -> Benchmark:
    benchmark = make_benchmark(
        slug=slug, submission_policy=Benchmark.SubmissionPolicy.OPEN, bootstrap_size=100
    )
    for j in range(3):
        make_submission(
            benchmark, f"a{j}", {f"d{i}": 0.3 + 0.1 * ((i + j) % 4) for i in range(rows)}
        )
    return benchmark


def test_the_sweep_abandons_orphaned_computing_versions_and_queues_their_benchmarks(
    transactional_db, settings
):
    from estimation.services import recompute_run

    settings.RECOMPUTE_IN_THREAD = False
    stranded, computed, live = (_open_benchmark(slug) for slug in ("stranded", "computed", "live"))
    for benchmark in (stranded, computed, live):
        recompute_run(benchmark_id=benchmark.pk, owner="seed")
    now = timezone.now()
    # stranded: its task ran out of retries in a database outage mid-run (still due);
    # computed: a version left computing though the revision counts as computed;
    # live: a run holds its lease, so its version is being computed
    RecomputeState.objects.filter(pk=stranded.pk).update(
        requested_revision=99, lease_owner="gave-up", lease_expires_at=now
    )
    RecomputeState.objects.filter(pk=live.pk).update(
        lease_owner="live", lease_expires_at=now + timezone.timedelta(seconds=60)
    )
    orphans = {}
    for benchmark in (stranded, computed, live):
        newest = ResultSnapshot.objects.filter(benchmark=benchmark).order_by("-version").first()
        assert newest is not None
        orphans[benchmark.slug] = ResultSnapshot.objects.create(
            benchmark=benchmark,
            metric=newest.metric,
            version=newest.version + 1,
            fingerprint="x",
            engine_version=newest.engine_version,
            stage="bootstrap",
            progress=0.15,
        )
    assert recompute_activity(benchmark_id=live.pk).task_alive
    assert not recompute_activity(benchmark_id=stranded.pk).task_alive
    assert _orphaned() == {(slug, orphans[slug].version) for slug in ("stranded", "computed")}

    for queue in all_queues():  # the tasks the submissions queued (no worker runs here)
        _queued(queue)
    swept = recompute_stale()
    assert sorted(swept) == sorted([stranded.pk, computed.pk])
    for slug, status in (("stranded", "failed"), ("computed", "failed"), ("live", "computing")):
        orphans[slug].refresh_from_db()
        assert orphans[slug].status == status, slug
    assert _orphaned() == set()
    assert {slug for slug, _ in _abandoned()} == {"stranded", "computed"}
    assert RecomputeState.objects.get(pk=computed.pk).is_stale  # asked for again
    queued = [name for queue in all_queues() for name in _queued(queue)]
    assert queued.count("estimation.recompute_benchmark") == 2


def test_every_waiting_benchmark_is_served_before_any_completion_work(
    transactional_db, redis_url, settings
):
    """Four benchmarks committed at once, one worker process: all four ready versions are
    stored before the first bootstrap or advisor (served one benchmark at a
    time, the last after 42-55 s). The order of events, read from the order in which the
    sections were inserted (the advisor is the completion's last insert)."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    settings.RECOMPUTE_IN_THREAD = False
    for queue in all_queues():
        _queued(queue)
    benchmarks = [_open_benchmark(f"burst-{i}", rows=6) for i in range(4)]  # queued, unrun
    seen: dict[str, list[float]] = {"served": [], "completed": []}

    def all_completed() -> bool:
        # first sight of each event, for the printed figures only (nothing asserts times)
        rows = SnapshotSection.objects.filter(snapshot__benchmark__in=benchmarks)
        now = time.monotonic() - started
        for kind, count in (
            ("served", rows.filter(name="board").count()),
            ("completed", rows.filter(name="advisor").count()),
        ):
            seen[kind] += [now] * (count - len(seen[kind]))
        return len(seen["completed"]) == 4

    started = time.monotonic()
    with start_worker(
        app, pool="solo", perform_ping_check=False, shutdown_timeout=SHUTDOWN_SECONDS
    ):
        wait_until(all_completed, timeout=300, interval=0.2)
    print(
        "four benchmarks at once, one worker: served after "
        + ", ".join(f"{t:.1f}" for t in seen["served"])
        + " s; completed after "
        + ", ".join(f"{t:.1f}" for t in seen["completed"])
        + " s"
    )
    sections = SnapshotSection.objects.filter(snapshot__benchmark__in=benchmarks)
    served = list(sections.exclude(name="advisor").values_list("pk", "snapshot__benchmark_id"))
    completed = list(sections.filter(name="advisor").values_list("pk", "snapshot__benchmark_id"))
    assert {b for _, b in served} == {b.pk for b in benchmarks}
    assert max(pk for pk, _ in served) < min(pk for pk, _ in completed)
    for benchmark in benchmarks:
        snapshot = snapshot_latest(benchmark=benchmark)
        assert snapshot is not None and snapshot.version == 1
