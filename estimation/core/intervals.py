"""Confidence intervals for the win probability itself (METHODS.md section 6).

The win rate's intervals for ``p[a]``, the probability that ``a`` wins a new dataset:
Wilson's score interval on ``a``'s tie-split win count, and, for the whole table at once,
Goodman's simultaneous intervals. They are shown beside the win rate only; every other
estimator is shown with its own bootstrap interval (:mod:`estimation.core.resampling`).
Whether they may be called confidence intervals is decided by their measured coverage
(``registry.WILSON_INTERVAL_KIND``; bench/README.md "coverage").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from estimation.core.rankings import tie_groups
from estimation.core.win_probability import _validated_ranks

__all__ = ["WinIntervals", "goodman_z", "wilson_interval", "wilson_width", "win_intervals"]

WILSON_METHOD = (
    "Wilson score interval on the tie-split win count (x of n datasets won, a tie for "
    "first of t counting 1/t); simultaneous: Goodman (1965), Wilson-type intervals at "
    "level 1 - alpha/m for all m algorithms at once"
)


def _check_level(level: float) -> float:
    if isinstance(level, bool) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(level)


def wilson_interval(successes: Any, trials: Any, *, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval for a binomial proportion, elementwise.

    Parameters
    ----------
    successes : array_like
        Success counts ``x`` (may be fractional: tie-split wins), ``0 <= x <= n``.
    trials : array_like
        Trials ``n > 0`` (broadcast against ``successes``).
    z : float
        Normal quantile: ``1.959964`` for a two-sided 95 % interval.

    Returns
    -------
    lower, upper : ndarray
        ``(x + z²/2) / (n + z²) ∓ z / (n + z²) * sqrt(x (n - x) / n + z²/4)``, in [0, 1].

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and statistical
       inference", JASA 22, 209-212, 1927.
    """
    centre, half = _wilson_centre_half(successes, trials, z)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def wilson_width(successes: Any, trials: Any, *, z: float) -> np.ndarray:
    """The width of :func:`wilson_interval`, ``2 z / (n + z²) * sqrt(x (n - x) / n + z²/4)``.

    Twice the half-width, not ``upper - lower``: the interval never leaves [0, 1], and
    subtracting its rounded ends would add rounding of the order of 1e-16.
    """
    return 2.0 * _wilson_centre_half(successes, trials, z)[1]


def _wilson_centre_half(successes: Any, trials: Any, z: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if (n <= 0).any() or (x < -1e-9).any() or (x > n + 1e-9).any():
        raise ValueError("successes must lie in [0, trials] and trials must be positive")
    x = np.clip(x, 0.0, n)
    z2 = z * z
    centre = (x + z2 / 2.0) / (n + z2)
    half = z / (n + z2) * np.sqrt(x * (n - x) / n + z2 / 4.0)
    return centre, half


def goodman_z(level: float, m: int) -> float:
    """Goodman's (1965) quantile: ``z`` with ``z² = chi²_1(1 - alpha/m)``, ``alpha = 1 - level``.

    References
    ----------
    .. [1] L. A. Goodman, "On simultaneous confidence intervals for multinomial
       proportions", Technometrics 7, 247-254, 1965.
    """
    alpha = 1.0 - _check_level(level)
    return float(-special.ndtri(alpha / (2.0 * max(int(m), 1))))


@dataclass(frozen=True, eq=False)
class WinIntervals:
    """Pointwise (Wilson) and simultaneous (Goodman) intervals for every ``p[a]``."""

    level: float
    wins: np.ndarray
    n: int
    lower: np.ndarray
    upper: np.ndarray
    simultaneous_lower: np.ndarray
    simultaneous_upper: np.ndarray


def win_intervals(ranks: Any, *, level: float = 0.95) -> WinIntervals:
    """Confidence intervals for the probability that each algorithm wins a new dataset.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks, 1 = best (top-K input: only the first places matter).
    level : float, default 0.95

    Returns
    -------
    WinIntervals

    Notes
    -----
    ``x[a]`` is the tie-split win count (``n`` times the win rate). Wilson's interval
    uses ``z = Phi^{-1}((1 + level) / 2)``; Goodman's simultaneous intervals use
    :func:`goodman_z`, so that all ``m`` intervals hold together with probability at
    least ``level`` (asymptotically, by Bonferroni). The win counts of a benchmark are
    one multinomial draw only if datasets are independent draws from the population
    of interest: the interval says nothing about datasets unlike the benchmark's.

    Examples
    --------
    >>> import numpy as np
    >>> result = win_intervals(np.array([[1.0, 2.0]] * 8 + [[2.0, 1.0]] * 2))
    >>> [round(v, 3) for v in (result.lower[0], result.upper[0])]
    [0.49, 0.943]
    """
    level = _check_level(level)
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    start, size = tie_groups(ranks)
    wins = np.where(start == 1, 1.0 / size, 0.0).sum(axis=0)  # the win rate times n
    z = float(-special.ndtri((1.0 - level) / 2.0))
    lower, upper = wilson_interval(wins, n, z=z)
    simultaneous_lower, simultaneous_upper = wilson_interval(wins, n, z=goodman_z(level, m))
    for array in (wins, lower, upper, simultaneous_lower, simultaneous_upper):
        array.setflags(write=False)
    return WinIntervals(level, wins, n, lower, upper, simultaneous_lower, simultaneous_upper)
