"""Two algorithms head to head, and the Pareto front of several metrics.

Pure numpy/scipy: :func:`pair_record` counts where one algorithm ranks above another and
turns the tie-split share into the probability that it beats the other on a new dataset,
with a Wilson score interval (:func:`wilson_interval`); :func:`pareto_front` marks the
algorithms that no other one beats on every metric at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from estimation.core import intervals

__all__ = ["PairRecord", "pair_record", "pareto_front", "wilson_interval"]


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion ``successes / n``.

    Parameters
    ----------
    successes : float
        Number of successes; may be fractional (a tie counted as half a success).
    n : int
        Number of trials, at least 1.
    confidence : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    (lower, upper) : tuple of float, within [0, 1].

    Notes
    -----
    Unlike the Wald interval it never leaves [0, 1] and keeps a sensible width at a
    share of 0 or 1 (all wins), which is common with few datasets.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
    inference. JASA 22(158), 209-212.

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(9, 14)]
    [0.3876, 0.8366]
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    if not 0.0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n], got {successes!r} with n = {n}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    # One Wilson interval in the core (intervals.py); this is its scalar form.
    lower, upper = intervals.wilson_interval(successes, n, z=float(norm.ppf(0.5 + confidence / 2)))
    return float(lower), float(upper)


@dataclass(frozen=True)
class PairRecord:
    """How algorithm A fared against algorithm B over the same datasets.

    ``share`` is the share of datasets on which A ranks above B, a tie counting one half:
    the estimate that A beats B on a new dataset from the same population; ``lower`` and
    ``upper`` bound it (Wilson, at ``confidence``). All None without a dataset.
    """

    wins: int
    ties: int
    losses: int
    share: float | None
    lower: float | None
    upper: float | None
    confidence: float

    @property
    def n(self) -> int:
        return self.wins + self.ties + self.losses


def pair_record(advantage: Sequence[float] | np.ndarray, confidence: float = 0.95) -> PairRecord:
    """Wins, ties and losses of A against B from A's advantage on each dataset.

    Parameters
    ----------
    advantage : array of float, shape (n,)
        Positive where A is better on a dataset, zero for a tie, negative where B is
        better (for example B's rank minus A's rank). NaN (no comparison) is left out.
    confidence : float
        Coverage of the interval on the share.

    Notes
    -----
    The share counts a tie as half a win, as the pairwise wins matrix of a snapshot does,
    so ``share`` equals that matrix's value for the pair when both see the same ranks.
    The interval treats datasets as independent draws of the same kind of task.
    """
    values = np.asarray(advantage, dtype=float).ravel()
    values = values[~np.isnan(values)]
    wins = int(np.count_nonzero(values > 0))
    losses = int(np.count_nonzero(values < 0))
    ties = int(values.size - wins - losses)
    n = values.size
    if n == 0:
        return PairRecord(0, 0, 0, None, None, None, confidence)
    successes = wins + ties / 2
    lower, upper = wilson_interval(successes, n, confidence)
    return PairRecord(wins, ties, losses, successes / n, lower, upper, confidence)


def pareto_front(values: np.ndarray, higher_is_better: Sequence[bool]) -> np.ndarray:
    """Which rows of ``values`` no other row beats on every column at once.

    Parameters
    ----------
    values : ndarray, shape (m, k)
        One row per algorithm, one column per metric (e.g. the mean over datasets).
    higher_is_better : sequence of bool, length k
        Each metric's direction.

    Returns
    -------
    ndarray of bool, shape (m,): True for the algorithms on the front.

    Notes
    -----
    Row j dominates row i when j is at least as good on every metric and strictly better
    on one; the front is the rows nobody dominates. Identical rows do not dominate each
    other, so they are on the front together or off it together. Vectorised over all
    pairs (m x m x k booleans).
    """
    array = np.asarray(values, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"values must be a 2-D array (algorithms x metrics), got {array.ndim}-D")
    directions = np.asarray(higher_is_better, dtype=bool).ravel()
    if directions.size != array.shape[1]:
        raise ValueError(
            f"higher_is_better must give one direction per column ({array.shape[1]}), "
            f"got {directions.size}"
        )
    if not np.isfinite(array).all():
        raise ValueError("values must be finite (leave out algorithms without a value)")
    oriented = np.where(directions, array, -array)
    others, own = oriented[None, :, :], oriented[:, None, :]
    at_least = np.all(others >= own, axis=2)  # [i, j]: j at least as good as i everywhere
    better = np.any(others > own, axis=2)  # [i, j]: j better than i somewhere
    dominated = np.any(at_least & better, axis=1)
    return np.logical_not(dominated)
