"""Who is best on average across datasets: the confidence set of the best and
simultaneous rank intervals from paired comparisons of within-dataset ranks.

The target is ``theta[a]``, the expected rank of algorithm ``a`` on a dataset drawn from
the benchmark's population (its mean rank as datasets grow; 1 = best). For two
algorithms the difference of expected ranks is the mean of their paired rank
differences over datasets, ``D_i = rank_i(j) - rank_i(k)``, so each pair is judged by a
paired t statistic, which uses the information in whole rankings (not first places
only) and the pairing (an algorithm that is consistently a little behind is separated).

* :func:`mean_rank_inference` returns the set of the best (only the ``m - 1``
  comparisons the best takes part in need joint control) and the rank intervals (all
  pairs, Holm's stepdown), as a :class:`RankInference`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from scipy import special, stats

from estimation.core.rank_inference import RankInference

__all__ = [
    "MEAN_RANK_METHODS",
    "MEAN_RANK_PAIRWISE_MAX",
    "QUESTION_WORDS",
    "mean_rank_inference",
    "sign_agreement_needed",
]

MEAN_RANK_METHODS = ("paired mean ranks", "marginal mean ranks")
"""The :class:`RankInference` methods whose target is the expected rank."""

QUESTION_WORDS = {
    "best_on_average": "best on average across datasets",
    "next_win": "most likely to win the next dataset",
}
"""The two questions a board answers (``RankIntervals.question``), as the page says them."""

SMALL_SAMPLE_DF_LOSS = 2
"""Degrees of freedom the t reference gives up (``n - 1 - 2``): rank differences are
bounded and discrete, and with ``n - 1`` the family-wise error of exactly tied algorithms
reached 0.06-0.08 at n = 10 (4 and 10 algorithms, 3000 simulated benchmarks); with
``n - 3`` it is 0.046-0.055, and the coverage bench checks every cell."""

MEAN_RANK_PAIRWISE_MAX = 2000
"""Up to this many algorithms every pair is compared (the m x m covariance of ranks,
32 MB at m = 2000); above, simultaneous marginal intervals of the mean ranks."""


def _check(ranks: Any, level: float) -> np.ndarray:
    values = np.asarray(ranks, dtype=float)
    if values.ndim != 2 or values.shape[0] < 1 or values.shape[1] < 1:
        raise ValueError(
            f"ranks must be a non-empty 2-D array (datasets x algorithms), got {values.shape}"
        )
    if not np.isfinite(values).all():
        raise ValueError("ranks must be finite")
    if isinstance(level, bool) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return values


def sign_agreement_needed(alpha: float, n_datasets: int) -> int | None:
    """The fewest of ``n_datasets`` datasets on which one algorithm must rank ahead of
    another (the rest tied) for a one-sided sign test to reject at ``alpha``; ``None``
    when even all of them are not enough (``2**-n > alpha``, i.e. n <= 4 at 0.05)."""
    n = int(n_datasets)
    for wins in range(n // 2, n + 1):
        if stats.binom.sf(wins - 1, n, 0.5) <= alpha:
            return wins
    return None


def _sign_guard(ranks: np.ndarray, alpha: float) -> np.ndarray:
    """``ahead[k, j]``: ``k`` ranks ahead of ``j`` on so many of the datasets where they
    differ that a one-sided sign test would reject at ``alpha`` on its own."""
    n, m = ranks.shape
    # counts of datasets where k is ahead of j (smaller rank), vectorised per row of k
    ahead = np.zeros((m, m), dtype=np.int64)
    for i in range(n):  # n x m^2 booleans summed one dataset at a time: bounded memory
        row = ranks[i]
        ahead += row[:, None] < row[None, :]
    differ = ahead + ahead.T
    # sf(ahead - 1; differ, 1/2) <= alpha, from the binomial's regularised beta form
    p = np.where(ahead > 0, special.betainc(ahead, differ - ahead + 1, 0.5), 1.0)
    return p <= alpha


def _paired_t(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``t[k, j]``: the paired t statistic of ``rank(j) - rank(k)`` (positive when ``k``
    ranks ahead), and the mean differences ``d[k, j]``."""
    n, _ = ranks.shape
    mean = ranks.mean(axis=0)
    centred = ranks - mean
    cov = centred.T @ centred / max(n - 1, 1)
    var = np.diag(cov)
    d = mean[None, :] - mean[:, None]
    pair_var = np.maximum(var[:, None] + var[None, :] - 2.0 * cov, 0.0)
    se = np.sqrt(pair_var / n)
    # float noise below the ranks' resolution is no spread: 1e-9 of a rank
    spread = se > 1e-9 * np.sqrt(1.0 / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        direction = np.sign(np.round(d, 9))
        no_spread = np.where(direction == 0, 0.0, direction * np.inf)
        t = np.where(spread, d / np.where(spread, se, 1.0), no_spread)
    np.fill_diagonal(t, 0.0)
    return t, d


def mean_rank_inference(
    ranks: Any, *, level: float = 0.95, pairwise_max: int = MEAN_RANK_PAIRWISE_MAX
) -> RankInference:
    """The confidence set of the algorithm best on average across datasets, and
    simultaneous confidence intervals for every algorithm's rank of expected rank.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Within-dataset average ranks (1 = best) of ``m`` algorithms on ``n`` datasets.
    level : float, default 0.95
        ``1 - alpha``, of the set of the best and, jointly, of the rank intervals.
    pairwise_max : int, default :data:`MEAN_RANK_PAIRWISE_MAX`
        Largest ``m`` for the pairwise comparisons; above it, marginal intervals.

    Returns
    -------
    RankInference
        ``best`` is the set of the best; ``lower``/``upper`` the rank intervals. Every
        member of the set has ``lower == 1``; an interval may start at 1 outside the set,
        because the intervals control every pair at once and the set only the best's own.

    Notes
    -----
    *Target.* ``theta[a] = E[rank(a)]`` over the population of datasets; rank 1 is the
    smallest expected rank. Equal ``theta`` may take any rank of their tie group.

    *Pairs.* ``k`` is shown ahead of ``j`` when the paired t statistic of
    ``rank(j) - rank(k)`` (Student's t with ``n - 3`` degrees of freedom, see
    :data:`SMALL_SAMPLE_DF_LOSS`) passes its
    critical value **and** ``k`` ranks ahead on enough of the datasets where they differ
    for a one-sided sign test to reject at ``alpha`` alone (a guard for tiny ``n``
    and for differences with no spread, whose t is infinite; it needs ``n >= 5``).

    *Set of the best.* ``j`` leaves it when some ``k`` is shown ahead of it at
    Bonferroni's level ``alpha / (m - 1)``: only the ``m - 1`` comparisons the true best
    takes part in can exclude it falsely, so the set holds the best with probability at
    least ``level`` whenever the per-pair tests are valid (Mogstad, Romano, Shaikh &
    Wilhelm 2024, the "tau-best" set with tau = 1).

    *Rank intervals.* Holm's stepdown over the ``m (m - 1) / 2`` pairs (two-sided
    p-values, the direction read from the sign): ``lower[j] = 1 + #{k ahead of j}``,
    ``upper[j] = m - #{k behind j}``. They hold together with probability at least
    ``level`` whenever the per-pair tests are valid, ties in the truth included. (Raising
    ``lower`` to 2 outside the set of the best would break that when several algorithms
    are tied for best: each may leave the set with probability ``alpha``.)

    *Monotone.* The critical values depend on ``n`` and ``m`` only, so larger
    statistics (more evidence) never enlarge the set or widen an interval.

    *Assumptions.* Datasets are independent draws from one population; the paired t is
    an approximation for small ``n`` (rank differences are bounded, not normal); its
    coverage at n = 10 is measured by ``python -m bench coverage``.

    *Large m.* Above ``pairwise_max``, ``theta_hat[a] +- t * se[a]`` at Bonferroni's
    level over the ``m`` algorithms; two algorithms are separated when their intervals
    do not overlap (valid, conservative, O(n m)).

    References
    ----------
    .. [1] M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm, "Inference for ranks
       with applications to mobility across neighbourhoods and academic achievement
       across countries", Review of Economic Studies 91(1), 476-518, 2024.
    .. [2] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 65-70, 1979.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.normal(size=(30, 4)) + np.array([3.0, 0.5, 0.0, -3.0])
    >>> ranks = (-scores).argsort(axis=1).argsort(axis=1) + 1
    >>> result = mean_rank_inference(ranks)
    >>> result.best.tolist(), result.lower.tolist(), result.upper.tolist()
    ([True, False, False, False], [1, 2, 2, 4], [1, 3, 3, 4])
    """
    values = _check(ranks, level)
    n, m = values.shape
    alpha = 1.0 - float(level)
    if n < 2 or m < 2:
        return _result(np.ones(m), np.full(m, m), np.ones(m, bool), "paired mean ranks", 0.0, level)
    if m > pairwise_max:
        return _marginal(values, alpha, level)
    t, _ = _paired_t(values)
    guard = _sign_guard(values, alpha)
    df = max(n - 1 - SMALL_SAMPLE_DF_LOSS, 1)
    # Set of the best: Bonferroni over the m - 1 comparisons each candidate takes part in.
    c_best = float(stats.t.isf(alpha / (m - 1), df))
    beaten = ((t > c_best) & guard).any(axis=0)
    best = ~beaten
    # Rank intervals: Holm over all pairs (two-sided p), direction from the sign.
    i, j = np.triu_indices(m, 1)
    t_pair = t[i, j]
    p = 2.0 * stats.t.sf(np.abs(t_pair), df)
    allowed = np.where(t_pair > 0, guard[i, j], guard[j, i])
    ahead = _holm_ahead(p, allowed, i, j, t_pair, m, alpha)
    lower = 1 + ahead.sum(axis=0)
    upper = m - ahead.sum(axis=1)
    result = _result(lower, upper, best, "paired mean ranks", c_best, level)
    return replace(result, separating_datasets=_separating_datasets(values, best, alpha))


MAX_SEPARATING_DATASETS = 1_000_000
"""The largest number of datasets :func:`_separating_datasets` considers."""


def _separating_datasets(ranks: np.ndarray, best: np.ndarray, alpha: float) -> int | None:
    """About how many datasets, with paired rank differences like the observed ones, the
    best mean rank would need to leave the set of the best alone: for each other member,
    the smallest ``N`` at which its observed standardised difference ``d / s`` gives a
    paired t past Bonferroni's critical value (``sqrt(N) d / s``, ``N - 3`` df) and its
    observed share of datasets behind passes the sign test; the largest over the members.
    A plug-in figure (the differences are assumed to stay as observed), so the page calls
    it rough. None when the leader is already alone, or some member is not behind it on
    the whole (no number of such datasets would separate them)."""
    n, m = ranks.shape
    leader = int(np.argmin(ranks.mean(axis=0)))
    others = [j for j in np.flatnonzero(best) if j != leader]
    if not others:
        return None
    needed = 0
    for j in others:
        d = ranks[:, j] - ranks[:, leader]
        ahead, behind = int((d > 0).sum()), int((d < 0).sum())
        sd = float(d.std(ddof=1)) if n > 1 else 0.0
        if d.mean() <= 0 or ahead <= behind:
            return None
        effect = d.mean() / sd if sd > 0 else np.inf
        share, differ = ahead / (ahead + behind), (ahead + behind) / n

        def separates(size: int, effect=effect, share=share, differ=differ) -> bool:
            df = max(size - 1 - SMALL_SAMPLE_DF_LOSS, 1)
            if np.sqrt(size) * effect <= stats.t.isf(alpha / (m - 1), df):
                return False
            trials = max(round(size * differ), 1)
            wins = int(np.floor(share * trials))  # no more than the observed share
            return bool(stats.binom.sf(wins - 1, trials, 0.5) <= alpha)

        low, high = n, max(2 * n, 8)
        while not separates(high):
            low, high = high, 2 * high
            if high > MAX_SEPARATING_DATASETS:
                return None
        while high - low > 1:  # the smallest size that separates, by bisection
            middle = (low + high) // 2
            low, high = (low, middle) if separates(middle) else (middle, high)
        needed = max(needed, high)
    return needed


def _holm_ahead(
    p: np.ndarray,
    allowed: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    t_pair: np.ndarray,
    m: int,
    alpha: float,
) -> np.ndarray:
    """``ahead[k, j]`` from Holm's stepdown over the pairs ``(i, j)``: a pair whose sign
    guard fails keeps its place in the family but is never rejected."""
    pairs = p.size
    order = np.argsort(np.where(allowed, p, np.inf), kind="stable")
    thresholds = alpha / (pairs - np.arange(pairs))
    passed = np.where(allowed[order], p[order], np.inf) <= thresholds
    # stop at the first pair that fails: the rejected are the leading run of passes
    stop = int(np.argmin(passed)) if not passed.all() else pairs
    rejected = order[:stop]
    ahead = np.zeros((m, m), dtype=bool)
    up = rejected[t_pair[rejected] > 0]  # i ahead of j
    down = rejected[t_pair[rejected] < 0]
    ahead[i[up], j[up]] = True
    ahead[j[down], i[down]] = True
    return ahead


def _marginal(values: np.ndarray, alpha: float, level: float) -> RankInference:
    n, m = values.shape
    mean = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / np.sqrt(n)
    c = float(stats.t.isf(alpha / (2 * m), max(n - 1 - SMALL_SAMPLE_DF_LOSS, 1)))
    low, high = mean - c * se, mean + c * se
    # k ahead of j when high[k] < low[j]; j ahead of k when high[j] < low[k]
    ahead_count = np.searchsorted(np.sort(high), low, side="left")
    behind_count = m - np.searchsorted(np.sort(low), high, side="right")
    lower = 1 + ahead_count
    best = lower == 1
    return _result(lower, m - behind_count, best, "marginal mean ranks", c, level)


def _result(
    lower: np.ndarray, upper: np.ndarray, best: np.ndarray, method: Any, c: float, level: float
) -> RankInference:
    low = np.asarray(lower, dtype=np.int64)
    high = np.asarray(upper, dtype=np.int64)
    chosen = np.asarray(best, dtype=bool)
    for array in (low, high, chosen):
        array.setflags(write=False)
    return RankInference(
        lower=low, upper=high, best=chosen, method=method, critical_value=c, level=level
    )
