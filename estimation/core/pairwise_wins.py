"""How often each algorithm beats each other one over the datasets (METHODS 3), shown
beside the win probability with the other aggregates (:mod:`estimation.core.aggregates`
re-exports it)."""

from __future__ import annotations

import numpy as np

from .rankings import _ranks_iv

__all__ = ["pairwise_win_matrix"]

# Elements of the (datasets x algorithms x algorithms) comparison of one block of
# datasets (8 MB of booleans).
_WIN_BLOCK_ELEMENTS = 8_000_000


def pairwise_win_matrix(ranks: np.ndarray) -> np.ndarray:
    """Fraction of common datasets on which algorithm ``a`` beats ``b`` (ties count half).

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks per dataset; ``NaN`` marks a missing result and the pair then uses
        the datasets where both have a rank.

    Returns
    -------
    ndarray, shape (m, m)
        ``W[a, b] + W[b, a] = 1`` where the pair shares a dataset; ``NaN`` where it
        shares none; the diagonal is ``0.5``.
    """
    ranks = _ranks_iv(ranks, allow_nan=True)
    n, m = ranks.shape
    present = np.isfinite(ranks).astype(float)
    # Counts of "a ranked above b" (a comparison with NaN is False, so a missing result
    # counts for neither), over blocks of datasets whose (block, m, m) comparison fits
    # in _WIN_BLOCK_ELEMENTS; the ties are what is left of the common datasets.
    wins = np.zeros((m, m))
    block = max(1, _WIN_BLOCK_ELEMENTS // (m * m))
    for first in range(0, n, block):
        part = ranks[first : first + block]
        wins += np.count_nonzero(part[:, :, None] < part[:, None, :], axis=0)
    common = present.T @ present
    ties = common - wins - wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = (wins + 0.5 * ties) / common
    matrix[common == 0] = np.nan
    np.fill_diagonal(matrix, 0.5)
    return matrix
