"""Reads for the explore pages: one dataset's or one algorithm's accepted scores."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, Value, When

from leaderboard.models import Algorithm, Benchmark, Dataset, Metric, Score, Submission
from leaderboard.selectors import algorithms_public, datasets_public

ACCEPTED = Submission.Status.ACCEPTED


def dataset_get(*, benchmark: Benchmark, name: str) -> Dataset:
    """A public dataset; raises ``Dataset.DoesNotExist`` (also for unaccepted names)."""
    return datasets_public(Dataset.objects.filter(benchmark=benchmark)).get(name=name)


def algorithm_get(*, benchmark: Benchmark, name: str) -> Algorithm:
    """A public algorithm; raises ``Algorithm.DoesNotExist`` (also for unaccepted names)."""
    return algorithms_public(Algorithm.objects.filter(benchmark=benchmark)).get(name=name)


def dataset_fold_scores(
    *, benchmark: Benchmark, metric: Metric, dataset: Dataset
) -> dict[str, dict[int | None, float]]:
    """{algorithm: {fold: value}} of accepted scores on one dataset (fold None: no folds).

    A later accepted submission supersedes an earlier one cell by cell, as in the analysis.
    """
    rows = (
        Score.objects.filter(
            metric=metric,
            dataset=dataset,
            submission__benchmark=benchmark,
            submission__status=Submission.Status.ACCEPTED,
        )
        .order_by("-submission__created_at", "-submission_id")
        .values_list("submission__algorithm__name", "fold", "value")
    )
    cells: dict[str, dict[int | None, float]] = defaultdict(dict)
    for algorithm, fold, value in rows:
        cells[algorithm].setdefault(fold, value)
    return dict(cells)


def dataset_index(*, benchmark: Benchmark) -> list[dict]:
    """Each public dataset with its metadata: description, accepted scores, algorithms
    with a result, folds (counted in the database, one query)."""
    rows = (
        datasets_public(Dataset.objects.filter(benchmark=benchmark))
        .annotate(
            n_scores=Count("scores", filter=Q(scores__submission__status=ACCEPTED)),
            n_algorithms=Count(
                "scores__submission__algorithm",
                filter=Q(scores__submission__status=ACCEPTED),
                distinct=True,
            ),
            n_folds=Count(
                "scores__fold", filter=Q(scores__submission__status=ACCEPTED), distinct=True
            ),
        )
        .order_by("name")
        .values("name", "description", "n_scores", "n_algorithms", "n_folds")
    )
    return list(rows)


def accepted_scores_long(
    *, benchmark: Benchmark, metric: Metric, algorithm_order: list[str], chunk_size: int = 2000
) -> Iterator[dict]:
    """``{dataset, algorithm, fold, metric, score}`` of every accepted score of ``metric``,
    algorithms in ``algorithm_order`` (the page's; others after, by name), then dataset and
    fold; a later accepted submission supersedes an earlier one cell by cell. Read with a
    server-side cursor in chunks: memory stays bounded whatever the benchmark's size."""
    ids = dict(
        Algorithm.objects.filter(benchmark=benchmark, name__in=algorithm_order).values_list(
            "name", "pk"
        )
    )
    whens = [
        When(submission__algorithm_id=ids[name], then=Value(place))
        for place, name in enumerate(algorithm_order)
        if name in ids
    ]
    place = (
        Case(*whens, default=Value(len(whens)), output_field=IntegerField())
        if whens
        else Value(0, output_field=IntegerField())
    )
    rows = (
        Score.objects.filter(
            metric=metric, submission__benchmark=benchmark, submission__status=ACCEPTED
        )
        .annotate(place=place)
        .order_by(
            "place",
            "submission__algorithm__name",
            "dataset__name",
            F("fold").asc(nulls_first=True),
            "-submission__created_at",
            "-submission_id",
        )
        .values_list("dataset__name", "submission__algorithm__name", "fold", "value")
        .iterator(chunk_size=chunk_size)
    )
    previous = None
    for dataset, algorithm, fold, value in rows:
        cell = (algorithm, dataset, fold)
        if cell == previous:  # an older submission's value for the same cell
            continue
        previous = cell
        yield {
            "dataset": dataset,
            "algorithm": algorithm,
            "fold": fold,
            "metric": metric.name,
            "score": value,
        }


MAX_QUERY_LENGTH = 100
MAX_HITS = 50


@dataclass(frozen=True)
class SearchHits:
    """What a site search found, each list capped at :data:`MAX_HITS`."""

    algorithms: list[tuple[str, str, str]]  # (name, benchmark slug, benchmark title)
    datasets: list[tuple[str, str, str]]


def site_search(*, query: str, benchmarks: QuerySet[Benchmark]) -> SearchHits:
    """Public algorithms and datasets whose name contains ``query`` (case-insensitive), in
    the benchmarks the reader may list."""
    query = query.strip()[:MAX_QUERY_LENGTH]
    if not query:
        return SearchHits(algorithms=[], datasets=[])
    visible = benchmarks.values("pk")
    algorithms = (
        algorithms_public(Algorithm.objects.filter(benchmark__in=visible, name__icontains=query))
        .order_by("name", "benchmark__title")
        .values_list("name", "benchmark__slug", "benchmark__title")[:MAX_HITS]
    )
    datasets = (
        datasets_public(Dataset.objects.filter(benchmark__in=visible, name__icontains=query))
        .order_by("name", "benchmark__title")
        .values_list("name", "benchmark__slug", "benchmark__title")[:MAX_HITS]
    )
    return SearchHits(algorithms=list(algorithms), datasets=list(datasets))
