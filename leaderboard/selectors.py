"""Reads of benchmarks and their accepted results."""

from __future__ import annotations

import enum
import hashlib
import hmac
import math
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
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
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce
from django.utils import timezone

from leaderboard.models import (
    Algorithm,
    ApiToken,
    Benchmark,
    Dataset,
    Metric,
    ScorePack,
    Submission,
    UploadJob,
)
from leaderboard.score_packs import COUNT, FOLD, ScoreArrays, scores_unpack


def benchmark_get(*, slug: str) -> Benchmark:
    return Benchmark.objects.get(slug=slug)


def primary_metric(*, benchmark: Benchmark) -> Metric | None:
    return benchmark.metrics.order_by("-is_primary", "name").first()


@dataclass(frozen=True)
class StoredPack:
    """One stored pack's scores (see ``ScorePack``), with whose they are."""

    submission_id: int
    algorithm_id: int
    metric_id: int
    scores: ScoreArrays


def packs_read(packs: QuerySet[ScorePack]) -> list[StoredPack]:
    """The packs of ``packs`` (in its order), unpacked: one query, no object per score."""
    rows = packs.values_list(
        "submission_id",
        "submission__algorithm_id",
        "metric_id",
        "datasets",
        "counts",
        "folds",
        "scores",
    )
    return [
        StoredPack(submission_id, algorithm_id, metric_id, scores_unpack(*columns))
        for submission_id, algorithm_id, metric_id, *columns in rows
    ]


def _accepted_packs(benchmark: Benchmark) -> QuerySet[ScorePack]:
    return ScorePack.objects.filter(
        submission__benchmark=benchmark, submission__status=Submission.Status.ACCEPTED
    )


def accepted_score_rows(
    *, benchmark: Benchmark, metric: Metric
) -> list[tuple[str, str, int | None, float]]:
    """(dataset, algorithm, fold, value) of accepted scores, newest submission first.

    When an algorithm has several accepted submissions, a later one supersedes an earlier
    one cell by cell; callers keep the first row they see for each (dataset, algorithm, fold).
    """
    packs = packs_read(
        _accepted_packs(benchmark)
        .filter(metric=metric)
        .order_by("-submission__created_at", "-submission_id")
    )
    datasets = dict(benchmark.datasets.values_list("pk", "name"))
    algorithms = dict(benchmark.algorithms.values_list("pk", "name"))
    return [
        (datasets[d], algorithms[pack.algorithm_id], f, v)
        for pack in packs
        for d, f, v in pack.scores.rows()
        if d in datasets
    ]


# --- public names ----------------------------------------------------------------------
# A name that only pending, rejected or withdrawn submissions brought is not public
# anywhere: lists, counts, pages, forms and exports read through these.


def _used_by_accepted_score() -> Exists:
    """On a Dataset queryset: an accepted score uses this dataset."""
    return Exists(
        ScorePack.objects.filter(
            datasets__has=OuterRef("pk"), submission__status=Submission.Status.ACCEPTED
        )
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


def dataset_keys_with_listing(*, benchmark: Benchmark) -> list[tuple[str, int, bool]]:
    """The benchmark's datasets as (name, key, whether public: :func:`datasets_public`),
    in one query (a submission reads both, and needs no Dataset object)."""
    listed = ExpressionWrapper(
        Q(declared=True) | _used_by_accepted_score(), output_field=BooleanField()
    )
    return list(benchmark.datasets.annotate(listed=listed).values_list("name", "pk", "listed"))


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


def _score_columns(metric: Metric, submission_ids: list[int]) -> tuple[np.ndarray, ...]:
    """Submission, dataset, fold and value of the submissions' scores of ``metric``, read
    from their packs (one row per submission, whatever its number of scores)."""
    packs = packs_read(
        ScorePack.objects.filter(metric=metric, submission_id__in=submission_ids).order_by(
            "submission_id"
        )
    )
    if not packs:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty, np.empty(0, dtype=np.float64)
    return (
        np.repeat([p.submission_id for p in packs], [len(p.scores.value) for p in packs]),
        np.concatenate([p.scores.dataset for p in packs]),
        np.concatenate([p.scores.fold for p in packs]),
        np.concatenate([p.scores.value for p in packs]),
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
    submissions: list[tuple[int, int]] | None = None,
) -> ScoreColumns:
    """Accepted scores of ``metric`` as columns (see :class:`ScoreColumns`).

    ``submissions``: what :func:`accepted_submissions` returns, when the caller has read
    it (in the same transaction); else it is read here.
    """
    if submissions is None:
        submissions = accepted_submissions(benchmark=benchmark)
    ids = [pk for pk, _ in submissions]
    submission, dataset_id, fold, value = _score_columns(metric, ids)
    datasets = _codes(Dataset.objects.filter(benchmark=benchmark))
    # A key the benchmark lacks cannot be stored (the write checks it, and on PostgreSQL
    # a trigger keeps a named dataset), but a code must never point at another name.
    known = np.isin(dataset_id, datasets.ids)
    if not known.all():
        submission, dataset_id, fold, value = (
            c[known] for c in (submission, dataset_id, fold, value)
        )
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


@dataclass(frozen=True)
class _FoldColumns:
    """The accepted packs' datasets and folds, a score each, without their values."""

    dataset: np.ndarray  # int64 keys
    fold: np.ndarray  # int64, -1 = none
    algorithm_on: tuple[np.ndarray, np.ndarray]  # (dataset key, algorithm) of every pack


def _accepted_fold_columns(benchmark: Benchmark) -> _FoldColumns:
    """Reads the keys, counts and folds of the accepted packs: a third of their bytes."""
    rows = list(
        _accepted_packs(benchmark).values_list(
            "submission__algorithm_id", "datasets", "counts", "folds"
        )
    )
    empty = np.empty(0, dtype=np.int64)
    if not rows:
        return _FoldColumns(empty, empty, (empty, empty))
    keys = [np.asarray(k, dtype=np.int64) for _, k, _, _ in rows]
    counts = np.concatenate([np.frombuffer(c, dtype=COUNT) for _, _, c, _ in rows])
    return _FoldColumns(
        dataset=np.repeat(np.concatenate(keys), counts),
        fold=np.concatenate([np.frombuffer(f, dtype=FOLD) for *_, f in rows]).astype(np.int64),
        algorithm_on=(
            np.concatenate(keys),
            np.repeat([a for a, *_ in rows], [len(k) for k in keys]).astype(np.int64),
        ),
    )


def _distinct_pairs(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (first, second) pairs, sorted (one lexsort: no 2-D unique)."""
    order = np.lexsort((second, first))
    first, second = first[order], second[order]
    new = np.r_[True, (first[1:] != first[:-1]) | (second[1:] != second[:-1])][: len(first)]
    return first[new], second[new]


def _per_key(keys: np.ndarray, of: np.ndarray) -> np.ndarray:
    """How many entries of the sorted array ``of`` equal each of ``keys``."""
    return np.searchsorted(of, keys, side="right") - np.searchsorted(of, keys)


def benchmark_folds_by_dataset(*, benchmark: Benchmark) -> dict[str, list[int]]:
    """The folds each dataset's accepted scores use (datasets without folds are absent)."""
    columns = _accepted_fold_columns(benchmark)
    folded = columns.fold >= 0
    dataset, fold = _distinct_pairs(columns.dataset[folded], columns.fold[folded])
    names = dict(benchmark.datasets.values_list("pk", "name"))
    folds: dict[str, list[int]] = {}
    for key, number in zip(dataset.tolist(), fold.tolist(), strict=True):
        if key in names:
            folds.setdefault(names[key], []).append(number)
    return dict(sorted(folds.items()))


@dataclass(frozen=True)
class DatasetScoreCounts:
    """What the accepted scores hold of one dataset, every metric together."""

    n_scores: int = 0
    n_algorithms: int = 0
    n_folds: int = 0  # distinct fold numbers


def accepted_dataset_counts(*, benchmark: Benchmark) -> dict[int, DatasetScoreCounts]:
    """{dataset key: counts} of the accepted scores (datasets without any are absent)."""
    columns = _accepted_fold_columns(benchmark)
    keys, n_scores = np.unique(columns.dataset, return_counts=True)
    with_algorithm, _ = _distinct_pairs(*columns.algorithm_on)
    folded = columns.fold >= 0
    with_fold, _ = _distinct_pairs(columns.dataset[folded], columns.fold[folded])
    return {
        key: DatasetScoreCounts(n, a, f)
        for key, n, a, f in zip(
            keys.tolist(),
            n_scores.tolist(),
            _per_key(keys, with_algorithm).tolist(),
            _per_key(keys, with_fold).tolist(),
            strict=True,
        )
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


def benchmark_get_visible(*, slug: str, user, counts: bool = True) -> Benchmark:
    """A benchmark ``user`` may read (public, unlisted, or private and maintained by them).

    Raises ``Benchmark.DoesNotExist`` otherwise, so that a private benchmark looks the
    same as one that does not exist. ``counts=False`` leaves out the five counts
    (``n_algorithms`` ...), which cost most of a polled snapshot request.
    """
    readable = Q(visibility__in=[Benchmark.Visibility.PUBLIC, Benchmark.Visibility.UNLISTED])
    benchmarks = Benchmark.objects.filter(readable | _maintains(user))
    return (_with_counts(benchmarks) if counts else benchmarks).get(slug=slug)


def benchmark_policy_if_maintained(*, slug: str, user) -> str | None:
    """The submission policy of benchmark ``slug`` if ``user`` maintains it, else None:
    what the leaderboard's maintainer links need, in one query (none for a reader not
    signed in)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        Benchmark.objects.filter(_maintains(user), slug=slug)
        .values_list("submission_policy", flat=True)
        .first()
    )


def user_maintains_any(*, user) -> bool:
    """Whether ``user`` maintains at least one benchmark (one query; False if not signed in)."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_superuser or Benchmark.maintainers.through.objects.filter(user=user).exists()


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


class SubmitterStanding(enum.Enum):
    """Whose submission budget an account draws on at one benchmark (the throttles)."""

    MAINTAINER = "maintainer"
    OWNER = "owner"  # owns one of its algorithms
    OTHER = "other"


def submitter_standing(*, user, slug: str) -> SubmitterStanding:
    """``user``'s standing at the benchmark ``slug``, in one query (none when anonymous)."""
    if user is None or not user.is_authenticated:
        return SubmitterStanding.OTHER
    if user.is_superuser:
        return SubmitterStanding.MAINTAINER
    maintainer = Benchmark.maintainers.through.objects.filter(benchmark=OuterRef("pk"), user=user)
    owner = Algorithm.owners.through.objects.filter(algorithm__benchmark=OuterRef("pk"), user=user)
    marks = (
        Benchmark.objects.filter(slug=slug)
        .annotate(maintains=Exists(maintainer), owns=Exists(owner))
        .values("maintains", "owns")
        .first()
    ) or {"maintains": False, "owns": False}
    if marks["maintains"]:
        return SubmitterStanding.MAINTAINER
    if marks["owns"]:
        return SubmitterStanding.OWNER
    return SubmitterStanding.OTHER


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
    return submissions.select_related("algorithm", "submitter", "decided_by", "benchmark").order_by(
        "-created_at", "-id"
    )


def submission_get_visible(
    *, benchmark: Benchmark, user, is_maintainer: bool, submission_id: int
) -> Submission:
    """Raises ``Submission.DoesNotExist`` when it does not exist or ``user`` may not see it."""
    return submission_list_visible(benchmark=benchmark, user=user, is_maintainer=is_maintainer).get(
        pk=submission_id
    )


@dataclass(frozen=True)
class StoredScore:
    """One stored score, by name (fold None: no folds)."""

    dataset: str
    metric: str
    fold: int | None
    value: float


def submission_score_rows(*, submission: Submission) -> list[StoredScore]:
    """A submission's scores, by dataset, metric and fold."""
    packs = packs_read(submission.score_packs.all())
    datasets = dict(submission.benchmark.datasets.values_list("pk", "name"))
    metrics = dict(submission.benchmark.metrics.values_list("pk", "name"))
    rows = [
        StoredScore(datasets[d], metrics[pack.metric_id], f, v)
        for pack in packs
        for d, f, v in pack.scores.rows()
        if d in datasets
    ]
    # a score without a fold after the numbered ones, as the database ordered NULLs
    return sorted(rows, key=lambda r: (r.dataset, r.metric, r.fold is None, r.fold or 0))


def benchmark_metric_list(*, benchmark: Benchmark) -> QuerySet[Metric]:
    return benchmark.metrics.order_by("-is_primary", "name")


def benchmark_metric_get(*, benchmark: Benchmark, name: str | None) -> Metric | None:
    """The named metric, or the primary one when ``name`` is empty; None if there is none."""
    if not name:
        return primary_metric(benchmark=benchmark)
    return benchmark.metrics.filter(name=name).first()


def benchmark_dataset_list(*, benchmark: Benchmark) -> list[Dataset]:
    """The public datasets, each with ``n_scores``: its accepted scores."""
    counts = accepted_dataset_counts(benchmark=benchmark)
    datasets = list(datasets_public(benchmark.datasets.all()).order_by("name"))
    for dataset in datasets:
        dataset.n_scores = counts.get(dataset.pk, DatasetScoreCounts()).n_scores  # type: ignore[attr-defined]
    return datasets


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
        .order_by("id")
    )


def upload_job_get_visible(*, benchmark: Benchmark, user, job_id: int) -> UploadJob:
    """An upload job, to its uploader only (raises ``UploadJob.DoesNotExist``)."""
    if user is None or not user.is_authenticated:
        raise UploadJob.DoesNotExist
    return UploadJob.objects.defer("content").get(pk=job_id, benchmark=benchmark, submitter=user)


def submission_standard_errors(submission_ids: set[int]) -> dict[int, dict[str, float]]:
    """{submission: {"<dataset> | <metric>": standard error}} as its provenance keeps them
    (one query; a value that is not a finite number >= 0 is not one)."""
    if not submission_ids:
        return {}
    rows = (
        Submission.objects.filter(pk__in=submission_ids)
        .annotate(se=KeyTransform("standard_errors", "provenance"))
        .exclude(se=None)
        .values_list("pk", "se")
    )
    return {
        pk: {
            key: float(se)
            for key, se in errors.items()
            if isinstance(se, (int, float)) and math.isfinite(se) and se >= 0
        }
        for pk, errors in rows
        if isinstance(errors, dict)
    }
