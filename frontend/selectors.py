"""Reads that several pages share: dataset-level values as the analysis computes them,
from the accepted scores now (:func:`dataset_values`, :func:`dataset_scores_now`) or as
a version's analysis ranked them (:func:`version_dataset_scores`, its snapshot's
``dataset_scores`` section).

One definition of a dataset's score on every page: where folds exist, the engine's fold
mean (:func:`estimation.core.table.fold_means`: exact summation, rounded to the digits a
double carries), never a plain mean over folds, so a pair the snapshot ranks as tied
shows equal values on every page, whatever folds are missing. The readers of accepted
values are one read (:func:`~estimation.tables.result_table_build`) and one cell rule
(:func:`_present_cells`) in two shapes; :func:`fold_mean_values` places a pending
submission's rows by the same fold rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import TypeVar

import numpy as np

from estimation.core.contract import DatasetScoresSection
from estimation.core.table import ResultTable, fold_means
from estimation.selectors import snapshot_section
from estimation.tables import result_table_build
from leaderboard.models import Benchmark, Metric

Key = TypeVar("Key", bound=Hashable)


def dataset_values(
    *, benchmark: Benchmark, metric: Metric, algorithms: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """{algorithm: {dataset: value}} of ``algorithms`` (every one with an accepted score
    when None).

    The values are the analysis's own input (:func:`estimation.tables.result_table_build`):
    the same superseding of older accepted submissions, the same fold means.
    """
    return table_values(result_table_build(benchmark=benchmark, metric=metric), algorithms)


def table_values(
    table: ResultTable, algorithms: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """{algorithm: {dataset: value}} of ``algorithms`` of a table already built (see
    :func:`dataset_values`); an algorithm of the table without a value maps to {}."""
    values: dict[str, dict[str, float]] = {
        algorithm: {} for algorithm in _wanted(table, algorithms)
    }
    for algorithm, dataset, value in _present_cells(table, algorithms):
        values[algorithm][dataset] = value
    return values


def dataset_scores_now(*, benchmark: Benchmark, metric: Metric) -> dict[str, dict[str, float]]:
    """{dataset: {algorithm: value}}: :func:`dataset_values` by dataset (the same read)."""
    table = result_table_build(benchmark=benchmark, metric=metric)
    return _nested({(dataset, algorithm): v for algorithm, dataset, v in _present_cells(table)})


def _wanted(table: ResultTable, algorithms: Sequence[str] | None) -> list[str]:
    chosen = set(table.algorithms if algorithms is None else algorithms)
    return [algorithm for algorithm in table.algorithms if algorithm in chosen]


def _present_cells(
    table: ResultTable, algorithms: Sequence[str] | None = None
) -> Iterator[tuple[str, str, float]]:
    """(algorithm, dataset, value) of every cell of ``table`` with a value, algorithm by
    algorithm in the table's order: the one read behind the shapes above."""
    column_of = {algorithm: j for j, algorithm in enumerate(table.algorithms)}
    for algorithm in _wanted(table, algorithms):
        column = table.values[:, column_of[algorithm]]
        for i in np.flatnonzero(~np.isnan(column)).tolist():
            yield algorithm, table.datasets[i], float(column[i])


def version_dataset_scores(
    *, snapshot_id: int, datasets: Iterable[str] | None = None
) -> dict[str, dict[str, float]] | None:
    """{dataset: {algorithm: value}} of ``datasets`` (every one when None) as the
    snapshot's analysis ranked them: its ``dataset_scores`` section, exact whatever was
    accepted since. None when the snapshot does not store them (an engine before 0.10.0,
    or a board beyond ``MAX_SCORE_CELLS``). One query at most: the section is parsed once
    per process (:func:`estimation.selectors.snapshot_section`)."""
    section = snapshot_section(snapshot_id=snapshot_id, name="dataset_scores")
    if not isinstance(section, DatasetScoresSection):
        return None
    wanted = section.datasets if datasets is None else datasets
    return {name: section.column(name) for name in wanted if name in section.datasets}


def fold_mean_values(
    rows: Iterable[tuple[Key, str, int | None, float]],
) -> dict[Key, dict[str, float]]:
    """{key: {dataset: value}} from (key, dataset, fold, value) rows outside the analysis
    (a pending submission's scores), as :func:`~estimation.tables.result_table_build`
    would place them once accepted.

    Each (key, dataset, fold) is given once (a submission holds a cell once). A cell's
    folds decide its value through the engine's fold mean; a value without a fold counts
    only where the cell has no folds, as in the analysis.
    """
    folded: dict[tuple[Key, str], list[float]] = defaultdict(list)
    unfolded: dict[tuple[Key, str], float] = {}
    for key, dataset, fold, value in rows:
        if fold is None:
            unfolded[(key, dataset)] = value
        else:
            folded[(key, dataset)].append(value)
    if not folded:
        return _nested(unfolded)
    keys = list(dict.fromkeys(key for key, _ in folded))
    datasets = list(dict.fromkeys(dataset for _, dataset in folded))
    row = {dataset: i for i, dataset in enumerate(datasets)}
    column = {key: j for j, key in enumerate(keys)}
    cube = np.full((len(datasets), max(map(len, folded.values())), len(keys)), np.nan)
    for (key, dataset), values in folded.items():
        cube[row[dataset], : len(values), column[key]] = values
    means = fold_means(cube, datasets=tuple(datasets), algorithms=tuple(map(str, keys)))
    return _nested(
        unfolded
        | {(key, dataset): float(means[row[dataset], column[key]]) for key, dataset in folded}
    )


def _nested(cells: dict[tuple[Key, str], float]) -> dict[Key, dict[str, float]]:
    nested: dict[Key, dict[str, float]] = defaultdict(dict)
    for (key, dataset), value in cells.items():
        nested[key][dataset] = value
    return dict(nested)
