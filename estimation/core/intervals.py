"""Confidence intervals for the win probability itself (METHODS.md section 6).

The win rate's intervals for ``p[a]``, the probability that ``a`` wins a new dataset:
the exact (Clopper-Pearson) interval on ``a``'s tie-split win count, and, for the whole
table at once, the same at level ``1 - alpha/m`` (Bonferroni). They are shown beside the
win rate only; every other estimator is shown with its own bootstrap interval
(:mod:`estimation.core.resampling`). Whether they may be called confidence intervals is
decided by their measured coverage (``registry.WIN_RATE_INTERVAL_KIND``; bench/README.md
"coverage").

Wilson's score interval and Goodman's simultaneous intervals were shown before engine
0.7.0; the coverage simulation (``python -m bench coverage``) measured them at 0.85 and
0.66 for small win probabilities at n = 10 and 30, below the 0.93 a "95 % confidence
interval" must reach. The exact interval covers every ``p`` with probability at least
``level`` for whole win counts, and Bonferroni keeps that for all ``m`` at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from estimation.core.rankings import tie_groups
from estimation.core.win_probability import _validated_ranks

__all__ = [
    "BIAS_CORRECTED_METHOD",
    "WIN_INTERVAL_METHOD",
    "WinIntervals",
    "bias_corrected_interval",
    "exact_interval",
    "exact_width",
    "wilson_interval",
    "win_intervals",
]

WIN_INTERVAL_METHOD = (
    "exact (Clopper-Pearson) interval on the tie-split win count (x of n datasets won, a "
    "tie for first of t counting 1/t); simultaneous: the same at level 1 - alpha/m for "
    "all m algorithms at once (Bonferroni)"
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


def _wilson_centre_half(successes: Any, trials: Any, z: float) -> tuple[np.ndarray, np.ndarray]:
    x, n = _proportion_iv(successes, trials)
    z2 = z * z
    centre = (x + z2 / 2.0) / (n + z2)
    half = z / (n + z2) * np.sqrt(x * (n - x) / n + z2 / 4.0)
    return centre, half


def _proportion_iv(successes: Any, trials: Any) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if (n <= 0).any() or (x < -1e-9).any() or (x > n + 1e-9).any():
        raise ValueError("successes must lie in [0, trials] and trials must be positive")
    return np.clip(x, 0.0, n), n


def exact_interval(successes: Any, trials: Any, *, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact (Clopper-Pearson) interval for a binomial proportion, elementwise.

    Parameters
    ----------
    successes : array_like
        Success counts ``x`` (may be fractional: tie-split wins), ``0 <= x <= n``.
    trials : array_like
        Trials ``n > 0`` (broadcast against ``successes``).
    level : float
        Confidence level, in (0, 1).

    Returns
    -------
    lower, upper : ndarray
        ``B(alpha/2; x, n - x + 1)`` and ``B(1 - alpha/2; x + 1, n - x)``, the quantiles
        of beta distributions (``alpha = 1 - level``); 0 when ``x = 0`` and 1 when
        ``x = n``. Both contain ``x / n``.

    Notes
    -----
    For whole ``x`` the interval covers every ``p`` with probability at least ``level``
    (it inverts two one-sided binomial tests), so it is conservative where Wilson's is
    not: near 0 and 1 with few trials. For a fractional ``x`` (a shared win) the beta
    quantiles interpolate between the neighbouring whole counts.

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", Biometrika 26, 404-413, 1934.

    Examples
    --------
    >>> [round(float(v), 4) for v in exact_interval(3, 10, level=0.95)]
    [0.0667, 0.6525]
    """
    alpha = 1.0 - _check_level(level)
    x, n = _proportion_iv(successes, trials)
    with np.errstate(invalid="ignore", divide="ignore"):
        # the beta quantiles as the inverse of the regularised incomplete beta function:
        # Boost's, as beta.ppf's (the same floats in scipy 1.16), without its checks
        lower = np.where(
            x > 0, special.betaincinv(np.maximum(x, 1e-300), n - x + 1, alpha / 2), 0.0
        )
        upper = np.where(
            x < n, special.betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - alpha / 2), 1.0
        )
    return np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)


def exact_width(successes: Any, trials: Any, *, level: float) -> np.ndarray:
    """The width of :func:`exact_interval`."""
    lower, upper = exact_interval(successes, trials, level=level)
    return upper - lower


@dataclass(frozen=True, eq=False)
class WinIntervals:
    """Pointwise and simultaneous (Bonferroni) exact intervals for every ``p[a]``."""

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
    ``x[a]`` is the tie-split win count (``n`` times the win rate). The pointwise interval
    is :func:`exact_interval` at ``level``; the simultaneous one is the same at
    ``1 - (1 - level) / m``, so that all ``m`` intervals hold together with probability at
    least ``level`` (Bonferroni; exact for whole counts, not only asymptotically). The
    win counts of a benchmark are
    one multinomial draw only if datasets are independent draws from the population
    of interest: the interval says nothing about datasets unlike the benchmark's.

    Examples
    --------
    >>> import numpy as np
    >>> result = win_intervals(np.array([[1.0, 2.0]] * 8 + [[2.0, 1.0]] * 2))
    >>> [round(v, 3) for v in (result.lower[0], result.upper[0])]
    [0.4439, 0.9748]
    """
    level = _check_level(level)
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    start, size = tie_groups(ranks)
    wins = np.where(start == 1, 1.0 / size, 0.0).sum(axis=0)  # the win rate times n
    lower, upper = exact_interval(wins, n, level=level)
    simultaneous_level = 1.0 - (1.0 - level) / max(m, 1)
    simultaneous_lower, simultaneous_upper = exact_interval(wins, n, level=simultaneous_level)
    for array in (wins, lower, upper, simultaneous_lower, simultaneous_upper):
        array.setflags(write=False)
    return WinIntervals(level, wins, n, lower, upper, simultaneous_lower, simultaneous_upper)


BIAS_CORRECTED_METHOD = (
    "bias-corrected percentile interval of the estimator itself, refitted on every "
    "bootstrap resample of the datasets (Efron 1981); an end that the correction would "
    "put beyond the estimate (nearly every resample on one side of it) is the estimate"
)
# Replicates within this of the estimate count as equal to it (refits differ in the
# last bits, and Plackett-Luce refits stop at a looser tolerance).
_SAME_ESTIMATE = 1e-9


def bias_corrected_interval(
    estimate: Any, replicates: Any, *, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """The bias-corrected percentile interval of each column, containing ``estimate``.

    Parameters
    ----------
    estimate : array_like, shape (m,)
        The statistic on the full data.
    replicates : array_like, shape (B, m)
        The statistic on ``B`` bootstrap resamples.
    level : float, default 0.95

    Returns
    -------
    lower, upper : ndarray, shape (m,)
        ``lower <= estimate <= upper`` in every column.

    Notes
    -----
    Efron's bias correction: ``z0 = Phi^-1(share of replicates below the estimate)``
    (replicates within 1e-9 of it count one half), and the interval runs between the
    replicates' quantiles at ``Phi(2 z0 -+ z)``, ``z = Phi^-1((1 + level) / 2)``
    (numpy's linear interpolation). Where the estimate is the median of its replicates
    this is the percentile interval. The correction moves the band towards the
    estimate's side of a skewed or biased bootstrap distribution (the leave-one-out
    estimators shrink the leader, so their replicates sit off centre); the share is kept
    within ``[1/(2B), 1 - 1/(2B)]`` so that ``z0`` is finite.

    The ends hold the estimate whenever ``|z0| < z``. Beyond (nearly every replicate on
    one side of the estimate: an estimate at the edge of its replicates, e.g. 0 when it
    is 0 in every resample but rare ones), the end on the estimate's side is the
    estimate itself. Replicates all equal to the estimate give the point.

    References
    ----------
    .. [1] B. Efron, "Nonparametric standard errors and confidence intervals",
       Canadian Journal of Statistics 9(2), 139-158, 1981.
    .. [2] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman &
       Hall, 1993, section 14.3.
    """
    point = np.asarray(estimate, dtype=float)
    boot = np.asarray(replicates, dtype=float)
    if boot.ndim != 2 or point.shape != boot.shape[1:] or boot.shape[0] < 1:
        raise ValueError(
            f"replicates must have shape (B, {point.size}) for {point.size} estimates, "
            f"got {boot.shape}"
        )
    if isinstance(level, bool) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    B = boot.shape[0]
    below = (boot < point - _SAME_ESTIMATE).sum(axis=0)
    equal = (np.abs(boot - point) <= _SAME_ESTIMATE).sum(axis=0)
    share = np.clip((below + 0.5 * equal) / B, 0.5 / B, 1.0 - 0.5 / B)
    z0 = special.ndtri(share)
    z = float(special.ndtri((1.0 + float(level)) / 2.0))
    probs = special.ndtr(np.stack([2.0 * z0 - z, 2.0 * z0 + z]))  # (2, m)
    # per-column quantiles at per-column levels: linear interpolation of the sorted
    # replicates (numpy's default method), vectorised
    ordered = np.sort(boot, axis=0)
    position = probs * (B - 1)
    base = np.floor(position).astype(np.int64)
    upper_index = np.minimum(base + 1, B - 1)
    fraction = position - base
    columns = np.arange(point.size)
    ends = ordered[base, columns] * (1.0 - fraction) + ordered[upper_index, columns] * fraction
    return np.minimum(ends[0], point), np.maximum(ends[1], point)
