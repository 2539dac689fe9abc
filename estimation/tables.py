"""Reading a benchmark's input: accepted scores of one metric as a ResultTable (newest
score per cell, fold means when folds exist), the benchmark's rule for algorithms with
empty cells applied to it (:func:`analysis_table_build`), the analysis settings, and the
fingerprint of both that a snapshot is keyed by."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Literal, cast

import numpy as np

from estimation.core.analysis import (
    ENGINE_VERSION,
    AnalysisSettings,
)
from estimation.core.contract import (
    SCHEMA_VERSION,
    SnapshotPayload,
)
from estimation.core.table import ResultTable, fold_means
from estimation.core.wording import agreeing, counted
from leaderboard.incomplete import IncompleteDecision, incomplete_decide, not_ranked_label
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import (
    accepted_score_columns,
    accepted_submissions,
    submission_standard_errors,
)


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
    (:func:`leaderboard.selectors.accepted_submissions`). The standard error a source
    gave with a dataset-level score (kept in its submission's provenance) comes with the
    cell; the table has none when no cell has one.
    """
    if submissions is None:
        submissions = accepted_submissions(benchmark=benchmark)
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
    cells = _Cells(datasets, dataset[~folded], algorithm[~folded], (n, m))
    return ResultTable(
        datasets=datasets,
        algorithms=algorithms,
        values=values,
        kind="rank" if benchmark.ranking_only else "score",
        higher_is_better=metric.higher_is_better,
        fold_values=fold_values,
        standard_errors=_standard_errors(
            cells, columns.priority[keep][~folded], submissions, metric.name
        ),
    )


@dataclass(frozen=True)
class _Cells:
    """The dataset-level cells of a table: each row's dataset and algorithm code."""

    datasets: tuple[str, ...]
    dataset: np.ndarray
    algorithm: np.ndarray
    shape: tuple[int, int]


def _standard_errors(
    cells: _Cells, priority: np.ndarray, submissions: list[tuple[int, int]], metric: str
) -> np.ndarray | None:
    """The standard error of each dataset-level cell, from the provenance of the
    submission whose score the cell holds (``priority``: its position in
    ``submissions``); ``None`` when no cell has one (fold scores have none)."""
    holders = [submissions[p][0] for p in priority.tolist()]
    spreads = submission_standard_errors(set(holders))
    if not spreads:
        return None
    errors = np.full(cells.shape, np.nan)
    for d, a, holder in zip(cells.dataset.tolist(), cells.algorithm.tolist(), holders, strict=True):
        spread = spreads.get(holder, {}).get(f"{cells.datasets[d]} | {metric}")
        if spread is not None:
            errors[d, a] = spread
    return errors if np.isfinite(errors).any() else None


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


@dataclass(frozen=True)
class NotRanked:
    """An algorithm held back from the analysis for empty cells (policy ``exclude``)."""

    algorithm: str
    n_have: int
    n_board: int


def analysis_table_build(
    table: ResultTable, *, benchmark: Benchmark
) -> tuple[ResultTable, tuple[NotRanked, ...]]:
    """The table the engine analyses, under the benchmark's ``incomplete_submissions``
    policy (:func:`leaderboard.incomplete.incomplete_decide`), and the algorithms it
    holds back.

    ``exclude`` leaves out the algorithms short of the board's datasets (the rest is as
    it was); ``rank_on_what_it_has`` keeps only the board's datasets, where
    :func:`analysis_settings_for` ranks a missing result last; ``drop_datasets`` passes
    the table on (the ``missing`` policy alone decides, as before the setting existed).
    """
    decision = incomplete_decide(
        ~np.isnan(table.values),
        policy=benchmark.incomplete_submissions,
        min_coverage=benchmark.min_coverage,
        ranks=table.kind == "rank",
    )
    if decision.held_back.any():
        return _columns(table, ~decision.held_back), _not_ranked(table, decision)
    policy = Benchmark.IncompleteSubmissions.RANK_ON_WHAT_IT_HAS
    if benchmark.incomplete_submissions == policy and table.kind != "rank" and decision.board.any():
        return _rows(table, decision.board), ()
    return table, ()


def _not_ranked(table: ResultTable, decision: IncompleteDecision) -> tuple[NotRanked, ...]:
    return tuple(
        NotRanked(
            algorithm=table.algorithms[j], n_have=int(decision.n_have[j]), n_board=decision.n_board
        )
        for j in np.flatnonzero(decision.held_back).tolist()
    )


def _columns(table: ResultTable, keep: np.ndarray) -> ResultTable:
    return ResultTable(
        datasets=table.datasets,
        algorithms=tuple(a for a, k in zip(table.algorithms, keep, strict=True) if k),
        values=table.values[:, keep],
        kind=table.kind,
        higher_is_better=table.higher_is_better,
        fold_values=None if table.fold_values is None else table.fold_values[:, :, keep],
        standard_errors=None if table.standard_errors is None else table.standard_errors[:, keep],
    )


def _rows(table: ResultTable, keep: np.ndarray) -> ResultTable:
    return ResultTable(
        datasets=tuple(d for d, k in zip(table.datasets, keep, strict=True) if k),
        algorithms=table.algorithms,
        values=table.values[keep],
        kind=table.kind,
        higher_is_better=table.higher_is_better,
        fold_values=None if table.fold_values is None else table.fold_values[keep],
        standard_errors=None if table.standard_errors is None else table.standard_errors[keep],
    )


def analysis_settings_for(*, benchmark: Benchmark) -> AnalysisSettings:
    missing = benchmark.missing_policy
    if benchmark.incomplete_submissions == Benchmark.IncompleteSubmissions.RANK_ON_WHAT_IT_HAS:
        missing = Benchmark.MissingPolicy.WORST  # on the board's datasets only (above)
    return AnalysisSettings(
        # The fields' choices are these literals (and AnalysisSettings checks them).
        missing=cast("Literal['complete', 'worst']", missing),
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


def not_ranked_noted(payload: SnapshotPayload, not_ranked: tuple[NotRanked, ...]):
    """The payload with one note more on the board: the algorithms held back for empty
    cells, each "not ranked: results on N of M datasets" (the shape is unchanged)."""
    if not not_ranked:
        return payload
    listed = "; ".join(
        f"{n.algorithm} ({not_ranked_label(n_have=n.n_have, n_board=n.n_board)})"
        for n in not_ranked
    )
    held = f"{counted(len(not_ranked), 'algorithm')} with empty cells"
    note = (
        f"{held} {agreeing(len(not_ranked), 'is', 'are')} left out under this benchmark's "
        f"policy, so that the board stays as it was for everyone: {listed}."
    )
    board = replace(payload.board, notes=(*payload.board.notes, note))
    return replace(payload, board=board)


def fingerprint(
    table: ResultTable, settings: AnalysisSettings, *, not_ranked: tuple[NotRanked, ...] = ()
) -> str:
    """A stable hash of everything a snapshot depends on (the algorithms held back for
    empty cells too: their note is part of the board)."""
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
    if not_ranked:  # absent otherwise: the boards without any keep their fingerprints
        header["not_ranked"] = [[n.algorithm, n.n_have, n.n_board] for n in not_ranked]
    digest.update(json.dumps(header, sort_keys=True).encode())
    digest.update(np.ascontiguousarray(table.values).tobytes())
    if table.fold_values is not None:
        digest.update(np.ascontiguousarray(table.fold_values).tobytes())
    if table.standard_errors is not None:  # absent otherwise: fingerprints stay as they were
        digest.update(b"standard_errors")
        digest.update(np.ascontiguousarray(table.standard_errors).tobytes())
    return digest.hexdigest()
