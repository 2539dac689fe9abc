"""What a management command that changes a benchmark's input does next: compute its
results in this process (or refuse to queue them without workers), then say what each
metric serves. Used by the recompute command and by leaderboard's import commands (the
one way a command of the catalogue reaches the pipeline: pyproject.toml's contracts)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError

from estimation.models import ResultSnapshot
from estimation.recompute.runs import recompute_here
from estimation.selectors import recompute_pending, snapshot_status
from leaderboard.models import Benchmark

QUEUE_HELP = "hand the work to the Celery workers instead of computing here"


def queue_refused_without_workers() -> None:
    """Without a broker a queued recompute runs in a thread of this command, which its
    exit would kill half-way: say so instead of pretending it was queued."""
    if settings.RECOMPUTE_IN_THREAD:
        raise CommandError(
            "--queue needs Celery workers (REDIS_URL or CELERY_BROKER_URL, and "
            "PODIUM_RECOMPUTE_IN_THREAD off); without them, leave it out to compute here"
        )


def results_compute(benchmark: Benchmark) -> list[ResultSnapshot]:
    """The versions this command computed (none when every metric was up to date)."""
    return recompute_here(benchmark_id=benchmark.pk, owner=f"command-{benchmark.pk}")


def results_after_import(benchmark: Benchmark, *, queued: bool) -> str:
    """The line an import command ends with. The import committed and asked for a
    recompute (a task, or a thread of this process that would die with it): without
    ``--queue`` the results are computed here first."""
    if queued:
        return f"{benchmark.slug}: results queued for the workers"
    results_compute(benchmark)
    return f"{benchmark.slug}: results {results_served(benchmark)}"


def results_served(benchmark: Benchmark) -> str:
    """What each metric serves now, in a few words."""
    if recompute_pending(benchmark_id=benchmark.pk):
        return "still being computed by another run (see its snapshots/status/)"
    served = []
    for metric in benchmark.metrics.all():
        newest = snapshot_status(benchmark=benchmark, metric=metric).newest
        if newest is None:
            served.append(f"{metric.name}: no accepted scores yet")
        elif newest.status == ResultSnapshot.Status.FAILED:
            served.append(f"{metric.name} v{newest.version} failed: {newest.error}")
        else:
            served.append(f"{metric.name} v{newest.version} {newest.status}")
    return ", ".join(served) or "no metrics"
