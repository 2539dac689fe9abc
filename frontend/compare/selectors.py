"""Reads for the comparison pages: a few algorithms' dataset-level values per metric."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from estimation.services import result_table_build
from leaderboard.models import Benchmark, Metric


def dataset_values(
    *, benchmark: Benchmark, metric: Metric, algorithms: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """{algorithm: {dataset: value}} of ``algorithms`` (every public one when None).

    The values are the analysis's own input (:func:`estimation.services.result_table_build`):
    the same superseding of older accepted submissions, and where folds exist the engine's
    fold mean (:func:`estimation.core.table.fold_means`, exact summation), so a pair that
    the snapshot ranks as tied shows equal values here, whatever folds are missing.
    """
    table = result_table_build(benchmark=benchmark, metric=metric)
    wanted = set(table.algorithms if algorithms is None else algorithms)
    values: dict[str, dict[str, float]] = {}
    for j, algorithm in enumerate(table.algorithms):
        if algorithm not in wanted:
            continue
        column = table.values[:, j]
        present = np.flatnonzero(~np.isnan(column))
        values[algorithm] = {table.datasets[i]: float(column[i]) for i in present.tolist()}
    return values
