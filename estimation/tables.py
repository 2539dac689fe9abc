"""Reading a benchmark's input: accepted scores of one metric as a ResultTable (newest
score per cell, fold means when folds exist), the analysis settings, and the
fingerprint of both that a snapshot is keyed by."""

from __future__ import annotations

import hashlib
import json
from typing import Literal, cast

import numpy as np

from estimation.core.analysis import (
    ENGINE_VERSION,
    AnalysisSettings,
)
from estimation.core.contract import (
    SCHEMA_VERSION,
)
from estimation.core.table import ResultTable, fold_means
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import accepted_score_columns


def result_table_build(
    *,
    benchmark: Benchmark,
    metric: Metric,
    submissions: list[tuple[int, int]] | None = None,
) -> ResultTable:
    """Accepted scores of one metric as a ResultTable (fold means when folds exist).

    A newer accepted submission of an algorithm supersedes an older one cell by cell
    (dataset, fold). Scores are read as columns (a packed row per submission, see
    :func:`leaderboard.selectors.accepted_score_columns`) and placed with numpy in
    O(rows): only the rows of algorithms with several accepted submissions are sorted.
    ``submissions``: the accepted submissions, when the caller has read them
    (:func:`leaderboard.selectors.accepted_submissions`).
    """
    columns = accepted_score_columns(benchmark=benchmark, metric=metric, submissions=submissions)
    keep = _newest_cells(columns)
    dataset, algorithm = columns.dataset[keep], columns.algorithm[keep]
    fold, value = columns.fold[keep], columns.value[keep]
    # Codes follow name order already: keep the labels that have a cell, renumbered.
    rows, dataset = _present(dataset, len(columns.dataset_names))
    cols, algorithm = _present(algorithm, len(columns.algorithm_names))
    datasets = tuple(columns.dataset_names[i] for i in rows.tolist())
    algorithms = tuple(columns.algorithm_names[j] for j in cols.tolist())
    n, m = len(datasets), len(algorithms)
    folded = fold >= 0
    values = np.full((n, m), np.nan)
    values[dataset[~folded], algorithm[~folded]] = value[~folded]
    fold_values = None
    if folded.any():
        fold_labels = fold[folded]
        if fold_labels.max() < 1_000_000:  # fold numbers are small: no sort needed
            folds, fold_index = _present(fold_labels, int(fold_labels.max()) + 1)
        else:
            folds, fold_index = np.unique(fold_labels, return_inverse=True)
        fold_values = np.full((n, len(folds), m), np.nan)
        fold_values[dataset[folded], fold_index, algorithm[folded]] = value[folded]
        means = fold_means(fold_values, datasets=datasets, algorithms=algorithms)
        values = np.where(np.isnan(means), values, means)
    return ResultTable(
        datasets=datasets,
        algorithms=algorithms,
        values=values,
        kind="rank" if benchmark.ranking_only else "score",
        higher_is_better=metric.higher_is_better,
        fold_values=fold_values,
    )


def _present(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The codes in ``range(size)`` that occur (ascending) and each entry's new code."""
    labels = np.flatnonzero(np.bincount(codes, minlength=size))
    renumber = np.zeros(size, dtype=np.int64)
    renumber[labels] = np.arange(len(labels))
    return labels, renumber[codes]


def _newest_cells(columns) -> np.ndarray:
    """Indices of the rows that count: per (dataset, algorithm, fold), the newest one.

    One submission holds a cell at most once (a unique constraint), so only algorithms
    with several accepted submissions can repeat a cell; only their rows are sorted.
    """
    everything = np.arange(len(columns.value))
    if not len(columns.contested):
        return everything
    contested = np.isin(columns.algorithm, columns.contested)
    rows = everything[contested]
    fold = columns.fold[rows]
    fold_labels, fold_code = np.unique(fold, return_inverse=True)
    cell = (columns.dataset[rows] * len(columns.algorithm_names) + columns.algorithm[rows]) * len(
        fold_labels
    ) + fold_code
    newest_first = np.argsort(columns.priority[rows], kind="stable")
    _, first = np.unique(cell[newest_first], return_index=True)  # the first is the newest
    return np.concatenate([everything[~contested], rows[newest_first[first]]])


def analysis_settings_for(*, benchmark: Benchmark) -> AnalysisSettings:
    return AnalysisSettings(
        # The fields' choices are these literals (and AnalysisSettings checks them).
        missing=cast("Literal['complete', 'worst']", benchmark.missing_policy),
        min_coverage=benchmark.min_coverage,
        tie_tol=benchmark.tie_tolerance,
        k=benchmark.top_k,
        alpha=benchmark.alpha,
        correction=cast("Literal['holm', 'bonferroni']", benchmark.correction),
        bootstrap=benchmark.bootstrap_size,
        seed=benchmark.seed,
        default_estimator=benchmark.default_estimator,
        control=benchmark.control_algorithm.strip() or None,
    )


def fingerprint(table: ResultTable, settings: AnalysisSettings) -> str:
    """A stable hash of everything a snapshot depends on."""
    digest = hashlib.sha256()
    header = {
        "engine": ENGINE_VERSION,
        "schema": SCHEMA_VERSION,
        "settings": settings.to_dict(),
        "datasets": table.datasets,
        "algorithms": table.algorithms,
        "kind": table.kind,
        "higher_is_better": table.higher_is_better,
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    digest.update(np.ascontiguousarray(table.values).tobytes())
    if table.fold_values is not None:
        digest.update(np.ascontiguousarray(table.fold_values).tobytes())
    return digest.hexdigest()
