"""Simultaneous confidence intervals for ranks, and the confidence set of the best.

Given an estimate ``theta_hat[a]`` of some per-algorithm quantity ``theta[a]`` (here an
estimator's probability of winning a new dataset) and bootstrap replicates of it,
:func:`rank_intervals` gives for every algorithm an interval ``[lower, upper]`` of ranks
(1 = largest ``theta``) such that, with probability at least ``level`` asymptotically,
every algorithm's true rank lies in its interval at once. The algorithms whose interval
starts at 1 form a confidence set for the best one.

The method is that of Mogstad, Romano, Shaikh and Wilhelm (2024): test every ordered
pair ``H(j, k): theta[j] <= theta[k]`` with studentised differences, control the
family-wise error by the bootstrap distribution of the maximum statistic with
Romano and Wolf's stepdown, and read the ranks off the rejections. Above
:data:`PAIRWISE_MAX_ALGORITHMS` the O(B m^2) pairwise work is replaced by simultaneous
marginal intervals (O(B m)), valid but more conservative.

*Small samples* (in the notation of the Notes of :func:`rank_intervals`). A difference
that does not vary over the resamples (e.g. one algorithm ahead on every dataset) has no
bootstrap standard error, and one whose ``|t|`` reaches ``sqrt(n)`` is as strong as a
difference can be on ``n`` datasets: ``sqrt(n)`` is the z of a sign test of a difference
on every dataset. Such a pair is separated only when ``sqrt(n)`` exceeds both ``c`` and
Bonferroni's one-sided normal critical value over the pairs still tested (with 4
algorithms, 7 datasets or more). In the marginal construction, with ``sqrt(n)`` at or
below that bound over all ``m (m - 1)`` pairs (m = 2000 and n = 6), nothing is
separated. Estimates equal to 12 decimals are never separated. Separation needs
``d > 0``, so every interval holds the algorithm's own shared position (1 + the number
of larger estimates).

*Assumptions.* Datasets are independent draws from one population; the estimator
is asymptotically normal and its bootstrap consistent (true of the win rate and of
Borda; the leave-one-out weights and Plackett–Luce are smooth away from boundary
fits). The level is asymptotic in ``n``; the coverage bench (``python -m bench
coverage``) measures it at n = 10, 30, 100.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = [
    "PAIRWISE_MAX_ALGORITHMS",
    "TIE_DIGITS",
    "RankInference",
    "rank_intervals",
    "rank_method_words",
]

PAIRWISE_MAX_ALGORITHMS = 60
"""Up to this many algorithms the pairwise stepdown runs (1770 pairs: about 14 MB of
bootstrap statistics at B = 1000); above, simultaneous marginal intervals."""

TIE_DIGITS = 12
"""Estimates equal to this many decimals are one value (sums of floats differ in the last
bits): the tie rule of the board's order, the verdict and the rank intervals."""


@dataclass(frozen=True, eq=False)
class RankInference:
    """What :func:`rank_intervals` returns.

    Attributes
    ----------
    lower, upper : ndarray of int, shape (m,)
        Simultaneous confidence interval of each algorithm's rank (1 = best).
    best : ndarray of bool, shape (m,)
        The confidence set of the best: ``lower == 1``.
    method : {"pairwise stepdown", "marginal"}
        Which construction ran (see :func:`rank_intervals`).
    critical_value : float
        The final critical value of the studentised statistics.
    level : float
    """

    lower: np.ndarray
    upper: np.ndarray
    best: np.ndarray
    method: Literal["pairwise stepdown", "marginal", "paired mean ranks", "marginal mean ranks"]
    critical_value: float
    level: float
    separating_datasets: int | None = None
    """Paired mean ranks only: about how many datasets like these would leave the best
    mean rank alone in the set of the best (None: it is alone, or no number would)."""


def _check(estimates: Any, replicates: Any, level: float, n_datasets: int) -> tuple[Any, Any]:
    theta = np.asarray(estimates, dtype=float)
    boot = np.asarray(replicates, dtype=float)
    if theta.ndim != 1 or theta.size < 1:
        raise ValueError(f"estimates must be a non-empty 1-D array, got shape {theta.shape}")
    if boot.ndim != 2 or boot.shape[1] != theta.size or boot.shape[0] < 2:
        raise ValueError(
            f"replicates must have shape (B, {theta.size}) with B >= 2, got {boot.shape}"
        )
    if not (np.isfinite(theta).all() and np.isfinite(boot).all()):
        raise ValueError("estimates and replicates must be finite")
    if isinstance(level, bool) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if isinstance(n_datasets, bool) or int(n_datasets) != n_datasets or n_datasets < 1:
        raise ValueError(f"n_datasets must be a positive integer, got {n_datasets!r}")
    return theta, boot


def rank_intervals(
    estimates: Any,
    replicates: Any,
    *,
    n_datasets: int,
    level: float = 0.95,
    pairwise_max: int = PAIRWISE_MAX_ALGORITHMS,
) -> RankInference:
    """Simultaneous confidence intervals for the ranks of ``theta``, largest first.

    Parameters
    ----------
    estimates : array_like, shape (m,)
        ``theta_hat``, the estimate on the full data.
    replicates : array_like, shape (B, m)
        The same estimator on ``B`` bootstrap resamples of the datasets.
    n_datasets : int
        Datasets behind the estimate (``n``); it bounds the studentised differences
        (see Notes).
    level : float, default 0.95
        Simultaneous level ``1 - alpha``.
    pairwise_max : int, default :data:`PAIRWISE_MAX_ALGORITHMS`
        Largest ``m`` for the pairwise stepdown; above it, marginal intervals.

    Returns
    -------
    RankInference

    Notes
    -----
    *Target.* The rank of ``theta[a]`` among ``theta`` (1 = largest), where ``theta`` is
    the value the estimator converges to as datasets grow. Algorithms whose ``theta``
    are equal may take any rank of their tie group; an interval covers it when it holds
    every such rank it could take.

    *Pairwise stepdown* (``m <= pairwise_max``; Mogstad et al. 2024, section 3.2). For
    each ordered pair the statistic ``t(j, k) = d(j, k) / s(j, k)``, with
    ``d = theta_hat[j] - theta_hat[k]`` and ``s`` the bootstrap standard deviation of
    ``d``. The critical value ``c(S)`` of a set ``S`` of pairs is the ``level``
    quantile over replicates of ``max over S of (d* - d) / s``; every pair of ``S`` with
    ``t > c(S)`` is rejected ("``j`` ranks above ``k``"), the rejected pairs leave ``S``
    and ``c`` is recomputed until nothing new is rejected (Romano & Wolf 2005). Then
    ``lower[j] = 1 + #{k: k above j}``, ``upper[j] = m - #{k: j above k}``.

    *Marginal* (``m > pairwise_max``). Simultaneous intervals
    ``theta_hat[a] +- c s[a]``, ``c`` the ``level`` quantile of
    ``max_a |theta*[a] - theta_hat[a]| / s[a]``; ``k`` ranks above ``j`` when their
    intervals do not overlap. Valid (all intervals hold at once with probability
    ``level``, and then every rank interval does), conservative, O(B m log m).

    *Small samples* and *assumptions*: see the module docstring.

    References
    ----------
    .. [1] M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm, "Inference for ranks
       with applications to mobility across neighbourhoods and academic achievement
       across countries", Review of Economic Studies 91(1), 476-518, 2024.
    .. [2] J. P. Romano and M. Wolf, "Exact and approximate stepdown methods for
       multiple hypothesis testing", JASA 100(469), 94-108, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> theta = np.array([0.6, 0.3, 0.1])
    >>> replicates = theta + rng.normal(scale=[0.02, 0.02, 0.02], size=(1000, 3))
    >>> result = rank_intervals(theta, replicates, n_datasets=100)
    >>> result.lower.tolist(), result.upper.tolist()
    ([1, 2, 3], [1, 2, 3])
    """
    theta, boot = _check(estimates, replicates, level, n_datasets)
    m = theta.size
    rounded = np.round(theta, TIE_DIGITS)
    root_n = float(np.sqrt(n_datasets))
    if m <= pairwise_max:
        above, c = _pairwise_stepdown(theta, boot, rounded, root_n, float(level))
        method: Literal["pairwise stepdown", "marginal"] = "pairwise stepdown"
        n_above = above.sum(axis=0)  # above[k, j]: k ranks above j
        n_below = above.sum(axis=1)
        lower = 1 + n_above
        upper = m - n_below
    else:
        lower, upper, c = _marginal(theta, boot, rounded, root_n, float(level))
        method = "marginal"
    return _frozen_result(lower, upper, method, c, level)


def _frozen_result(
    lower: np.ndarray,
    upper: np.ndarray,
    method: Literal["pairwise stepdown", "marginal"],
    critical_value: float,
    level: float,
) -> RankInference:
    lower = lower.astype(np.int64)
    upper = upper.astype(np.int64)
    for array in (lower, upper):
        array.setflags(write=False)
    best = lower == 1
    best.setflags(write=False)
    return RankInference(
        lower=lower,
        upper=upper,
        best=best,
        method=method,
        critical_value=critical_value,
        level=level,
    )


def _quantile_of_max(deviations: np.ndarray, level: float) -> float:
    """The ``level`` quantile over replicates (rows) of the row maximum."""
    if deviations.shape[1] == 0:
        return 0.0
    return float(np.quantile(deviations.max(axis=1), level))


def _sign_test_bound(level: float, pairs: int) -> float:
    """Bonferroni's one-sided normal critical value over ``pairs`` ordered pairs: what the
    sign-test z of a difference on every dataset (``sqrt(n)``) must exceed."""
    from scipy import special

    return float(special.ndtri(1.0 - (1.0 - level) / max(pairs, 1)))


def _pairwise_stepdown(
    theta: np.ndarray, boot: np.ndarray, rounded: np.ndarray, root_n: float, level: float
) -> tuple[np.ndarray, float]:
    """``above[k, j]``: k is shown to rank above j; and the last critical value."""
    m = theta.size
    i, j = np.triu_indices(m, 1)
    d = theta[i] - theta[j]
    d_star = boot[:, i] - boot[:, j]
    sd = d_star.std(axis=0, ddof=1)
    spread = sd > 0
    safe = np.where(spread, sd, 1.0)
    # (d* - d) / s per replicate; a pair without spread contributes 0 to the maximum
    deviations = np.where(spread, (d_star - d) / safe, 0.0)
    t = np.where(spread, d / safe, 0.0)
    # |t| at or over sqrt(n) (or no spread at all): judged as a sign test of a difference
    # on every dataset, whose z is sqrt(n)
    capped = ~spread | (np.abs(t) >= root_n)
    # each unordered pair stands for two ordered ones: "i above j" (t > c) and
    # "j above i" (-t > c, whose bootstrap statistic is -(d* - d) / s)
    separable_up = rounded[i] > rounded[j]
    separable_down = rounded[i] < rounded[j]
    active_up = np.ones(len(d), dtype=bool)
    active_down = np.ones(len(d), dtype=bool)
    rejected_up = np.zeros(len(d), dtype=bool)
    rejected_down = np.zeros(len(d), dtype=bool)
    c = 0.0
    while active_up.any() or active_down.any():
        maxima = np.full(boot.shape[0], -np.inf)
        if active_up.any():
            maxima = np.maximum(maxima, deviations[:, active_up].max(axis=1))
        if active_down.any():
            maxima = np.maximum(maxima, (-deviations[:, active_down]).max(axis=1))
        c = max(float(np.quantile(maxima, level)), 0.0)
        bound = max(c, _sign_test_bound(level, int(active_up.sum() + active_down.sum())))
        sure = np.where(capped, root_n > bound, np.abs(t) > c)
        new_up = active_up & separable_up & sure
        new_down = active_down & separable_down & sure
        if not (new_up.any() or new_down.any()):
            break
        rejected_up |= new_up
        rejected_down |= new_down
        active_up &= ~new_up
        active_down &= ~new_down
    above = np.zeros((m, m), dtype=bool)
    above[i[rejected_up], j[rejected_up]] = True
    above[j[rejected_down], i[rejected_down]] = True
    return above, c


def _marginal(
    theta: np.ndarray, boot: np.ndarray, rounded: np.ndarray, root_n: float, level: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """Rank intervals from simultaneous marginal intervals (see rank_intervals)."""
    m = theta.size
    sd = boot.std(axis=0, ddof=1)
    usable = sd > 0
    safe = np.where(usable, sd, 1.0)
    deviations = np.where(usable, np.abs(boot - theta) / safe, 0.0)
    c = max(_quantile_of_max(deviations, level), 0.0)
    if root_n <= max(c, _sign_test_bound(level, m * (m - 1))):
        # too few datasets for any difference to pass the sign-test bound: rather than
        # judge pair by pair, nothing is separated (valid, conservative)
        return np.ones(m), np.full(m, m), c
    # k above j when rounded[k] - c s[k] > rounded[j] + c s[j]: the estimates rounded
    # to 12 decimals, so that equal estimates with no spread stay together
    low, high = rounded - c * sd, rounded + c * sd
    # for each j, the k with low[k] > high[j], and the k with high[k] < low[j]
    above_count = m - np.searchsorted(np.sort(low), high, side="right")
    below_count = np.searchsorted(np.sort(high), low, side="left")
    return 1 + above_count, m - below_count, c


_METHOD_WORDS = {
    "pairwise stepdown": (
        "simultaneous {level} intervals for the ranks (Mogstad, Romano, Shaikh & Wilhelm "
        "2024): every pair of algorithms compared by its studentised difference of "
        "estimates, the family-wise error held by the bootstrap maximum over pairs with "
        "Romano–Wolf stepdown (critical value {c:.2f}), ranks counted from the pairs "
        "separated; it assumes independent datasets from one population and an "
        "asymptotically normal estimator (the level is reached as datasets grow); a "
        "difference the resamples barely vary is judged as a sign test over the datasets"
    ),
    "marginal": (
        "simultaneous {level} intervals for the ranks from simultaneous bootstrap "
        "intervals of every estimate (maximum studentised deviation, critical value "
        "{c:.2f}; used above " + str(PAIRWISE_MAX_ALGORITHMS) + " algorithms instead of "
        "the pairwise stepdown of Mogstad, Romano, Shaikh & Wilhelm 2024): two algorithms "
        "are separated when their intervals do not overlap, which is valid but "
        "conservative; it assumes independent datasets and an asymptotically normal "
        "estimator"
    ),
    "paired mean ranks": (
        "the confidence set of the best and simultaneous {level} intervals for the ranks "
        "of the expected ranks (Mogstad, Romano, Shaikh & Wilhelm 2024): every pair of "
        "algorithms compared by a paired t test of their rank differences over the "
        "datasets (n - 3 degrees of freedom, a small-sample margin); an algorithm "
        "leaves the set of the best when another is ahead of it at Bonferroni's level "
        "over the m - 1 comparisons the best takes part in (critical t {c:.2f}), and the rank intervals count the pairs separated by Holm's stepdown "
        "over all pairs; a pair is separated only where one is ahead on enough datasets "
        "for a sign test to agree (so never below 5 datasets); it assumes independent "
        "datasets from one population, and the t reference is an approximation whose "
        "coverage is measured"
    ),
    "marginal mean ranks": (
        "simultaneous {level} intervals for the ranks of the expected ranks from "
        "simultaneous t intervals of every mean rank (Bonferroni over the algorithms, "
        "critical t {c:.2f}; used above 2000 algorithms instead of paired comparisons): "
        "two algorithms are separated when their intervals do not overlap, which is valid "
        "but conservative; it assumes independent datasets from one population"
    ),
}


def rank_method_words(result: RankInference) -> str:
    """How ``result`` was computed and what it assumes, in words (the contract's
    ``RankIntervals.method``)."""
    level = f"{result.level:.0%}".replace("%", " %")
    return _METHOD_WORDS[result.method].format(level=level, c=result.critical_value)
