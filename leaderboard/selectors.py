"""Reads of benchmarks and their accepted results."""

from __future__ import annotations

import hashlib
import hmac

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from leaderboard.models import (
    Algorithm,
    ApiToken,
    Benchmark,
    Dataset,
    Metric,
    Score,
    Submission,
)


def benchmark_get(*, slug: str) -> Benchmark:
    return Benchmark.objects.get(slug=slug)


def primary_metric(*, benchmark: Benchmark) -> Metric | None:
    return benchmark.metrics.order_by("-is_primary", "name").first()


def accepted_score_rows(
    *, benchmark: Benchmark, metric: Metric
) -> list[tuple[str, str, int | None, float]]:
    """(dataset, algorithm, fold, value) of accepted scores, newest submission first.

    When an algorithm has several accepted submissions, a later one supersedes an earlier
    one cell by cell; callers keep the first row they see for each (dataset, algorithm, fold).
    """
    return list(
        Score.objects.filter(
            metric=metric,
            submission__benchmark=benchmark,
            submission__status=Submission.Status.ACCEPTED,
        )
        .order_by("-submission__created_at", "-submission_id")
        .values_list("dataset__name", "submission__algorithm__name", "fold", "value")
    )


# --- public names ----------------------------------------------------------------------
# A name that only pending, rejected or withdrawn submissions brought is not public
# anywhere: lists, counts, pages, forms and exports read through these.


def _used_by_accepted_score() -> Exists:
    """On a Dataset queryset: an accepted score uses this dataset."""
    return Exists(
        Score.objects.filter(dataset=OuterRef("pk"), submission__status=Submission.Status.ACCEPTED)
    )


def _used_by_accepted_submission() -> Exists:
    """On an Algorithm queryset: one of its submissions is accepted."""
    return Exists(
        Submission.objects.filter(algorithm=OuterRef("pk"), status=Submission.Status.ACCEPTED)
    )


def datasets_public(datasets: QuerySet[Dataset]) -> QuerySet[Dataset]:
    """Datasets a maintainer declared or an accepted score uses."""
    return datasets.filter(Q(declared=True) | _used_by_accepted_score())


def algorithms_public(algorithms: QuerySet[Algorithm]) -> QuerySet[Algorithm]:
    """Algorithms with at least one accepted submission."""
    return algorithms.filter(_used_by_accepted_submission())


def dataset_names_public(*, benchmark: Benchmark) -> list[str]:
    return list(
        datasets_public(benchmark.datasets.all()).order_by("name").values_list("name", flat=True)
    )


def algorithm_names_public(*, benchmark: Benchmark) -> list[str]:
    return list(
        algorithms_public(benchmark.algorithms.all())
        .order_by("name")
        .values_list("name", flat=True)
    )


def catalogue_names_unused(*, benchmark: Benchmark) -> dict[str, list[str]]:
    """{"dataset": [...], "algorithm": [...]}: names no accepted result uses, which a
    maintainer may rename or delete."""
    unused = {
        "dataset": benchmark.datasets.exclude(_used_by_accepted_score()),
        "algorithm": benchmark.algorithms.exclude(_used_by_accepted_submission()),
    }
    return {
        kind: list(rows.order_by("name").values_list("name", flat=True))
        for kind, rows in unused.items()
    }


# --- visibility (REST API) ------------------------------------------------------------


def _maintains(user) -> Q:
    """Benchmarks ``user`` maintains (superusers maintain all, as in services)."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    if user.is_superuser:
        return Q()
    return Q(pk__in=Benchmark.maintainers.through.objects.filter(user=user).values("benchmark"))


def benchmark_list_visible(*, user, query: str = "") -> QuerySet[Benchmark]:
    """Listed benchmarks: public ones, and those ``user`` maintains; ``query`` searches text."""
    benchmarks = Benchmark.objects.filter(
        Q(visibility=Benchmark.Visibility.PUBLIC) | _maintains(user)
    )
    query = query.strip()
    if query:
        benchmarks = benchmarks.filter(
            Q(title__icontains=query) | Q(slug__icontains=query) | Q(description__icontains=query)
        )
    return _with_counts(benchmarks).order_by("title", "id")


def benchmark_get_visible(*, slug: str, user) -> Benchmark:
    """A benchmark ``user`` may read (public, unlisted, or private and maintained by them).

    Raises ``Benchmark.DoesNotExist`` otherwise, so that a private benchmark looks the
    same as one that does not exist.
    """
    readable = Q(visibility__in=[Benchmark.Visibility.PUBLIC, Benchmark.Visibility.UNLISTED])
    return _with_counts(Benchmark.objects.filter(readable | _maintains(user))).get(slug=slug)


def _count_of(model, public=None, **filters) -> Coalesce:
    """A correlated COUNT subquery (joins would multiply algorithms by datasets)."""
    rows = model.objects.filter(benchmark=OuterRef("pk"), **filters)
    if public is not None:
        rows = public(rows)
    rows = rows.order_by().values("benchmark").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def _with_counts(benchmarks: QuerySet[Benchmark]) -> QuerySet[Benchmark]:
    return benchmarks.annotate(
        n_algorithms=_count_of(Algorithm, public=algorithms_public),
        n_datasets=_count_of(Dataset, public=datasets_public),
        n_metrics=_count_of(Metric),
        n_accepted=_count_of(Submission, status=Submission.Status.ACCEPTED),
        n_pending=_count_of(Submission, status=Submission.Status.PENDING),
    )


def benchmark_maintainer_names(*, benchmark: Benchmark) -> list[str]:
    return sorted(benchmark.maintainers.values_list("username", flat=True))


def submission_list_visible(
    *,
    benchmark: Benchmark,
    user,
    is_maintainer: bool,
    status: str | None = None,
    algorithm: str | None = None,
) -> QuerySet[Submission]:
    """Maintainers see every submission; others the accepted ones and their own."""
    submissions = Submission.objects.filter(benchmark=benchmark)
    if not is_maintainer:
        mine = Q(submitter=user) if user is not None and user.is_authenticated else Q(pk__in=[])
        submissions = submissions.filter(Q(status=Submission.Status.ACCEPTED) | mine)
    if status:
        submissions = submissions.filter(status=status)
    if algorithm:
        submissions = submissions.filter(algorithm__name=algorithm)
    return (
        submissions.select_related("algorithm", "submitter", "decided_by", "benchmark")
        .annotate(n_scores=Count("scores"))
        .order_by("-created_at", "-id")
    )


def submission_get_visible(
    *, benchmark: Benchmark, user, is_maintainer: bool, submission_id: int
) -> Submission:
    """Raises ``Submission.DoesNotExist`` when it does not exist or ``user`` may not see it."""
    return submission_list_visible(benchmark=benchmark, user=user, is_maintainer=is_maintainer).get(
        pk=submission_id
    )


def submission_score_rows(*, submission: Submission) -> QuerySet[Score]:
    return (
        Score.objects.filter(submission=submission)
        .select_related("dataset", "metric")
        .order_by("dataset__name", "metric__name", "fold")
    )


def benchmark_metric_list(*, benchmark: Benchmark) -> QuerySet[Metric]:
    return benchmark.metrics.order_by("-is_primary", "name")


def benchmark_metric_get(*, benchmark: Benchmark, name: str | None) -> Metric | None:
    """The named metric, or the primary one when ``name`` is empty; None if there is none."""
    if not name:
        return primary_metric(benchmark=benchmark)
    return benchmark.metrics.filter(name=name).first()


def benchmark_dataset_list(*, benchmark: Benchmark) -> QuerySet[Dataset]:
    return (
        datasets_public(benchmark.datasets.all())
        .annotate(
            n_scores=Count(
                "scores",
                filter=Q(scores__submission__status=Submission.Status.ACCEPTED),
            )
        )
        .order_by("name")
    )


def benchmark_algorithm_list(*, benchmark: Benchmark) -> QuerySet[Algorithm]:
    return (
        algorithms_public(benchmark.algorithms.all())
        .annotate(
            n_accepted=Count(
                "submissions",
                filter=Q(submissions__status=Submission.Status.ACCEPTED),
                distinct=True,
            )
        )
        .order_by("name")
    )


# --- snapshots (REST API) -------------------------------------------------------------


# --- API tokens -----------------------------------------------------------------------


def api_token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def api_token_list(*, user) -> QuerySet[ApiToken]:
    """The active tokens of ``user``."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by(
        "-created_at", "-id"
    )


def api_token_get_active(*, raw: str) -> ApiToken | None:
    """The active token whose raw value is ``raw`` (compared in constant time), or None."""
    digest = api_token_digest(raw)
    candidates = ApiToken.objects.filter(
        prefix=raw[: ApiToken.PREFIX_LENGTH], revoked_at__isnull=True
    ).select_related("user")
    for token in candidates:
        if hmac.compare_digest(token.key_hash, digest):
            return token
    return None


def submission_list_by_ids(*, ids: list[int]) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(pk__in=ids)
        .select_related("algorithm", "submitter", "decided_by", "benchmark")
        .annotate(n_scores=Count("scores"))
        .order_by("id")
    )
