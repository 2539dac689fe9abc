"""The contract's building blocks: field documentation (:func:`describe`), "not applicable"
with a reason, and pairwise matrices stored as triangles in :func:`pair_index` order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field
from typing import Any, TypeVar

import numpy as np

SCHEMA_VERSION = 5

T = TypeVar("T")


def describe(meaning: str, *, units: str = "", null: str = "", default: Any = MISSING) -> Any:
    """A dataclass field with its documentation: meaning, units and when it is null."""
    metadata = {"meaning": meaning, "units": units, "null": null}
    if default is MISSING:
        return field(metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class NotApplicable:
    """A view that does not apply to this input, or would be unreadable at its size.

    JSON: ``{"not_applicable": "<reason in plain words>"}``.
    """

    reason: str

    def __bool__(self) -> bool:  # ``if section:`` reads as "is there something to show"
        return False


def applicable(value: T | NotApplicable) -> T | None:
    """``value``, or None when it is :class:`NotApplicable`."""
    return None if isinstance(value, NotApplicable) else value


# --- pairs ------------------------------------------------------------------------------


def pair_index(i: int, j: int, m: int) -> int:
    """Position of the pair (i, j), i < j, in a triangle array: row-major over i, then j
    (the order of ``numpy.triu_indices(m, 1)``)."""
    return i * m - i * (i + 1) // 2 + (j - i - 1)


def _triangle(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(m, 1)


def plain_float(value: Any) -> float | None:
    """A plain float, None for a missing value, NaN or an infinity (JSON has neither)."""
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def floats(values: Any) -> tuple[float | None, ...]:
    """Plain floats with None for NaN and infinities (JSON has neither)."""
    array = np.asarray(values, dtype=float).ravel()
    finite = np.isfinite(array)
    as_list = array.tolist()
    if finite.all():
        return tuple(as_list)
    return tuple(v if ok else None for v, ok in zip(as_list, finite.tolist(), strict=True))


@dataclass(frozen=True)
class PairwiseMatrix:
    """An m x m matrix without its diagonal, as triangle arrays (see :func:`pair_index`)."""

    upper: tuple[float | None, ...] = describe(
        "value(a_i, a_j) for every pair i < j, in pair order",
        null="the value is not defined for this pair (e.g. no paired differences)",
    )
    lower: tuple[float | None, ...] | None = describe(
        "value(a_j, a_i) for every pair i < j, in pair order",
        null="the matrix is symmetric: value(a_j, a_i) = value(a_i, a_j)",
    )

    @classmethod
    def from_square(cls, matrix: np.ndarray) -> PairwiseMatrix:
        matrix = np.asarray(matrix, dtype=float)
        i, j = _triangle(matrix.shape[0])
        upper, lower = matrix[i, j], matrix[j, i]
        symmetric = np.array_equal(upper, lower, equal_nan=True)
        return cls(upper=floats(upper), lower=None if symmetric else floats(lower))

    def get(self, i: int, j: int, m: int) -> float | None:
        """value(a_i, a_j) for i != j."""
        if i < j:
            return self.upper[pair_index(i, j, m)]
        source = self.upper if self.lower is None else self.lower
        return source[pair_index(j, i, m)]

    def square(self, m: int) -> np.ndarray:
        """The full matrix, NaN on the diagonal and where a value is null."""
        out = np.full((m, m), np.nan)
        i, j = _triangle(m)
        out[i, j] = np.array(self.upper, dtype=float)
        out[j, i] = np.array(self.upper if self.lower is None else self.lower, dtype=float)
        return out

    def restricted(self, keep: Sequence[int], m: int) -> PairwiseMatrix:
        """The same matrix for the algorithms ``keep`` (indices, in that order)."""
        return PairwiseMatrix.from_square(self.square(m)[np.ix_(keep, keep)])
