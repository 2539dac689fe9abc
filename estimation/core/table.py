"""The input every analysis starts from: one metric's results as arrays.

A :class:`ResultTable` is what the CSV parser, the database service and a notebook
user all hand to the engine. It holds no policy: missing data, ties and folds are
resolved by the functions in :mod:`estimation.core.rankings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

ValueKind = Literal["score", "rank"]


@dataclass(frozen=True, eq=False)
class ResultTable:
    """Results of ``m`` algorithms on ``n`` datasets for one metric.

    Attributes
    ----------
    datasets, algorithms : tuple of str
        Row and column labels, in a stable order.
    values : ndarray, shape (n, m)
        Dataset-level values; ``NaN`` where an algorithm has no result. For
        ``kind="score"`` these are scores (the fold mean when folds exist); for
        ``kind="rank"`` they are given positions, 1 = best, ``NaN`` for an algorithm
        not listed on that dataset (ranks below the listed top are unknown).
    kind : {"score", "rank"}
        Whether ``values`` are scores or published rankings.
    higher_is_better : bool
        Direction of the metric (ignored for ``kind="rank"``).
    fold_values : ndarray, shape (n, f, m), optional
        Fold-level scores, ``NaN``-padded when datasets have fewer than ``f`` folds.
        The same folds are used for every algorithm of a dataset.
    """

    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    values: np.ndarray
    kind: ValueKind = "score"
    higher_is_better: bool = True
    fold_values: np.ndarray | None = None

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=float)
        n, m = len(self.datasets), len(self.algorithms)
        if values.shape != (n, m):
            raise ValueError(f"values has shape {values.shape}, expected ({n}, {m})")
        if np.isinf(values).any():
            raise ValueError("values must be finite or NaN (missing)")
        if self.kind not in ("score", "rank"):
            raise ValueError(f"kind must be 'score' or 'rank', got {self.kind!r}")
        values.setflags(write=False)
        object.__setattr__(self, "values", values)
        if self.fold_values is not None:
            folds = np.asarray(self.fold_values, dtype=float)
            if folds.ndim != 3 or folds.shape[0] != n or folds.shape[2] != m:
                raise ValueError(f"fold_values has shape {folds.shape}, expected ({n}, f, {m})")
            folds.setflags(write=False)
            object.__setattr__(self, "fold_values", folds)

    @property
    def n_datasets(self) -> int:
        return len(self.datasets)

    @property
    def n_algorithms(self) -> int:
        return len(self.algorithms)

    @property
    def has_folds(self) -> bool:
        return self.fold_values is not None

    def oriented(self) -> np.ndarray:
        """Values flipped so that larger is always better (scores) or rank-negated."""
        if self.kind == "rank":
            return -self.values
        return self.values if self.higher_is_better else -self.values
