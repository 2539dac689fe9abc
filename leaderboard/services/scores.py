"""Writing scores in bulk: columns of a submission's scores, packed a row per submission
and metric (PostgreSQL's binary COPY of the packs; a plain insert elsewhere)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from django.db import IntegrityError, connection

from leaderboard.models import Dataset, ScorePack, Submission
from leaderboard.score_packs import PackRefused, scores_pack, scores_unpack
from leaderboard.services.inputs import ScoreBlock, ScoreInput


def score_columns(
    scores: Sequence[ScoreInput], *, datasets: dict, metrics: dict, primary_pk: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dataset keys, metric keys, folds (-1 = none) and values of checked scores;
    ``datasets`` maps each name to its key."""
    if isinstance(scores, ScoreBlock):
        # Codes of names this block does not use may be missing from ``datasets``.
        dataset_pk = np.array(
            [datasets.get(name, -1) for name in scores.datasets],
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
        np.array([datasets[score.dataset] for score in scores], dtype=np.int64),
        np.array(
            [metrics[score.metric].pk if score.metric else primary_pk for score in scores],
            dtype=np.int64,
        ),
        np.array([-1 if score.fold is None else score.fold for score in scores], dtype=np.int64),
        np.array([score.value for score in scores], dtype=np.float64),
    )


class ScoreCounts(NamedTuple):
    """What a submission's scores cover (``Submission``'s counts)."""

    n_scores: int
    n_datasets: int
    n_folds: int  # distinct fold numbers


def score_counts(scores: Sequence[ScoreInput]) -> ScoreCounts:
    """The counts of one entry's scores."""
    if isinstance(scores, ScoreBlock):
        folds = np.unique(scores.folds)
        return ScoreCounts(
            len(scores), len(np.unique(scores.dataset_codes)), int((folds >= 0).sum())
        )
    return ScoreCounts(
        len(scores),
        len({score.dataset for score in scores}),
        len({score.fold for score in scores if score.fold is not None}),
    )


@dataclass(frozen=True)
class ScoreColumns:
    """Scores to store, as columns of primary keys (fold -1 = no fold)."""

    submission: np.ndarray
    dataset: np.ndarray
    metric: np.ndarray
    fold: np.ndarray
    value: np.ndarray


_PACK_COLUMNS = ("submission_id", "metric_id", "datasets", "counts", "folds", "scores")


def scores_insert(columns: ScoreColumns, *, benchmark_id: int) -> None:
    """Store scores of submissions to one benchmark as one pack per submission and metric
    (see ``ScorePack``).

    Runs inside the caller's transaction. Refuses (IntegrityError, as the database did
    when a score was a row) a value that is not finite, a second score for the same
    dataset and fold, or a dataset key that is not the benchmark's; those datasets stay
    locked against deletion until the caller commits. The submission and metric keys are
    foreign keys, checked by the database at commit.
    """
    if not len(columns.value):
        return
    submission = np.asarray(columns.submission, dtype=np.int64)
    metric = np.asarray(columns.metric, dtype=np.int64)
    order = np.lexsort((metric, submission))
    submission, metric = submission[order], metric[order]
    dataset = np.asarray(columns.dataset, dtype=np.int64)[order]
    fold = np.asarray(columns.fold, dtype=np.int64)[order]
    value = np.asarray(columns.value, dtype=np.float64)[order]
    starts = np.flatnonzero(
        np.r_[True, (submission[1:] != submission[:-1]) | (metric[1:] != metric[:-1])]
    )
    stops = np.r_[starts[1:], len(value)]
    rows = []
    try:
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
            pack = scores_pack(dataset[start:stop], fold[start:stop], value[start:stop])
            owner = (int(submission[start]), int(metric[start]))
            rows.append((*owner, pack.datasets, pack.counts, pack.folds, pack.scores))
    except PackRefused as refused:
        raise IntegrityError(str(refused)) from refused
    _dataset_references_lock(benchmark_id, np.unique(dataset).tolist())
    if connection.vendor != "postgresql":
        ScorePack.objects.bulk_create(
            ScorePack(**dict(zip(_PACK_COLUMNS, row, strict=True))) for row in rows
        )
        return
    with connection.cursor() as cursor, connection.wrap_database_errors:
        with cursor.cursor.copy(
            f"COPY {ScorePack._meta.db_table} ({', '.join(_PACK_COLUMNS)}) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["int8", "int8", "int8[]", "bytea", "bytea", "bytea"])
            for row in rows:
                copy.write_row(row)


def _dataset_references_lock(benchmark_id: int, wanted: list[int]) -> None:
    """Every key is a dataset of the benchmark, locked FOR KEY SHARE on PostgreSQL (as a
    foreign key's check locks it) until the transaction ends. One statement."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM (SELECT 1 FROM leaderboard_dataset "
                "WHERE id = ANY(%s) AND benchmark_id = %s FOR KEY SHARE) locked",
                [wanted, benchmark_id],
            )
            (found,) = cursor.fetchone()
    else:
        found = Dataset.objects.filter(pk__in=wanted, benchmark_id=benchmark_id).count()
    if found != len(wanted):
        raise IntegrityError("a score refers to a dataset its benchmark does not have")


def dataset_scores_delete(*, dataset: Dataset) -> None:
    """Remove a dataset's scores from every pack that holds some (a pack left empty goes),
    and recount their submissions. For a dataset no accepted or pending result uses."""
    owners = ScorePack.objects.filter(datasets__has=dataset.pk).values("submission_id")
    # The submissions first, in key order: two deletions that rewrite packs of the same
    # submission recount it one after the other, from what the other committed.
    list(Submission.objects.select_for_update().filter(pk__in=owners).order_by("pk"))
    packs = list(ScorePack.objects.select_for_update().filter(datasets__has=dataset.pk))
    for pack in packs:
        scores = scores_unpack(pack.datasets, pack.counts, pack.folds, pack.scores)
        kept = scores.dataset != dataset.pk
        if not kept.any():
            pack.delete()
            continue
        rest = scores_pack(scores.dataset[kept], scores.fold[kept], scores.value[kept])
        pack.datasets, pack.counts, pack.folds, pack.scores = (
            rest.datasets,
            rest.counts,
            rest.folds,
            rest.scores,
        )
        pack.save(update_fields=["datasets", "counts", "folds", "scores"])
    for submission in Submission.objects.filter(pk__in={p.submission_id for p in packs}):
        stored = [
            scores_unpack(p.datasets, p.counts, p.folds, p.scores)
            for p in submission.score_packs.all()
        ]
        dataset_keys = {d for s in stored for d in s.dataset.tolist()}
        folds = {f for s in stored for f in s.fold.tolist() if f >= 0}
        submission.n_scores = sum(len(s.value) for s in stored)
        submission.n_datasets, submission.n_folds = len(dataset_keys), len(folds)
        submission.save(update_fields=["n_scores", "n_datasets", "n_folds"])
