"""Reads of benchmarks and their accepted results."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

import numpy as np
import psycopg
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from leaderboard.models import (
    Algorithm,
    ApiToken,
    Benchmark,
    Dataset,
    Metric,
    Score,
    Submission,
    UploadJob,
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


def datasets_with_listing(*, benchmark: Benchmark) -> list[tuple[Dataset, bool]]:
    """The benchmark's datasets, each with whether it is public (:func:`datasets_public`),
    in one query (a submission reads both)."""
    listed = ExpressionWrapper(
        Q(declared=True) | _used_by_accepted_score(), output_field=BooleanField()
    )
    rows = benchmark.datasets.annotate(listed=listed)
    return [(row, bool(row.__dict__["listed"])) for row in rows]  # an annotation


def algorithms_with_listing(*, benchmark: Benchmark) -> list[tuple[Algorithm, bool]]:
    """The benchmark's algorithms, each with whether it is public
    (:func:`algorithms_public`), in one query."""
    listed = ExpressionWrapper(_used_by_accepted_submission(), output_field=BooleanField())
    rows = benchmark.algorithms.annotate(listed=listed)
    return [(row, bool(row.__dict__["listed"])) for row in rows]


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


@dataclass(frozen=True)
class ScoreColumns:
    """Accepted scores of one metric as columns, one entry per stored score.

    ``dataset`` and ``algorithm`` index ``dataset_names`` / ``algorithm_names`` (both in
    name order, so codes sort like names); ``fold`` is -1 where the score has no fold;
    ``priority`` orders submissions, 0 = newest (a newer accepted submission supersedes
    an older one cell by cell); ``contested`` lists the algorithm codes with more than one
    accepted submission, the only ones whose cells can repeat.
    """

    dataset_names: tuple[str, ...]
    algorithm_names: tuple[str, ...]
    dataset: np.ndarray
    algorithm: np.ndarray
    fold: np.ndarray
    value: np.ndarray
    priority: np.ndarray
    contested: np.ndarray


# Each score as 20 fixed-width big-endian bytes, aggregated by PostgreSQL into one bytea
# per submission, all in one query (one value per submission to fetch instead of a
# million rows; a COPY TO would hand them to Python one row at a time). The submission's
# id comes once with its bytes, not with every score (8 bytes and one int8send a row
# fewer: 20-25 % less server time at m = 20, n = 100, 10 folds). One submission holds
# at most PODIUM_MAX_UPLOAD_ROWS scores, so each value stays far below PostgreSQL's
# 1 GB limit; one round trip however many submissions (m = 200 took 20).
_SCORE_ROW = np.dtype([("dataset", ">i8"), ("fold", ">i4"), ("value", ">f8")])
_SCORE_BYTES = (
    "SELECT submission_id, string_agg(int8send(dataset_id) || int4send(coalesce(fold, -1)) "
    "|| float8send(value), ''::bytea) "
    "FROM {table} WHERE metric_id = %s AND submission_id = ANY(%s::bigint[]) "
    "GROUP BY submission_id ORDER BY submission_id"
)


def _score_columns_bulk(metric: Metric, submission_ids: list[int]) -> tuple[np.ndarray, ...]:
    """PostgreSQL: the scores as packed bytes, parsed by numpy (no Python object per row)."""
    query = _SCORE_BYTES.format(table=Score._meta.db_table)
    connection.ensure_connection()
    # A cursor of our own on Django's connection (same transaction): Django's cursors
    # bind client-side, which cannot fetch binary results; hex text would double the bytes.
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(query, [metric.pk, submission_ids], binary=True)
        packed = [(owner, np.frombuffer(data, dtype=_SCORE_ROW)) for owner, data in cursor if data]
    rows = np.concatenate([c for _, c in packed]) if packed else np.empty(0, dtype=_SCORE_ROW)
    owners = np.array([owner for owner, _ in packed], dtype=np.int64)
    return (
        np.repeat(owners, [len(c) for _, c in packed]),
        rows["dataset"].astype(np.int64),
        rows["fold"].astype(np.int64),
        rows["value"].astype(np.float64),
    )


def _score_columns_orm(metric: Metric, submission_ids: list[int]) -> tuple[np.ndarray, ...]:
    """Other databases (SQLite, the embedded mode): the same columns through the ORM."""
    rows = list(
        Score.objects.filter(metric=metric, submission_id__in=submission_ids).values_list(
            "submission_id", "dataset_id", "fold", "value"
        )
    )
    submission, dataset, fold, value = zip(*rows, strict=True) if rows else ((), (), (), ())
    return (
        np.array(submission, dtype=np.int64),
        np.array(dataset, dtype=np.int64),
        np.array([-1 if f is None else f for f in fold], dtype=np.int64),
        np.array(value, dtype=np.float64),
    )


def accepted_submissions(*, benchmark: Benchmark) -> list[tuple[int, int]]:
    """The accepted submissions as (id, algorithm id), newest first (the order in which a
    newer one supersedes an older one cell by cell)."""
    return list(
        Submission.objects.filter(benchmark=benchmark, status=Submission.Status.ACCEPTED)
        .order_by("-created_at", "-id")
        .values_list("id", "algorithm_id")
    )


def accepted_score_columns(
    *,
    benchmark: Benchmark,
    metric: Metric,
    bulk: bool | None = None,
    submissions: list[tuple[int, int]] | None = None,
) -> ScoreColumns:
    """Accepted scores of ``metric`` as columns (see :class:`ScoreColumns`).

    PostgreSQL packs them into bytes that numpy reads directly; other databases (and
    ``bulk=False``) go through the ORM. Both give the same columns. ``submissions``: what
    :func:`accepted_submissions` returns, when the caller has read it (in the same
    transaction); else it is read here.
    """
    if submissions is None:
        submissions = accepted_submissions(benchmark=benchmark)
    if bulk is None:
        bulk = connection.vendor == "postgresql"
    ids = [pk for pk, _ in submissions]
    read = _score_columns_bulk if bulk and ids else _score_columns_orm
    submission, dataset_id, fold, value = read(metric, ids)
    datasets = _codes(Dataset.objects.filter(benchmark=benchmark))
    algorithms = _codes(Algorithm.objects.filter(benchmark=benchmark))
    submission_ids = np.array(ids, dtype=np.int64)
    by_id = np.argsort(submission_ids)
    position = by_id[np.searchsorted(submission_ids, submission, sorter=by_id)]
    submission_algorithm = algorithms.code(np.array([a for _, a in submissions], dtype=np.int64))
    counts = np.bincount(submission_algorithm, minlength=len(algorithms.names))
    return ScoreColumns(
        dataset_names=datasets.names,
        algorithm_names=algorithms.names,
        dataset=datasets.code(dataset_id),
        algorithm=submission_algorithm[position],
        fold=fold,
        value=value,
        priority=position,
        contested=np.flatnonzero(counts > 1),
    )


@dataclass(frozen=True)
class _Codes:
    """Names in name order, and their primary keys -> position in that order."""

    names: tuple[str, ...]
    ids: np.ndarray  # sorted primary keys
    positions: np.ndarray  # name-order position of each sorted key

    def code(self, keys: np.ndarray) -> np.ndarray:
        return self.positions[np.searchsorted(self.ids, keys)]


def _codes(queryset) -> _Codes:
    pairs = sorted(queryset.values_list("name", "id"))
    keys = np.array([pk for _, pk in pairs], dtype=np.int64)
    order = np.argsort(keys)
    return _Codes(
        names=tuple(name for name, _ in pairs),
        ids=keys[order],
        positions=order.astype(np.int64),
    )


def benchmark_folds_by_dataset(*, benchmark: Benchmark) -> dict[str, list[int]]:
    """The folds each dataset's accepted scores use (datasets without folds are absent)."""
    rows = (
        Score.objects.filter(
            submission__benchmark=benchmark,
            submission__status=Submission.Status.ACCEPTED,
            fold__isnull=False,
        )
        .values_list("dataset__name", "fold")
        .distinct()
        .order_by("dataset__name", "fold")
    )
    folds: dict[str, list[int]] = {}
    for dataset, fold in rows:
        assert fold is not None  # fold__isnull=False
        folds.setdefault(dataset, []).append(fold)
    return folds


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


def benchmark_get_visible(*, slug: str, user, counts: bool = True) -> Benchmark:
    """A benchmark ``user`` may read (public, unlisted, or private and maintained by them).

    Raises ``Benchmark.DoesNotExist`` otherwise, so that a private benchmark looks the
    same as one that does not exist. ``counts=False`` leaves out the five counts
    (``n_algorithms`` ...), which cost most of a polled snapshot request.
    """
    readable = Q(visibility__in=[Benchmark.Visibility.PUBLIC, Benchmark.Visibility.UNLISTED])
    benchmarks = Benchmark.objects.filter(readable | _maintains(user))
    return (_with_counts(benchmarks) if counts else benchmarks).get(slug=slug)


def _count_of(model, public=None, **filters) -> Coalesce:
    """A correlated COUNT subquery (joins would multiply algorithms by datasets)."""
    rows = model.objects.filter(benchmark=OuterRef("pk"), **filters)
    if public is not None:
        rows = public(rows)
    rows = rows.order_by().values("benchmark").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def _with_counts(benchmarks: QuerySet[Benchmark]) -> QuerySet[Benchmark]:
    """Algorithms and datasets are counted when public (an accepted result uses them, or a
    maintainer declared the dataset): a pending or rejected submission's names are not."""
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
        .prefetch_related(
            Prefetch("owners", queryset=get_user_model().objects.order_by("username"))
        )
        .order_by("name")
    )


# --- snapshots (REST API) -------------------------------------------------------------


# --- API tokens -----------------------------------------------------------------------


def api_token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def api_token_list(*, user) -> QuerySet[ApiToken]:
    """The active tokens of ``user``."""
    return (
        ApiToken.objects.filter(user=user, revoked_at__isnull=True)
        .filter(_api_token_unexpired())
        .order_by("-created_at", "-id")
    )


def _api_token_unexpired() -> Q:
    return Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())


def api_token_get_active(*, raw: str) -> ApiToken | None:
    """The active token whose raw value is ``raw`` (compared in constant time), or None."""
    digest = api_token_digest(raw)
    candidates = (
        ApiToken.objects.filter(prefix=raw[: ApiToken.PREFIX_LENGTH], revoked_at__isnull=True)
        .filter(_api_token_unexpired())
        .select_related("user")
    )
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


def upload_job_get_visible(*, benchmark: Benchmark, user, job_id: int) -> UploadJob:
    """An upload job, to its uploader only (raises ``UploadJob.DoesNotExist``)."""
    if user is None or not user.is_authenticated:
        raise UploadJob.DoesNotExist
    return UploadJob.objects.defer("content").get(pk=job_id, benchmark=benchmark, submitter=user)
