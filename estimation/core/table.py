"""The input every analysis starts from: one metric's results as arrays.

A :class:`ResultTable` is what the CSV parser, the database service and a notebook
user all hand to the engine. It holds no policy: missing data, ties and folds are
resolved by the functions in :mod:`estimation.core.rankings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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


FOLD_MEAN_DIGITS = 15
"""Fold means are rounded to this many significant digits (METHODS.md section 1)."""


def fold_means(
    fold_values: Any,
    *,
    datasets: tuple[str, ...] | None = None,
    algorithms: tuple[str, ...] | None = None,
) -> np.ndarray:
    """Dataset-level scores from fold-level scores, the same bits in any fold order.

    Parameters
    ----------
    fold_values : array_like, shape (n, f, m)
        Fold scores, ``NaN`` for a missing fold.
    datasets, algorithms : tuple of str, optional
        Labels that an error message names.

    Returns
    -------
    ndarray, shape (n, m)
        The mean over each cell's folds; ``NaN`` where a cell has none.

    Notes
    -----
    METHODS.md section 1: the folds of a cell are sorted and summed with Neumaier's
    compensated summation, so the sum depends on the multiset of values only (not on
    the order the rows arrived in) and is within about one unit in the last place of
    the exact sum. The mean is then rounded to :data:`FOLD_MEAN_DIGITS` significant
    digits, the precision a double carries for decimal input: fold sets whose decimal
    means are equal get equal means (folds 0.8 and 0.9 against 0.85 and 0.85 tie at
    ``tie_tol = 0``, where the plain float mean of the first is 0.8500000000000001).
    Means that differ below the 15th significant digit tie; no metric is measured that
    finely. A cell whose sum leaves the float range is summed again with its values
    scaled by a power of two (exact), so the mean of finite values is always finite;
    a ``ValueError`` names the cell if its rounded mean would still overflow.
    """
    folds = np.asarray(fold_values, dtype=float)
    if folds.ndim != 3:
        raise ValueError(
            f"fold_values must be 3-D (datasets x folds x algorithms), got {folds.ndim}-D"
        )
    if np.isinf(folds).any():
        raise ValueError("fold_values must be finite or NaN (missing)")
    counts = (~np.isnan(folds)).sum(axis=1)
    ordered = np.sort(folds, axis=1)  # NaN sort last
    with np.errstate(invalid="ignore", divide="ignore"):
        plain = _compensated_sum(ordered) / counts
        spilled = ~np.isfinite(plain) & (counts > 0)
        if spilled.any():
            # A power of two scales exactly: the same mean as with an unbounded exponent.
            power = 2.0 ** int(np.ceil(np.log2(folds.shape[1] + 1)))
            rescaled = _compensated_sum(ordered / power) / counts * power
            plain = np.where(spilled, rescaled, plain)
    plain = np.where(counts > 0, plain, np.nan)
    rounded = _round_significant(plain, FOLD_MEAN_DIGITS)
    several = counts > 1
    out = np.where(several, rounded, plain)
    bad = several & ~np.isfinite(out) & np.isfinite(plain)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        where = (
            f"dataset {datasets[i]!r}, algorithm {algorithms[j]!r}"
            if datasets is not None and algorithms is not None
            else f"dataset index {i}, algorithm index {j}"
        )
        raise ValueError(
            f"fold means overflow: the mean of the folds of {where} exceeds the float range"
        )
    return out


def _compensated_sum(ordered: np.ndarray) -> np.ndarray:
    """Neumaier's compensated sum over axis 1, NaN skipped (vectorised over cells)."""
    total = np.zeros((ordered.shape[0], ordered.shape[2]))
    compensation = np.zeros_like(total)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(ordered.shape[1]):
            value = np.nan_to_num(ordered[:, k, :], nan=0.0)
            running = total + value
            compensation += np.where(
                np.abs(total) >= np.abs(value), (total - running) + value, (value - running) + total
            )
            total = running
    with np.errstate(invalid="ignore", over="ignore"):
        return total + compensation


def _round_significant(
    values: np.ndarray, digits: int, exponent: np.ndarray | None = None
) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (deterministic, vectorised).

    By default each value's own decimal exponent sets the digits; with ``exponent``
    (integers broadcastable to ``values``) the rounding is at the ``digits``-th
    significant digit of ``10**exponent`` instead: :func:`paired_differences` rounds a
    difference where its larger operand's 15 significant digits end.
    """
    out = values.copy()
    finite = np.isfinite(values) & (values != 0)
    if exponent is None:
        with np.errstate(divide="ignore"):
            exponent = np.floor(np.log10(np.abs(np.where(finite, values, 1.0)))).astype(np.int64)
    else:
        exponent = np.broadcast_to(np.asarray(exponent, dtype=np.int64), values.shape)
    # Far from 1 the scaling of numpy's round leaves the float range: keep those as they are.
    finite &= np.abs(exponent) < 280
    if not finite.any():
        return out
    exponent = np.where(finite, exponent, _NO_EXPONENT)
    present = exponent[finite]
    lowest = int(present.min())
    counts = np.bincount(present - lowest)
    # Whole-array passes per decimal exponent (np.round is elementwise, so the same
    # numbers as rounding each group apart, without gathering and scattering them).
    with np.errstate(over="ignore", invalid="ignore"):
        for e in (np.flatnonzero(counts) + lowest).tolist():
            np.copyto(out, np.round(values, digits - 1 - e), where=exponent == e)
    return out


def decimal_exponents(values: Any) -> np.ndarray:
    """``floor(log10 |v|)`` of each value, a very low sentinel for 0 and NaN (an operand
    that sets no digits)."""
    values = np.asarray(values, dtype=float)
    usable = np.isfinite(values) & (values != 0)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log10(np.abs(np.where(usable, values, 1.0)))).astype(np.int64)
    return np.where(usable, exponent, _NO_EXPONENT)


_NO_EXPONENT = -(2**20)


def paired_differences(
    first: Any,
    second: Any,
    *,
    out: np.ndarray | None = None,
    exponents: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """``first - second`` with the float noise of decimal input removed: the fold-mean rule.

    Parameters
    ----------
    first, second : array_like
        Paired scores (broadcastable), ``NaN`` for a missing one.
    out : ndarray, optional
        Where to write the differences.
    exponents : pair of ndarray, optional
        :func:`decimal_exponents` of ``first`` and ``second``, when the caller has them.

    Returns
    -------
    ndarray
        The differences, each rounded at the :data:`FOLD_MEAN_DIGITS`-th significant
        digit of its larger operand.

    Notes
    -----
    Scores carry :data:`FOLD_MEAN_DIGITS` significant digits (a fold mean is rounded to
    them, and CSV input rarely has more), so their difference is exact at the last digit
    of the larger one, and the float subtraction misses that exact decimal difference by
    less than half a unit there (two representation errors and one rounding, each at
    most half an ulp, are below 3.4e-16 of the larger operand; the unit is at least
    1e-15 of it). Rounding there (:func:`_round_significant`, the fold means' function)
    gives the same double for differences that are equal in decimal: 0.70 - 0.68 and
    0.52 - 0.50 are 0.019999999999999907 and 0.020000000000000018 in floats, 0.02 both
    here. Differences below the 15th significant digit of the operands are zero, as fold
    means that differ only there tie. Operands beyond 1e280 in size are not rounded.
    """
    difference = np.subtract(first, second, out=out)
    if exponents is None:
        exponents = (decimal_exponents(first), decimal_exponents(second))
    larger = np.maximum(*exponents)
    rounded = _round_significant(difference, FOLD_MEAN_DIGITS, exponent=larger)
    if out is None:
        return rounded
    out[...] = rounded
    return out
