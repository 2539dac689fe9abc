"""Reads for the contributor and maintainer pages."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from leaderboard.models import Benchmark, Submission


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
        .annotate(
            n_scores=Count("scores"),
            n_datasets=Count("scores__dataset", distinct=True),
            n_folds=Count("scores__fold", distinct=True),
        )
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
