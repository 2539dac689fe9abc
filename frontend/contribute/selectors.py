"""Reads for the contributor and maintainer pages."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Q, QuerySet

from frontend.selectors import dataset_values, fold_mean_values
from leaderboard.models import Benchmark, Metric, ScorePack, Submission
from leaderboard.moderation import Evidence, evidence_for
from leaderboard.selectors import packs_read


def benchmark_list_maintained(*, user) -> QuerySet[Benchmark]:
    """The benchmarks ``user`` maintains (superusers: all), with their pending count."""
    benchmarks = Benchmark.objects.all()
    if not user.is_superuser:
        benchmarks = benchmarks.filter(maintainers=user)
    return benchmarks.annotate(
        n_pending=Count("submissions", filter=Q(submissions__status=Submission.Status.PENDING))
    ).order_by("title", "id")


def moderation_queue(*, benchmark: Benchmark) -> QuerySet[Submission]:
    """Pending submissions, oldest first, with what a maintainer weighs them by."""
    return (
        Submission.objects.filter(benchmark=benchmark, status=Submission.Status.PENDING)
        .select_related("algorithm", "submitter")
        .order_by("created_at", "id")
    )


def moderation_recent_decisions(*, benchmark: Benchmark, limit: int = 20) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(
            benchmark=benchmark,
            status__in=[Submission.Status.ACCEPTED, Submission.Status.REJECTED],
            decided_at__isnull=False,
        )
        .select_related("algorithm", "submitter", "decided_by")
        .order_by("-decided_at", "-id")[:limit]
    )


def moderation_evidence(
    *, benchmark: Benchmark, submissions: list[Submission]
) -> dict[int, list[Evidence]]:
    """Per pending submission, per metric it has scores for: see leaderboard.moderation.

    One query for the submissions' scores and one per metric for the accepted ones.
    """
    if not submissions:
        return {}
    names = dict(benchmark.datasets.values_list("pk", "name"))
    by_metric: dict[int, list] = defaultdict(list)
    for pack in packs_read(ScorePack.objects.filter(submission__in=submissions)):
        by_metric[pack.metric_id] += [
            (pack.submission_id, names[d], f, v) for d, f, v in pack.scores.rows() if d in names
        ]
    evidence: dict[int, list[Evidence]] = defaultdict(list)
    for metric in Metric.objects.filter(pk__in=list(by_metric)).order_by("-is_primary", "name"):
        accepted = dataset_values(benchmark=benchmark, metric=metric)
        for submission_id, values in fold_mean_values(by_metric[metric.pk]).items():
            submission = next(s for s in submissions if s.pk == submission_id)
            others = {a: v for a, v in accepted.items() if a != submission.algorithm.name}
            evidence[submission_id].append(
                evidence_for(
                    metric=metric.name,
                    higher_is_better=metric.higher_is_better,
                    submission=values,
                    accepted=others,
                    best_possible=metric.best_possible,
                )
            )
    return dict(evidence)
