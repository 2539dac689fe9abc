"""Writing scores in bulk: columns of a submission's scores, and PostgreSQL's binary COPY
of them (a plain insert elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection

from leaderboard.models import (
    Score,
)
from leaderboard.services.inputs import ScoreBlock, ScoreInput


def score_columns(
    scores: Sequence[ScoreInput], *, datasets: dict, metrics: dict, primary_pk: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dataset keys, metric keys, folds (-1 = none) and values of checked scores."""
    if isinstance(scores, ScoreBlock):
        # Codes of names this block does not use may be missing from ``datasets``.
        dataset_pk = np.array(
            [datasets[name].pk if name in datasets else -1 for name in scores.datasets],
            dtype=np.int64,
        )
        metric_pk = np.array(
            [primary_pk] + [metrics[name].pk if name in metrics else -1 for name in scores.metrics],
            dtype=np.int64,
        )
        return (
            dataset_pk[scores.dataset_codes],
            metric_pk[scores.metric_codes + 1],
            scores.folds.astype(np.int64, copy=False),
            scores.values.astype(np.float64, copy=False),
        )
    return (
        np.array([datasets[score.dataset].pk for score in scores], dtype=np.int64),
        np.array(
            [metrics[score.metric].pk if score.metric else primary_pk for score in scores],
            dtype=np.int64,
        ),
        np.array([-1 if score.fold is None else score.fold for score in scores], dtype=np.int64),
        np.array([score.value for score in scores], dtype=np.float64),
    )


@dataclass(frozen=True)
class ScoreColumns:
    """Score rows to store, as columns of primary keys (fold -1 = no fold)."""

    submission: np.ndarray
    dataset: np.ndarray
    metric: np.ndarray
    fold: np.ndarray
    value: np.ndarray


def scores_insert(columns: ScoreColumns) -> None:
    """Store score rows: one binary COPY on PostgreSQL, batched INSERTs elsewhere.

    COPY runs inside the caller's transaction; the table's checks still apply, and its
    references are checked once per statement (see ``Score``). The dataset and metric
    keys come from the benchmark's own rows, read in this transaction.
    """
    if not len(columns.value):
        return
    if connection.vendor != "postgresql":
        Score.objects.bulk_create(
            (
                Score(
                    submission_id=s, dataset_id=d, metric_id=m, fold=None if f < 0 else f, value=v
                )
                for s, d, m, f, v in zip(
                    columns.submission.tolist(),
                    columns.dataset.tolist(),
                    columns.metric.tolist(),
                    columns.fold.tolist(),
                    columns.value.tolist(),
                    strict=True,
                )
            ),
            batch_size=5000,
        )
        return
    with connection.cursor() as cursor, connection.wrap_database_errors:
        with cursor.cursor.copy(
            f"COPY {Score._meta.db_table} (submission_id, dataset_id, metric_id, fold, value) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            for chunk in score_copy_chunks(
                columns.submission, columns.dataset, columns.metric, columns.fold, columns.value
            ):
                copy.write(chunk)


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
_COPY_TRAILER = (-1).to_bytes(2, "big", signed=True)


def _copy_dtype(with_fold: bool) -> np.dtype:
    """One score tuple of PostgreSQL's binary COPY format (big-endian, length-prefixed)."""
    fields = [("count", ">i2")]
    for name, kind in (("submission", ">i8"), ("dataset", ">i8"), ("metric", ">i8")):
        fields += [(f"{name}_length", ">i4"), (name, kind)]
    fields += [("fold_length", ">i4")] + ([("fold", ">i4")] if with_fold else [])
    fields += [("value_length", ">i4"), ("value", ">f8")]
    return np.dtype(fields)


def score_copy_buffer(submission, dataset, metric, fold, value) -> bytes:
    """Score columns (numpy arrays; fold -1 = no fold) as one binary COPY stream.

    Column order: submission_id, dataset_id, metric_id, fold, value.
    """
    return b"".join(score_copy_chunks(submission, dataset, metric, fold, value))


def score_copy_chunks(
    submission, dataset, metric, fold, value, *, rows: int = 65536
) -> Iterator[bytes]:
    """:func:`score_copy_buffer` in pieces of at most ``rows`` tuples, each built by numpy
    in one pass (no Python object per row): a million rows never sit in memory as one
    copy stream (58 MB, and as much again for its ``bytes``)."""
    yield _COPY_HEADER
    fold = np.asarray(fold)
    for with_fold, keep in ((True, fold >= 0), (False, fold < 0)):
        where = np.flatnonzero(keep)
        dtype = _copy_dtype(with_fold)
        for start in range(0, len(where), rows):
            taken = where[start : start + rows]
            tuples = np.empty(len(taken), dtype=dtype)
            tuples["count"] = 5
            for name, column in (
                ("submission", submission),
                ("dataset", dataset),
                ("metric", metric),
                ("value", value),
            ):
                tuples[f"{name}_length"] = 8
                tuples[name] = np.asarray(column)[taken]
            if with_fold:
                tuples["fold_length"] = 4
                tuples["fold"] = fold[taken]
            else:
                tuples["fold_length"] = -1
            yield tuples.tobytes()
    yield _COPY_TRAILER
