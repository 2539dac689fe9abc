"""Suite ``latency``: from an accepted submission to a ready snapshot, real Celery worker.

Three ends are timed: **ready**, the first servable snapshot (served before its
bootstrap and held-out evaluation: ``analyze(..., uncertainty=False)``); **intervals
stored**, when the same snapshot's board has its bootstrap intervals and evaluation
stored (before the advisor: the board issue 25 measured when the worker ran one analysis
with the bootstrap before serving); and **complete**, when its advisor is stored too (the
next submission waits for it, so runs never overlap).

Each end is compared with the analysis of the same run that it waits for: ready with
``analyse``, intervals stored with the **full analysis**, ``analyse + uncertainty`` of the
worker's timings (what ``analyze`` with its defaults computes apart from the advisor).
Both ratios are of the medians.

A benchmark with m=20 algorithms x n=100 datasets x 10 folds (bootstrap 1000, the
default evaluation) is imported and its first snapshot awaited (the warm-up). Then, ~10
times, one algorithm resubmits changed scores (an open benchmark accepts on arrival)
and the bench polls the database until the new snapshot is ready. The worker is
``celery -A config worker`` (prefork, concurrency 1) on a queue of its own.

Breakdown, on one clock (both processes on this machine; the worker's timestamps are
``created_at``/``finished_at`` of the snapshot and its ``timings``):

* submit: ``submissions_create`` (validation, rows, commit, enqueue after commit);
* queue: commit -> task start (broker, worker pick-up, lease, RecomputeState checks);
* load: ``timings.load_s`` (scores -> ResultTable, fingerprint, snapshot row);
* analyse: ``timings.analyse_s`` (``analyze`` without the bootstrap and evaluation, its
  per-stage progress writes, JSON check);
* save + seen: ready ``finished_at`` -> ready observed by the bench (payload write, commit,
  polling every 5 ms);
* uncertainty, advisor: ``timings.uncertainty_s`` and ``timings.advisor_s``, the two
  completions after the snapshot is served (computing time only: the board's write
  after the uncertainty is in "intervals stored", not in "uncertainty").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench.common import Options, fmt_seconds, machine_line, markdown_table, synthetic_scores

SIZE = (20, 100, 10)
QUICK_SIZE = (6, 12, 3)
POLL_SECONDS = 0.001  # "save" includes half of it on average
STAGES = ("ranking", "estimators", "tests", "within_dataset", "bootstrap", "evaluation")


def score_entries(fold_values: np.ndarray, algorithms: list[int]):
    from leaderboard.services import ScoreInput, SubmissionInput

    n, folds, _ = fold_values.shape
    return [
        SubmissionInput(
            algorithm=f"algorithm-{j:04d}",
            scores=[
                ScoreInput(dataset=f"dataset-{i:05d}", value=float(fold_values[i, f, j]), fold=f)
                for i in range(n)
                for f in range(folds)
            ],
        )
        for j in algorithms
    ]


def wait_for_snapshot(benchmark, after_version: int, timeout: float = 600.0):
    from django.db import connection

    from estimation.models import ResultSnapshot

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snapshot = (
            ResultSnapshot.objects.filter(benchmark=benchmark, version__gt=after_version)
            .exclude(status=ResultSnapshot.Status.COMPUTING)
            .order_by("-version")
            .first()
        )
        if snapshot is not None:
            seen = time.time()
            if snapshot.status != ResultSnapshot.Status.READY:
                raise RuntimeError(f"snapshot v{snapshot.version} failed: {snapshot.error}")
            return snapshot, seen
        connection.close_if_unusable_or_obsolete()
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"no snapshot after version {after_version} within {timeout} s")


def wait_for_complete(
    snapshot, timeout: float = 600.0, *, key: str = "advisor_s"
) -> tuple[dict, float]:
    """The snapshot's timings once ``key`` is in them, and when: ``advisor_s`` when its
    advisor is stored (the last completion), ``uncertainty_s`` when its board's bootstrap
    intervals and evaluation are (the same transaction writes the board and the key)."""
    from django.db import connection

    from estimation.models import ResultSnapshot

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        timings = (
            ResultSnapshot.objects.filter(pk=snapshot.pk).values_list("timings", flat=True).first()
        )
        if timings and key in timings:
            return timings, time.time()
        connection.close_if_unusable_or_obsolete()
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"snapshot v{snapshot.version} has no {key} within {timeout} s")


def run(
    options: Options,
    scratch,
    *,
    algorithms: int | None = None,
    iterations: int | None = None,
    rope: float | None = None,
) -> str:
    """``algorithms``: m instead of the default 20 (``--algorithms 200``: issue 25's
    second size); ``iterations``: submissions timed instead of at least 10; ``rope``: the
    metric's region of practical equivalence (none by default; with one the ready
    analysis adds the practical section and its hierarchical model over folds)."""
    from leaderboard import services
    from leaderboard.models import Submission

    m, n, folds = QUICK_SIZE if options.quick else SIZE
    m = algorithms or m
    iterations = iterations or (3 if options.quick else max(10, options.repeats))
    benchmark = services.benchmark_create(
        slug="latency",
        title="Latency",
        metrics=[("score", "higher")],
        submission_policy="open",
        bootstrap_size=1000,
    )
    if rope is not None:
        benchmark.metrics.update(rope=rope)
    rng = np.random.default_rng(options.seed + 1)
    _, fold_values = synthetic_scores(m, n, folds=folds, seed=options.seed)
    worker = scratch.start_worker(concurrency=1)
    try:
        services.submissions_create(
            benchmark=benchmark,
            submitter=None,
            entries=score_entries(fold_values, list(range(m))),
            source=Submission.Source.IMPORT,
        )
        snapshot, _ = wait_for_snapshot(benchmark, 0, timeout=300)  # warm-up
        wait_for_complete(snapshot)
        rows = []
        for k in range(iterations):
            j = k % m
            fold_values[:, :, j] += rng.normal(0.0, 0.05, size=(n, folds))
            entries = score_entries(fold_values, [j])
            submitted = time.time()
            services.submissions_create(
                benchmark=benchmark,
                submitter=None,
                entries=entries,
                source=Submission.Source.IMPORT,
            )
            committed = time.time()
            snapshot, seen = wait_for_snapshot(benchmark, snapshot.version)
            load, analyse = snapshot.timings["load_s"], snapshot.timings["analyse_s"]
            started = snapshot.created_at.timestamp() - load
            ready_at = snapshot.finished_at.timestamp()  # the completion moves finished_at
            _, intervals = wait_for_complete(snapshot, key="uncertainty_s")
            timings, complete = wait_for_complete(snapshot)
            rows.append(
                {
                    "ready": seen - submitted,
                    "intervals stored": intervals - submitted,
                    "full analysis": analyse + timings["uncertainty_s"],
                    "complete": complete - submitted,
                    "submit": committed - submitted,
                    "queue": started - committed,
                    "load": load,
                    "analyse": analyse,
                    "save": seen - ready_at,
                    **{s: timings["stages"].get(s, 0.0) for s in STAGES},
                    "uncertainty": timings.get("uncertainty_s", 0.0),
                    "advisor": timings["advisor_s"],
                }
            )
    finally:
        scratch.stop(worker)
        scratch.purge_queue()
    steps = ("ready", "submit", "queue", "load", "analyse", "save")
    after = ("intervals stored", "uncertainty", "full analysis", "complete", "advisor")
    keys = [*steps, *STAGES, *after]
    median = {key: statistics.median(r[key] for r in rows) for key in keys}
    table = [
        [
            key if key in steps or key in after else f"&nbsp;&nbsp;↳ {key}",
            f"**{fmt_seconds(median[key])}**"
            if key in ("ready", "intervals stored", "complete")
            else fmt_seconds(median[key]),
            fmt_seconds(min(r[key] for r in rows)),
            fmt_seconds(max(r[key] for r in rows)),
        ]
        for key in keys
    ]
    return "\n\n".join(
        [
            f"### latency (m={m}, n={n}, {folds} folds, bootstrap 1000"
            + ("" if rope is None else f", rope {rope:g}")
            + f"; {len(rows)} "
            "submissions, each changing one algorithm's scores; real Celery worker, "
            "concurrency 1)",
            markdown_table(["step", "median", "min", "max"], table),
            f"ready / analyse = **{median['ready'] / median['analyse']:.2f}x** (the partial "
            "publication against the analysis it waits for); intervals stored / full "
            f"analysis = **{median['intervals stored'] / median['full analysis']:.2f}x** "
            "(the board with its bootstrap intervals and evaluation against analyse + "
            "uncertainty); advisor / bootstrap = "
            f"**{median['advisor'] / max(median['bootstrap'], 1e-9):.2f}x** (issue 43 item 5: "
            "at most 1x); ratios of the medians.",
            "Steps do not add up exactly: each column is its own median; the ↳ rows are "
            "the analysis stages (the snapshot's timings['stages']; bootstrap and evaluation "
            "run after the snapshot is ready, in 'uncertainty'). 'ready' is submission -> "
            "first servable snapshot; 'intervals stored' is submission -> the same "
            "snapshot's board with its bootstrap intervals and evaluation stored (before the "
            "advisor); 'full analysis' is analyse + uncertainty of the same submission (the "
            "worker's computing time of analyze with its defaults, the advisor apart); "
            "'complete' is submission -> advisor stored too.",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.suite_latency", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--submissions", type=int, help="submissions timed (default 10)")
    parser.add_argument("--algorithms", type=int, help=f"m (default {SIZE[0]})")
    parser.add_argument("--rope", type=float, help="the metric's rope (default none)")
    args = parser.parse_args(argv)
    if args.algorithms is not None and args.algorithms < 2:
        parser.error("--algorithms must be at least 2")
    from bench.scratch import Scratch

    print(f"Machine: {machine_line()}\n", flush=True)
    with Scratch() as scratch:
        options = Options(quick=args.quick, seed=args.seed)
        report = run(
            options,
            scratch,
            algorithms=args.algorithms,
            iterations=args.submissions,
            rope=args.rope,
        )
        print(report, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
