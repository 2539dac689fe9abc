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
    standard_errors : ndarray, shape (n, m), optional
        The standard error the source gave with each dataset-level score (Every Eval
        Ever, lm-eval's ``_stderr``, "x ± s"), in the metric's units; ``NaN`` where it
        gave none. The within-dataset view tests a pair by them where a dataset has no
        folds (:func:`estimation.core.within_dataset.standard_error_tests`).
    """

    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    values: np.ndarray
    kind: ValueKind = "score"
    higher_is_better: bool = True
    fold_values: np.ndarray | None = None
    standard_errors: np.ndarray | None = None

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
        if self.standard_errors is not None:
            errors = np.array(self.standard_errors, dtype=float)
            if errors.shape != (n, m):
                raise ValueError(f"standard_errors has shape {errors.shape}, expected ({n}, {m})")
            if (np.isinf(errors) | (errors < 0)).any():
                raise ValueError("standard_errors must be finite and >= 0, or NaN (none given)")
            errors.setflags(write=False)
            object.__setattr__(self, "standard_errors", errors)

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


def _round_significant(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (deterministic, vectorised)."""
    out = values.copy()
    finite = np.isfinite(values) & (values != 0)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log10(np.abs(np.where(finite, values, 1.0)))).astype(np.int64)
    # Far from 1 the scaling of numpy's round leaves the float range: keep those as they are.
    finite &= np.abs(exponent) < 280
    if not finite.any():
        return out
    present = exponent[finite]
    lowest = int(present.min())
    counts = np.bincount(present - lowest)
    with np.errstate(over="ignore", invalid="ignore"):
        for e in (np.flatnonzero(counts) + lowest).tolist():
            np.copyto(out, np.round(values, digits - 1 - e), where=finite & (exponent == e))
    return out


# --------------------------------------------------------------------------------------
# Exact paired differences: scores on a decimal grid

GRID_DENOMINATORS = (1, 2520, 25200)
"""Fold counts the grid recognises in a mean: 1 (plain decimals), then lcm(1..10) = 2520
(means of 1 to 10 folds, and 12, 14, 15, 18, 20, 21, 24, 28, 30, ...), then 25200 =
2520 * 10 (also 16, 25, 50, 75, 100 folds, as repeated cross-validation gives)."""

GRID_MAX_DECIMALS = 14
GRID_RELATIVE_TOLERANCE = 1e-14
"""A value is on the grid of ``1 / (10**D * L)`` when ``value * 10**D * L`` is within
this relative distance of an integer. A fold mean is rounded at its 15th significant
digit (at most 5e-15 of it) and the products add two roundings (2.2e-16 each)."""

GRID_MAX_NUMERATOR = 1e12
"""The largest numerator accepted: there the tolerance is 0.01, so the integer is
decided (a value with more digits than this is compared as a float)."""

_EXACT_INTEGERS = 2.0**52  # numerators up to this subtract exactly in float64


@dataclass(frozen=True, eq=False)
class DecimalGrid:
    """Scores of each column as exact integer numerators over a common denominator.

    Built by :func:`decimal_grid`. ``denominators[j]`` is ``10**D * L`` for a column on
    its grid (0 for one that is not), ``numerators[:, j]`` the integers (as floats,
    exact) for a column on the grid and the values themselves for one that is not, and
    ``largest[j]`` the largest numerator in absolute value.
    """

    values: np.ndarray
    numerators: np.ndarray
    denominators: np.ndarray
    largest: np.ndarray

    def pair_numerators(
        self, a: int, others: Any, rows: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Numerator differences of column ``a`` minus each column of ``others`` over
        ``rows`` (all when None), shape (len(others), rows), and each pair's denominator
        (0: the pair is not on a common grid and its row holds the float differences).

        Both columns on their grids and their numerators over the pair's common
        denominator (the lcm of theirs) below 2**52: exact integers, proportional to the
        exact differences. Otherwise the float differences, as scipy takes them.
        """
        others = np.atleast_1d(np.asarray(others, dtype=np.intp))
        if rows is None:
            rows = slice(None)
        den_a = self.denominators[a]
        den_b = self.denominators[others]
        common = np.lcm(den_a, den_b)
        scale_a = np.where(common > 0, common // np.maximum(den_a, 1), 0)
        scale_b = np.where(common > 0, common // np.maximum(den_b, 1), 0)
        exact = (
            (common > 0)
            & (self.largest[a] * scale_a <= _EXACT_INTEGERS)
            & (self.largest[others] * scale_b <= _EXACT_INTEGERS)
        )
        first = self.numerators[rows, a]
        second = self.numerators[rows][:, others].T
        with np.errstate(over="ignore", invalid="ignore"):
            out = first * scale_a[:, None].astype(float) - second * scale_b[:, None].astype(float)
            if not exact.all():
                loose = ~exact
                out[loose] = self.values[rows, a][None, :] - self.values[rows][:, others[loose]].T
        return out, np.where(exact, common, 0)

    def pair_differences(self, a: int, b: int, rows: Any = None) -> np.ndarray:
        """``values[rows, a] - values[rows, b]``, exact where the pair is on a grid: the
        double nearest to the exact difference, so differences equal in exact arithmetic
        are equal doubles (and the float difference where it is not)."""
        numerators, denominator = self.pair_numerators(a, [b], rows)
        if denominator[0] == 0:
            return numerators[0]
        return numerators[0] / float(denominator[0])


def decimal_grid(values: Any) -> DecimalGrid:
    """The scores of each column of ``values`` (n, m) as exact integers over ``10**D * L``.

    Notes
    -----
    Scores are decimals (CSV input: 0.8534, 97.25) or means of decimal fold scores over
    1, 2, 3, ... folds, so each is an exact rational whose denominator divides
    ``10**D * L`` for the decimals ``D`` of the input and an ``L`` that the fold count
    divides (:data:`GRID_DENOMINATORS`). The double of such a value carries float noise
    (0.70 - 0.68 and 0.52 - 0.50 are 0.019999999999999907 and 0.020000000000000018; a
    3-fold mean is rounded in its 15th digit), which would split differences that are
    equal in exact arithmetic, ties of the signed-rank test. On the grid the noise is
    gone: ``value * 10**D * L`` rounded to the nearest integer is the exact numerator
    (within :data:`GRID_RELATIVE_TOLERANCE` of it), and integers below 2**52 subtract
    exactly. Each column takes the smallest ``D`` (0 to :data:`GRID_MAX_DECIMALS`) and
    the first ``L`` at which all its values are on the grid with numerators up to
    :data:`GRID_MAX_NUMERATOR`; a column with no such grid (continuous values, more
    than 12 significant digits, decimals beyond the 14th, means of 11, 13, 17 ... folds)
    is compared as floats, as scipy compares it.
    The decision is per column, so a pair's result does not depend on the other
    columns of the table. Cost: a few passes over ``n x m`` values (a probe value per
    column first), nothing per pair.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-D (observations x columns), got {values.ndim}-D")
    m = values.shape[1]
    numerators = values.copy()
    denominators = np.zeros(m, dtype=np.int64)
    present = np.isfinite(values)
    has_value = present.any(axis=0)
    magnitude = np.max(np.abs(np.where(present, values, 0.0)), axis=0, initial=0.0)
    # Columns without a value are on every grid.
    denominators[~has_value] = 1
    # A value per column to test first (its first present one): most columns fail there.
    probe = np.zeros(m)  # with no rows, no column has a value
    if values.shape[0]:
        probe = values[0].copy()
        gaps = np.flatnonzero(~present[0] & has_value)
        probe[gaps] = values[present[:, gaps].argmax(axis=0), gaps]
    undecided = has_value.copy()
    for lattice in GRID_DENOMINATORS:
        for decimals in range(GRID_MAX_DECIMALS + 1):
            scale = 10.0**decimals * lattice
            # a column beyond the float range at this scale is not reachable; its
            # product may overflow, and is masked out
            with np.errstate(over="ignore", invalid="ignore"):
                reachable = undecided & (magnitude * scale <= GRID_MAX_NUMERATOR)
                if not reachable.any():
                    break
                candidates = np.flatnonzero(reachable & _on_grid(probe * scale))
            if candidates.size == 0:
                continue
            scaled = values[:, candidates] * scale
            on_grid = (_on_grid(scaled) | ~present[:, candidates]).all(axis=0)
            chosen = candidates[on_grid]
            numerators[:, chosen] = np.rint(scaled[:, on_grid])
            denominators[chosen] = 10**decimals * lattice
            undecided[chosen] = False
    numerators = np.where(present, numerators, np.nan)
    largest = np.max(np.abs(np.where(present, numerators, 0.0)), axis=0, initial=0.0)
    for array in (numerators, denominators, largest):
        array.setflags(write=False)
    return DecimalGrid(
        values=values, numerators=numerators, denominators=denominators, largest=largest
    )


def _on_grid(scaled: np.ndarray) -> np.ndarray:
    """Whether each scaled value is within the grid's relative tolerance of an integer."""
    with np.errstate(invalid="ignore"):
        return np.abs(scaled - np.rint(scaled)) <= GRID_RELATIVE_TOLERANCE * np.abs(scaled)
