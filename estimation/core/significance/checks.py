"""Input checks and small helpers shared by the tests across datasets."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from estimation.core.rankings import _ranks_iv

Correction = Literal["holm", "bonferroni"]


# --------------------------------------------------------------------------------------
# helpers


def _plain(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def _matrix_to_list(matrix: np.ndarray) -> list:
    return [[_plain(float(x)) for x in row] for row in np.asarray(matrix, dtype=float)]


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return alpha


def _check_correction(correction: str) -> str:
    if correction not in ("holm", "bonferroni"):
        raise ValueError(f"correction must be 'holm' or 'bonferroni', got {correction!r}")
    return correction


def rank_test_not_applicable(
    ranks: np.ndarray, *, known_positions: int | None = None
) -> str | None:
    """Why Friedman and Nemenyi cannot be computed on ``ranks``, or ``None`` if they can.

    Both need at least two datasets and two algorithms, complete rankings (a top-K-only
    table leaves positions below ``K`` unknown) and at least one dataset that does not
    tie every algorithm.
    """
    return _rank_test_reason(_ranks_iv(ranks), known_positions=known_positions)


def _rank_test_reason(ranks: np.ndarray, *, known_positions: int | None) -> str | None:
    """:func:`rank_test_not_applicable` on ranks the caller has already checked."""
    n, m = ranks.shape
    if m < 2:
        return f"needs at least two algorithms, got {m}"
    if n < 2:
        return f"needs at least two datasets, got {n}"
    if known_positions is not None and known_positions < m - 1:
        return (
            f"only the top {known_positions} of {m} positions are known: rank tests need "
            "complete rankings"
        )
    if np.all(ranks == ranks[:, :1]):
        return "every dataset ties all algorithms"
    return None


def _tie_term(ranks: np.ndarray) -> float:
    """``sum (t^3 - t)`` over the tie groups of every dataset (equal average ranks)."""
    ordered = np.sort(ranks, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = np.abs(np.diff(ordered, axis=1)) > 1e-9
    flat_starts = np.flatnonzero(starts.ravel())
    sizes = np.diff(np.append(flat_starts, ordered.size)).astype(float)
    return float((sizes**3 - sizes).sum())


"""Names of the regimes by their code in ``_SignedRankBatch.method``; code 3: not tested."""
"""A critical-difference diagram is drawn for at most this many algorithms."""
"""Compact letters are shown when no algorithm needs more letters than the alphabet has."""
