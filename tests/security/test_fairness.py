"""Fairness: while one account floods the workers with recomputes and uploads, a
submission to another account's benchmark goes ahead of all of the flood but the
flooder's share of the default queue, against real worker processes laid out as
docker-compose.yml: two on the default queue, one on the bulk queue.

The claim is an order, asserted without a clock: during a flooded round the bulk worker
stops taking tasks (Celery's remote control, so it holds no half-done transaction), and
the flood is one burst of new scores to every flooder benchmark, each a full recompute.
Fair lanes send one of the burst's recomputes to the default queue and the rest to the
bulk queue, so when the victim is served at least ``FLOOD_BENCHMARKS - share`` flooder
benchmarks are not: whatever the machine's speed or load. With the queues not split,
the victim queues behind the flood on the default queue and most of it is served first.

The latency ratio (flooded / normal rounds, medians) is printed, not asserted: it is a
ratio of wall times, which the machine's other work stretches (docs/operators.md).
There is no control arm (one queue for all): a recompute serves its ready version first
and hands newer input over after one pass, so "the flood starves one queue" is no longer
true to assert.
"""

from __future__ import annotations

import re
import statistics
import time
from contextlib import ExitStack
from pathlib import Path
from socket import gethostname

import pytest
from django.db import transaction

from config.celery import app as celery_app
from config.queues import bulk_queue, default_queue
from estimation.models import RecomputeState
from estimation.recompute.lanes import lane_slots_held
from estimation.selectors import snapshot_latest
from leaderboard.models import Benchmark, Submission, UploadJob
from leaderboard.services import SubmissionInput, submissions_create
from leaderboard.uploads import upload_job_create
from tests.factories import make_benchmark, make_user
from tests.processes import celery_worker_process, wait_until
from tests.test_faults import big_entries

pytestmark = pytest.mark.integration

FLOOD_BENCHMARKS = 6
FLOOD_UPLOADS = 4
M, N = 12, 60  # each recompute a fraction of a second here (0.2-0.8 s on 2 cores)
ROUNDS = 5


def _served(benchmark: Benchmark) -> bool:
    state = RecomputeState.objects.filter(pk=benchmark.pk).first()
    snapshot = snapshot_latest(benchmark=benchmark)
    return (
        state is not None
        and not state.is_stale
        and snapshot is not None
        and snapshot.status == "ready"
    )


def _behind(flooded: Benchmark, victim: Benchmark) -> bool:
    """Whether ``flooded`` was served after the victim: not yet, or by a version its run
    started after the victim's version started (an order, whatever the machine's speed:
    on a loaded machine a short flood may end before the victim's longer run does)."""
    if not _served(flooded):
        return True
    mine = snapshot_latest(benchmark=flooded)
    theirs = snapshot_latest(benchmark=victim)
    return mine is not None and theirs is not None and mine.created_at > theirs.created_at


def _all_served(benchmarks) -> bool:
    return all(_served(benchmark) for benchmark in benchmarks)


def _submit_and_time(benchmark: Benchmark, victim, round_: int) -> float:
    """Seconds from a new algorithm's accepted submission to its snapshot being ready."""
    start = time.monotonic()
    with transaction.atomic():
        submissions_create(
            benchmark=benchmark,
            submitter=victim,
            entries=[
                SubmissionInput(algorithm=f"victim-{round_}", scores=entry.scores)
                for entry in big_entries(m=1, n=N, seed=100 + round_)
            ],
            new_datasets_confirmed=True,
        )
    wait_until(lambda: _served(benchmark), timeout=180, interval=0.02)
    return time.monotonic() - start


def _bulk_pause(node: str, log: Path) -> None:
    """Stop the bulk worker taking tasks. Its reply to ``cancel_consumer`` comes before
    the cancel is carried out (on its next turn), so the pause is known once the worker
    lists no queue it consumes. A solo worker answers between tasks and, with acks late
    and a prefetch of one, holds no task it has not started: from then on nothing of the
    flood runs on bulk. Asked again every few seconds (a cancel of a queue not consumed
    is harmless), so that one message lost or a task still running does not use up the
    whole wait; ``log`` (the worker's output) is shown if it never answers."""
    control = celery_app.control
    deadline = time.monotonic() + 300  # a hang guard
    listed = None
    while time.monotonic() < deadline:
        control.cancel_consumer(bulk_queue(), destination=[node], reply=True, timeout=5)
        listed = control.inspect(destination=[node], timeout=5).active_queues()
        if listed == {node: []}:
            return
        time.sleep(0.2)
    said = log.read_text(errors="replace")[-3000:]
    pytest.fail(f"the bulk worker {node} still consumes (or does not answer): {listed}\n{said}")


def _bulk_resume(node: str) -> None:
    """The bulk worker takes tasks again. Not checked: it runs in a ``finally``, where a
    failure would hide the round's own."""
    celery_app.control.add_consumer(bulk_queue(), destination=[node], reply=True, timeout=60)


def _seconds(latencies: list[float]) -> str:
    return "[" + ", ".join(f"{t:.2f}" for t in latencies) + "] s"


def _csv(seed: int) -> bytes:
    rows = ["dataset,algorithm,score"]
    for entry in big_entries(m=3, n=N, seed=seed):
        rows += [
            f"{score.dataset},up-{seed}-{entry.algorithm},{score.value}" for score in entry.scores
        ]
    return ("\n".join(rows) + "\n").encode()


def test_a_flooding_account_does_not_starve_another_benchmark(
    transactional_db, settings, redis_url, tmp_path
):
    settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = 1
    settings.PODIUM_RECOMPUTE_COALESCE_SECONDS = 300
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 0
    settings.PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT = FLOOD_UPLOADS
    settings.PODIUM_MAX_BENCHMARKS_PER_ACCOUNT = 0

    flooder, victim = make_user("flooder"), make_user("victim")
    flooded = []
    for i in range(FLOOD_BENCHMARKS):
        benchmark = make_benchmark(slug=f"flood-{i}", submission_policy="open")
        benchmark.maintainers.add(flooder)
        submissions_create(
            benchmark=benchmark,
            submitter=None,
            entries=big_entries(m=M, n=N, seed=i),
            source=Submission.Source.IMPORT,
        )
        flooded.append(benchmark)
    served = make_benchmark(slug="victim", submission_policy="open")
    served.maintainers.add(victim)
    submissions_create(
        benchmark=served,
        submitter=None,
        entries=big_entries(m=M - 1, n=N, seed=99),
        source=Submission.Source.IMPORT,
    )

    env = {
        "PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT": "1",
        "PODIUM_RECOMPUTE_COALESCE_SECONDS": "300",
        # each analysis on one thread, its BLAS calls too (docs/operators.md: when several workers
        # share few cores; OpenBLAS's threads otherwise spin on the core the other
        # worker's analysis needs, and a normal round would have both cores to itself)
        "PODIUM_ANALYSIS_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    # The deployment (docker-compose.yml): two processes on the default queue, one on the
    # bulk queue.
    prefix = re.sub(r"[^A-Za-z0-9]+", "-", settings.CACHES["default"]["KEY_PREFIX"])
    bulk_node = f"bulk-{prefix}@{gethostname()}"  # this test's own, if others run beside it
    with ExitStack() as workers:
        for _ in range(2):
            workers.enter_context(celery_worker_process([default_queue()], **env))
        bulk_log = tmp_path / "bulk-worker.log"  # what it said, shown if it stops answering
        workers.enter_context(
            celery_worker_process([bulk_queue()], node=bulk_node, log=bulk_log, **env)
        )
        wait_until(lambda: _all_served([*flooded, served]), timeout=240, interval=0.2)

        def submit_and_time(round_: int) -> float:
            # the victim's previous run over (it holds the victim's share until it ends)
            wait_until(lambda: not lane_slots_held(served.pk), timeout=180, interval=0.05)
            return _submit_and_time(served, victim, round_)

        normal: list[float] = []

        # The flood: uploads that each add algorithms (and a recompute), on the bulk queue
        # between rounds, and in each flooded round a burst of new scores to every
        # flooder benchmark.
        for i in range(FLOOD_UPLOADS):
            with transaction.atomic():
                upload_job_create(
                    benchmark=flooded[i % FLOOD_BENCHMARKS],
                    submitter=flooder,
                    content=_csv(1000 + i),
                    format="long",
                    note="",
                    idempotency_key=f"flood-{i}",
                    new_datasets_confirmed=True,
                )
        flooding, still_queued = [], []
        for r in range(ROUNDS):
            _bulk_pause(bulk_node, bulk_log)
            try:
                # A normal round between flooded ones, so that the other work on the
                # machine weighs on both alike: none of the flooder's recomputes left on
                # the default queue.
                wait_until(lambda: not lane_slots_held(flooded[0].pk), timeout=180, interval=0.05)
                normal.append(submit_and_time(2 * ROUNDS + r))
                with transaction.atomic():  # one burst: no flood run ends between its parts
                    for i, benchmark in enumerate(flooded):
                        submissions_create(
                            benchmark=benchmark,
                            submitter=None,
                            entries=[
                                SubmissionInput(algorithm=f"flood-{r}", scores=entry.scores)
                                for entry in big_entries(m=1, n=N, seed=200 + 10 * r + i)
                            ],
                            source=Submission.Source.IMPORT,
                        )
                flooding.append(submit_and_time(ROUNDS + r))
                still_queued.append(sum(_behind(benchmark, served) for benchmark in flooded))
            finally:
                _bulk_resume(bulk_node)

        ratio = statistics.median(flooding) / statistics.median(normal)
        print(
            f"\nfairness (fair queues): normal "
            f"{_seconds(normal)}, during the flood {_seconds(flooding)}; medians' ratio "
            f"{ratio:.2f}x; flooder benchmarks not served when the victim was: {still_queued}"
        )
        wait_until(
            lambda: _all_served(flooded)
            and not UploadJob.objects.filter(
                status__in=[UploadJob.Status.QUEUED, UploadJob.Status.RUNNING]
            ).exists(),
            timeout=300,
            interval=0.2,
        )
    # Fair lanes: the flooder's share (one recompute) on the default queue, the rest of
    # the burst waits on the paused bulk queue, in every round.
    share = settings.PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT
    assert min(still_queued) >= FLOOD_BENCHMARKS - share
