"""Reads for the explore pages: one dataset's or one algorithm's accepted scores."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import QuerySet
from django.db.models.fields.json import KeyTransform

from leaderboard.models import (
    Algorithm,
    Benchmark,
    Dataset,
    Metric,
    PublishedOrder,
    ScorePack,
    Submission,
)
from leaderboard.selectors import (
    DatasetScoreCounts,
    accepted_dataset_counts,
    algorithms_public,
    datasets_public,
    packs_read,
    submission_standard_errors,
)

ACCEPTED = Submission.Status.ACCEPTED


def dataset_get(*, benchmark: Benchmark, name: str) -> Dataset:
    """A public dataset; raises ``Dataset.DoesNotExist`` (also for unaccepted names)."""
    return datasets_public(Dataset.objects.filter(benchmark=benchmark)).get(name=name)


def algorithm_get(*, benchmark: Benchmark, name: str) -> Algorithm:
    """A public algorithm; raises ``Algorithm.DoesNotExist`` (also for unaccepted names)."""
    return algorithms_public(Algorithm.objects.filter(benchmark=benchmark)).get(name=name)


def _accepted_packs(benchmark: Benchmark, metric: Metric) -> QuerySet[ScorePack]:
    """The accepted packs of ``metric``, newest submission first (a later accepted
    submission supersedes an earlier one cell by cell, as in the analysis)."""
    return ScorePack.objects.filter(
        metric=metric, submission__benchmark=benchmark, submission__status=ACCEPTED
    ).order_by("-submission__created_at", "-submission_id")


def dataset_fold_scores(
    *, benchmark: Benchmark, metric: Metric, dataset: Dataset
) -> dict[str, dict[int | None, float]]:
    """{algorithm: {fold: value}} of accepted scores on one dataset (fold None: no folds)."""
    algorithms = dict(benchmark.algorithms.values_list("pk", "name"))
    cells: dict[str, dict[int | None, float]] = defaultdict(dict)
    for pack in packs_read(_accepted_packs(benchmark, metric).filter(datasets__has=dataset.pk)):
        on = pack.scores.dataset == dataset.pk
        for fold, value in zip(
            pack.scores.fold[on].tolist(), pack.scores.value[on].tolist(), strict=True
        ):
            cells[algorithms[pack.algorithm_id]].setdefault(None if fold < 0 else fold, value)
    return dict(cells)


def dataset_standard_errors(
    *, benchmark: Benchmark, metric: Metric, dataset: Dataset
) -> dict[str, float]:
    """{algorithm: the standard error its source file gave with its score on ``dataset``}
    ("x ± s", lm-eval's ``_stderr``; kept in the submission's provenance by the importers),
    from the submission whose score the analysis uses (the newest accepted holding the
    cell). Two queries; no score is unpacked."""
    newest: dict[int, int] = {}  # algorithm -> the submission whose cell counts
    for submission_id, algorithm_id in (
        _accepted_packs(benchmark, metric)
        .filter(datasets__has=dataset.pk)
        .values_list("submission_id", "submission__algorithm_id")
    ):
        newest.setdefault(algorithm_id, submission_id)
    key = f"{dataset.name} | {metric.name}"
    rows = (
        Submission.objects.filter(pk__in=newest.values())
        .annotate(se=KeyTransform(key, KeyTransform("standard_errors", "provenance")))
        .exclude(se=None)
        .values_list("algorithm__name", "se")
    )
    return {name: float(se) for name, se in rows if isinstance(se, (int, float))}


def dataset_index(*, benchmark: Benchmark) -> list[dict]:
    """Each public dataset with its metadata: description, link, domain, accepted scores, algorithms
    with a result, folds."""
    counts = accepted_dataset_counts(benchmark=benchmark)
    rows = (
        datasets_public(Dataset.objects.filter(benchmark=benchmark))
        .order_by("name")
        .values("pk", "name", "description", "url", "domain")
    )
    return [
        {
            "name": row["name"],
            "description": row["description"],
            "url": row["url"],
            "domain": row["domain"],
            **dataclasses.asdict(counts.get(row["pk"], DatasetScoreCounts())),
        }
        for row in rows
    ]


def accepted_scores_long(
    *, benchmark: Benchmark, metric: Metric, algorithm_order: list[str], chunk_size: int = 50
) -> Iterator[dict]:
    """``{dataset, algorithm, fold, metric, score, standard_error}`` of every accepted score
    of ``metric``, algorithms in ``algorithm_order`` (the page's; others after, by name),
    then dataset and fold; a later accepted submission supersedes an earlier one cell by
    cell. ``standard_error`` is the one the source file gave with the score (kept in its
    submission's provenance, per dataset and metric: only on a row without a fold), else
    None. Read ``chunk_size`` algorithms' packs at a time: memory stays bounded by what
    that many algorithms submitted, whatever the benchmark's size."""
    place = {name: i for i, name in enumerate(algorithm_order)}
    algorithms = sorted(
        algorithms_public(Algorithm.objects.filter(benchmark=benchmark)).values_list("name", "pk"),
        key=lambda pair: (place.get(pair[0], len(place)), pair[0]),
    )
    dataset_names = dict(benchmark.datasets.values_list("pk", "name"))
    for start in range(0, len(algorithms), chunk_size):
        chunk = algorithms[start : start + chunk_size]
        packs = packs_read(
            _accepted_packs(benchmark, metric).filter(
                submission__algorithm_id__in=[pk for _, pk in chunk]
            )
        )
        spreads = submission_standard_errors({pack.submission_id for pack in packs})
        for name, pk in chunk:
            cells: dict[tuple[str, int], tuple[float, int]] = {}
            for pack in packs:
                if pack.algorithm_id != pk:
                    continue
                for dataset, fold, value in zip(
                    pack.scores.dataset.tolist(),
                    pack.scores.fold.tolist(),
                    pack.scores.value.tolist(),
                    strict=True,
                ):
                    if dataset in dataset_names:
                        cells.setdefault(
                            (dataset_names[dataset], fold), (value, pack.submission_id)
                        )
            for (dataset_name, fold), (value, submission_id) in sorted(cells.items()):
                yield {
                    "dataset": dataset_name,
                    "algorithm": name,
                    "fold": None if fold < 0 else fold,
                    "metric": metric.name,
                    "score": value,
                    "standard_error": None
                    if fold >= 0
                    else spreads.get(submission_id, {}).get(f"{dataset_name} | {metric.name}"),
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


def published_orders(*, benchmark: Benchmark) -> list[PublishedOrder]:
    """The sources' own orders kept for ``benchmark`` (imports by its maintainers)."""
    return list(PublishedOrder.objects.filter(benchmark=benchmark))
