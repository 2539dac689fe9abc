"""A submission's scores on one metric as one row: the layout of ``ScorePack``.

Pure numpy: columns in, bytes out and back. Scores are ordered by dataset key, then fold;
the distinct dataset keys are a list column of their own (queried by the database), the
rest are little-endian arrays: scores per dataset (int32), each score's fold (int32,
-1 = none) and value (float64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COUNT = np.dtype("<i4")
FOLD = np.dtype("<i4")
VALUE = np.dtype("<f8")


class PackRefused(ValueError):
    """Columns that a pack cannot hold: what a row constraint refused before."""


@dataclass(frozen=True)
class PackedScores:
    """One pack's columns, ready to store (or as read back)."""

    datasets: list[int]  # distinct keys, ascending
    counts: bytes
    folds: bytes
    scores: bytes

    @property
    def n_scores(self) -> int:
        return len(self.scores) // VALUE.itemsize


@dataclass(frozen=True)
class ScoreArrays:
    """A pack's scores, one entry per score (fold -1 = none)."""

    dataset: np.ndarray  # int64 keys
    fold: np.ndarray  # int64
    value: np.ndarray  # float64

    def rows(self) -> list[tuple[int, int | None, float]]:
        """(dataset key, fold or None, value) of each score, as Python objects."""
        return [
            (d, None if f < 0 else f, v)
            for d, f, v in zip(
                self.dataset.tolist(), self.fold.tolist(), self.value.tolist(), strict=True
            )
        ]


def scores_pack(dataset: np.ndarray, fold: np.ndarray, value: np.ndarray) -> PackedScores:
    """Pack one submission's scores on one metric; refuses a non-finite value or a second
    score for the same dataset and fold (PackRefused)."""
    dataset = np.asarray(dataset, dtype=np.int64)
    fold = np.asarray(fold, dtype=np.int64)
    value = np.asarray(value, dtype=np.float64)
    if not np.isfinite(value).all():
        raise PackRefused("a score is not a finite number")
    if len(fold) and (fold.min() < -1 or fold.max() > np.iinfo(FOLD).max):
        raise PackRefused("a fold number does not fit 32 bits")
    order = np.lexsort((fold, dataset))
    dataset, fold, value = dataset[order], fold[order], value[order]
    repeated = (dataset[1:] == dataset[:-1]) & (fold[1:] == fold[:-1])
    if repeated.any():
        raise PackRefused("two scores for the same dataset and fold")
    keys, counts = np.unique(dataset, return_counts=True)
    return PackedScores(
        datasets=keys.tolist(),
        counts=counts.astype(COUNT).tobytes(),
        folds=fold.astype(FOLD).tobytes(),
        scores=value.astype(VALUE).tobytes(),
    )


def scores_unpack(datasets, counts, folds, scores) -> ScoreArrays:
    """A stored pack's columns (bytes or memoryviews as the driver gives them) as arrays."""
    keys = np.asarray(datasets, dtype=np.int64)
    per_dataset = np.frombuffer(counts, dtype=COUNT)
    value = np.frombuffer(scores, dtype=VALUE).astype(np.float64)
    fold = np.frombuffer(folds, dtype=FOLD).astype(np.int64)
    if len(keys) != len(per_dataset) or per_dataset.sum() != len(value) or len(fold) != len(value):
        raise ValueError("a stored score pack is inconsistent")
    return ScoreArrays(dataset=np.repeat(keys, per_dataset), fold=fold, value=value)
