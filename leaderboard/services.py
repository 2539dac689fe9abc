"""Every write to benchmarks and results goes through these functions."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from leaderboard.models import Algorithm, Benchmark, Dataset, Metric, Score, Submission

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScoreInput:
    dataset: str
    value: float
    metric: str | None = None
    fold: int | None = None


@transaction.atomic
def benchmark_create(
    *,
    slug: str,
    title: str,
    metrics: Iterable[tuple[str, str]],
    description: str = "",
    citation: str = "",
) -> Benchmark:
    """Create a benchmark with its metrics, given as (name, direction); the first is primary."""
    benchmark = Benchmark.objects.create(
        slug=slug, title=title, description=description, citation=citation
    )
    for index, (name, direction) in enumerate(metrics):
        Metric.objects.create(
            benchmark=benchmark, name=name, direction=direction, is_primary=index == 0
        )
    return benchmark


@transaction.atomic
def submission_create(
    *,
    benchmark: Benchmark,
    algorithm_name: str,
    scores: Iterable[ScoreInput],
    submitter=None,
) -> Submission:
    """Store one algorithm's scores as a pending submission (all or nothing)."""
    algorithm, _ = Algorithm.objects.get_or_create(benchmark=benchmark, name=algorithm_name)
    submission = Submission.objects.create(
        benchmark=benchmark, algorithm=algorithm, submitter=submitter
    )
    metrics = {m.name: m for m in benchmark.metrics.all()}
    primary = next((m for m in metrics.values() if m.is_primary), None)
    datasets = {d.name: d for d in benchmark.datasets.all()}
    rows = []
    for item in scores:
        if not math.isfinite(item.value):
            raise ValueError(f"score for dataset {item.dataset!r} is not finite: {item.value}")
        metric = metrics[item.metric] if item.metric else primary
        if metric is None:
            raise ValueError(f"benchmark {benchmark.slug!r} has no metric")
        dataset = datasets.get(item.dataset)
        if dataset is None:
            dataset = datasets[item.dataset] = Dataset.objects.create(
                benchmark=benchmark, name=item.dataset
            )
        rows.append(
            Score(
                submission=submission,
                dataset=dataset,
                metric=metric,
                fold=item.fold,
                value=item.value,
            )
        )
    Score.objects.bulk_create(rows)
    return submission


@transaction.atomic
def submission_accept(*, submission: Submission) -> Submission:
    submission.status = Submission.Status.ACCEPTED
    submission.decided_at = timezone.now()
    submission.save(update_fields=["status", "decided_at"])
    recompute_enqueue(benchmark_id=submission.benchmark_id)
    return submission


def recompute_enqueue(*, benchmark_id: int) -> None:
    """Ask for a recompute once the current transaction commits.

    A broker outage must not lose the submission: it is already committed when this
    runs, so a failed enqueue is logged and the next change (or `manage.py recompute`)
    catches up.
    """
    from estimation.tasks import recompute_benchmark

    def enqueue() -> None:
        try:
            recompute_benchmark.delay(benchmark_id)
        except Exception:  # the broker client raises several unrelated types
            logger.exception("could not enqueue the recompute of benchmark %s", benchmark_id)

    transaction.on_commit(enqueue)
