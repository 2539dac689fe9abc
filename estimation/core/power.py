"""How many more datasets: the power of the #1-vs-#2 comparison (METHODS section 8).

At the current data, for the board's first two algorithms:

* the **smallest detectable difference**: the smallest shift ``delta`` (metric units)
  of the first over the second that Wilcoxon's signed-rank test at ``alpha``
  (two-sided, the pair alone) detects with 80 % power on ``n`` datasets;
* the **datasets needed**: the smallest number of datasets on which the same test
  separates the two with 80 % power, if the population of paired differences is the
  observed one;
* its **confidence interval**: the datasets needed is a function of an effect the data
  estimate, so it is as uncertain as the effect (one benchmark's figure ranges from a
  third to five times the true size). By Noether's formula the signed-rank test's sample
  size scales as ``(p' - 1/2) ** -2``, ``p' = P(d_i + d_j > 0)``, whatever the shape of
  the differences (the standardised mean, used before engine 0.15.0, is right for normal
  differences only: 0.77 coverage for skewed ones at n = 100); a confidence interval of
  ``p'`` (:func:`walsh_interval`) gives ``needed * (e_observed / e_bound) ** 2`` at each
  end, ``e = |p' - 1/2|``; the interval shown takes the outer ends of that and of the
  same scaling by the exact interval of ``mean(d) / sd(d)`` (:func:`effect_interval`),
  which holds where Noether's first-order formula is loose (large effects). When either
  effect's interval reaches zero, no number of datasets is ruled out at the upper end
  (None). Its coverage of the true size is measured in ``python -m bench power``.

The fitted model is the empirical distribution of the paired differences ``d_i``
(dataset-level scores of #1 minus #2, oriented: larger is better): a simulated
benchmark of ``n'`` datasets draws ``n'`` differences from it with replacement. For the
detectable difference the differences are centred (``d_i - mean(d)``) and shifted by
``delta``: a location-shift model with the observed spread and shape. Power is the share
of :data:`N_SIMULATIONS` simulated benchmarks in which the test rejects (Monte-Carlo
standard error 0.018 at power 0.8); the same draws serve every ``delta`` and every size
tried for ``delta`` (common random numbers), so the simulated power is monotone in
``delta`` and its search is a bisection; the size search reuses one seed per size.

The test is the large-sample (normal) signed-rank test with the tie correction, zeros
dropped (``scipy.stats.wilcoxon``'s ``method="approx"``): resampled differences repeat,
so the exact null distribution without ties does not apply.

Cost is bounded: each power evaluation is O(S n') time and O(S n) memory (the draws are
counted a block at a time, :data:`DRAW_BLOCK`), the sizes tried are capped at
:data:`MAX_DATASETS` (and by :data:`CELL_BUDGET`), and the bisections take at most
:data:`MAX_STEPS` evaluations each.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from estimation.core.contract import AdvisorPower, NotApplicable
from estimation.core.table import decimal_grid

__all__ = [
    "CELL_BUDGET",
    "DRAW_BLOCK",
    "MAX_DATASETS",
    "NEEDED_CONFIDENCE",
    "N_SIMULATIONS",
    "POWER",
    "PowerResult",
    "advisor_power",
    "effect_interval",
    "pair_power",
    "signed_rank_pvalues",
    "signed_rank_rejects",
    "walsh_interval",
]

POWER = 0.8
N_SIMULATIONS = 500
MAX_DATASETS = 100_000
"""The largest number of datasets the size search tries."""
CELL_BUDGET = 40_000_000
"""Largest total of simulated differences over every power evaluation."""
MAX_STEPS = 24
NEEDED_CONFIDENCE = 0.95
"""Level of the confidence interval of the datasets needed."""
DRAW_BLOCK = 1_000_000
"""Most dataset indices drawn at once in a power evaluation (8 MB); the counts they
give are O(simulations x n) whatever the size tried."""


@dataclass(frozen=True)
class PowerResult:
    """The power figures of one pair (metric units for the differences)."""

    n_datasets: int
    observed_difference: float
    detectable_difference: float | None
    power_at_observed: float
    datasets_needed: int | None
    n_simulations: int
    note: str | None = None
    needed_low: int | None = None
    needed_high: int | None = None
    """The confidence interval of ``datasets_needed`` (:data:`NEEDED_CONFIDENCE`); a
    None ``needed_high`` with a ``needed_low`` means no upper bound."""


def signed_rank_rejects(differences: np.ndarray, alpha: float) -> np.ndarray:
    """Per row of ``differences`` (simulations x datasets): whether the two-sided
    large-sample signed-rank test with the tie correction rejects at ``alpha``."""
    pvalue = signed_rank_pvalues(differences)
    return np.isfinite(pvalue) & (pvalue < alpha)


def signed_rank_pvalues(differences: np.ndarray) -> np.ndarray:
    """Per row: the two-sided p-value of the large-sample signed-rank test (zeros
    dropped, tie-corrected variance, no continuity correction): ``scipy.stats.wilcoxon(
    d, method="approx")``. NaN where every difference is zero."""
    d = np.asarray(differences, dtype=float)
    absolute = np.abs(d)
    nonzero = d != 0
    count = nonzero.sum(axis=1)
    # one sort serves both the sorted rows and each value's position in them (the
    # inverse permutation): the advisor's simulations spend most of their time here
    order = np.argsort(absolute, axis=1, kind="stable")
    ordered = np.take_along_axis(absolute, order, axis=1)
    ranks_sorted, ties = _average_ranks_sorted(ordered)
    zeros = (~nonzero).sum(axis=1, keepdims=True)
    # rank of each value among all, then among the non-zero ones (zeros rank lowest)
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    ranks -= zeros
    r_plus = np.where(d > 0, ranks, 0.0).sum(axis=1)
    mean = count * (count + 1) / 4.0
    # the tie term counts ties among non-zero values only
    tie_term = np.where(ordered > 0, ties, 0.0).sum(axis=1) / 48.0
    variance = count * (count + 1) * (2 * count + 1) / 24.0 - tie_term
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (r_plus - mean) / np.sqrt(variance)
    return np.where(variance > 0, special.erfc(np.abs(z) / np.sqrt(2.0)), np.nan)


def _average_ranks_sorted(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) of the sorted rows, and per element ``t^2 - 1`` of its tie
    group of size ``t`` (summed over a group: ``t^3 - t``)."""
    rows, k = ordered.shape
    index = np.broadcast_to(np.arange(k), (rows, k))
    new = np.ones((rows, k), dtype=bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    first = np.maximum.accumulate(np.where(new, index, 0), axis=1)
    end = np.ones((rows, k), dtype=bool)
    end[:, :-1] = new[:, 1:]
    last = np.minimum.accumulate(np.where(end, index, k - 1)[:, ::-1], axis=1)[:, ::-1]
    size = (last - first + 1).astype(float)
    return (first + last) / 2.0 + 1.0, size**2 - 1.0


def _draw_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each row of ``indices`` (simulations x draws, values in ``[0, n)``)
    draws each of the ``n`` values: shape (simulations, n)."""
    rows = indices.shape[0]
    flat = (indices + n * np.arange(rows)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n)


def _drawn_counts(
    generator: np.random.Generator, n: int, simulations: int, size: int
) -> np.ndarray:
    """``_draw_counts(generator.integers(0, n, size=(simulations, size)), n)``, the same
    numbers, with the draws made a block of rows at a time (at most :data:`DRAW_BLOCK`
    indices each): numpy's generator gives the same stream in row blocks as in one call,
    and only the (simulations, n) counts are kept, so memory stays O(S n) however many
    datasets the size search tries (one call for 500 x 100,000 draws took 400 MB)."""
    counts = np.empty((simulations, n), dtype=np.int64)
    rows = max(1, DRAW_BLOCK // max(size, 1))
    for start in range(0, simulations, rows):
        stop = min(start + rows, simulations)
        counts[start:stop] = _draw_counts(generator.integers(0, n, size=(stop - start, size)), n)
    return counts


def _drawn_signed_rank_pvalues(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``signed_rank_pvalues`` of the rows that draw value ``j`` of ``values`` (shape
    (n,)) ``counts[:, j]`` times, in any order, in O(S n) after one sort of ``values``.

    Bit for bit ``signed_rank_pvalues(values[indices])`` for ``counts =
    _draw_counts(indices, n)``: each tie group (equal absolute values) takes the ranks
    after those of the groups below it, so its average rank is ``before + (t + 1) / 2``;
    the rank sum, the counts and the tie term are sums of halves and integers far below
    2**53, exact in floats in any order, and the p-value is then the same expression."""
    absolute = np.abs(values)
    order = np.argsort(absolute, kind="stable")
    ordered = absolute[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    by_value = counts[:, order]
    size = np.add.reduceat(by_value, starts, axis=1)
    positive = np.add.reduceat(np.where(values[order] > 0, by_value, 0), starts, axis=1)
    size[:, ordered[starts] == 0] = 0  # zeros dropped (only the lowest group is zero)
    count = size.sum(axis=1)
    before = np.cumsum(size, axis=1) - size
    r_plus = (positive * (before + (size + 1) / 2.0)).sum(axis=1)
    mean = count * (count + 1) / 4.0
    tie_term = (size * (size * size - 1)).sum(axis=1) / 48.0
    variance = count * (count + 1) * (2 * count + 1) / 24.0 - tie_term
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (r_plus - mean) / np.sqrt(variance)
    return np.where(variance > 0, special.erfc(np.abs(z) / np.sqrt(2.0)), np.nan)


def effect_interval(differences: np.ndarray, confidence: float) -> tuple[float, float] | None:
    """The exact confidence interval of the standardised effect ``|mean(d)| / sd(d)``
    for normal differences: the noncentralities whose noncentral t puts the observed
    ``|t|`` at the interval's tail probabilities, divided by ``sqrt(n)``. The lower end
    is clipped at 0 (the sign is not in question). None when ``sd(d)`` is 0 or n < 2."""
    n = differences.size
    if n < 2:
        return None
    sd = float(np.std(differences, ddof=1))
    if not sd > 0:
        return None
    t = abs(float(np.mean(differences))) / sd * np.sqrt(n)
    df = n - 1
    tail = (1 - confidence) / 2

    def excess(nc: float, target: float) -> float:
        return float(stats.nct.cdf(t, df, nc)) - target

    # the noncentral t's spread about its noncentrality (a normal approximation) brackets
    # both roots; cdf(t; nc) falls as nc grows, and is near 1/2 at nc = t
    spread = np.sqrt(1.0 + t * t / (2.0 * df))
    try:
        high = optimize.brentq(excess, t, t + 12.0 * spread + 12.0, args=(tail,), xtol=1e-10)
        low = (
            optimize.brentq(excess, 0.0, t, args=(1 - tail,), xtol=1e-10)
            if excess(0.0, 1 - tail) > 0
            else 0.0
        )
    except ValueError:
        # far in the tails scipy's noncentral t returns NaN: its normal approximation
        z = float(special.ndtri(1 - tail))
        low, high = t - z * spread, t + z * spread
    root_n = np.sqrt(n)
    return max(low, 0.0) / root_n, high / root_n


def walsh_interval(differences: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """``p' = P(d_i + d_j > 0)`` for two independent differences (a zero sum counts 1/2):
    its U-statistic estimate over the pairs ``i < j`` and a confidence interval, as
    ``(estimate, low, high)``.

    ``p' - 1/2`` is what the signed-rank test's power follows (Noether 1987), whatever
    the shape of the differences. The interval is Wilson's score interval at the
    effective size ``p'(1 - p') / var``, ``var`` the jackknife variance of the
    U-statistic, kept within ``[n / 4, n]`` (a U-statistic of a 0/1 kernel has variance
    at most ``4 p'(1 - p') / n`` to first order, and taken as at least a proportion's of
    ``n``); ``n`` where the variance is 0. O(n log n): each difference's pairs are
    counted in the sorted differences (``d_j > -d_i``, exact)."""
    d = np.sort(np.asarray(differences, dtype=float))
    n = d.size
    above = n - np.searchsorted(d, -d, side="right")
    equal = np.searchsorted(d, -d, side="right") - np.searchsorted(d, -d, side="left")
    # each difference's kernel sum over the others (its own pair with itself left out)
    own = np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0))
    row = above + 0.5 * equal - own
    total = float(row.sum()) / 2.0
    estimate = total / (n * (n - 1) / 2.0)
    variance = 0.0
    if n >= 3:
        left_out = (total - row) / ((n - 1) * (n - 2) / 2.0)
        variance = (n - 1) / n * float(((left_out - left_out.mean()) ** 2).sum())
    spread = estimate * (1.0 - estimate)
    size = float(n) if variance <= 0 or spread <= 0 else min(n, max(n / 4.0, spread / variance))
    z = float(special.ndtri(1.0 - (1.0 - confidence) / 2.0))
    centre = (estimate + z * z / (2 * size)) / (1 + z * z / size)
    half = z / (1 + z * z / size) * np.sqrt(spread / size + z * z / (4 * size * size))
    return estimate, max(0.0, centre - half), min(1.0, centre + half)


def _needed_interval(
    differences: np.ndarray, needed: int, confidence: float
) -> tuple[int | None, int | None]:
    """The interval of ``needed``: the outer ends of the two scalings below, each the
    figure times ``(e_observed / e_bound) ** 2`` at each end of an effect's interval.

    * ``e = |p' - 1/2|`` (:func:`walsh_interval`): by Noether's formula the signed-rank
      test's sample size scales as ``(p' - 1/2) ** -2`` whatever the shape of the
      differences, where the standardised mean misses skewed ones (0.77 coverage at
      n = 100 alone);
    * ``e = |mean(d)| / sd(d)`` (:func:`effect_interval`, exact for normal differences),
      which Noether's first-order formula alone under-covers where the effect is large
      (0.91 at n = 100, 26 datasets needed).

    No upper end when either effect's interval reaches 0."""
    if differences.size < 2:
        return None, None
    estimate, low_p, high_p = walsh_interval(differences, confidence)
    walsh = (
        abs(estimate - 0.5),
        max(0.0, low_p - 0.5) if estimate >= 0.5 else max(0.0, 0.5 - high_p),
        high_p - 0.5 if estimate >= 0.5 else 0.5 - low_p,
    )
    scalings = [walsh]
    bounds = effect_interval(differences, confidence)
    if bounds is not None:
        mean_effect = abs(float(np.mean(differences))) / float(np.std(differences, ddof=1))
        scalings.append((mean_effect, *bounds))
    low = needed
    high: float | None = float(needed)
    for observed, low_effect, high_effect in scalings:
        if high_effect > 0:
            low = min(low, int(np.floor(needed * (observed / high_effect) ** 2)))
        if low_effect <= 0 or high is None:
            high = None
        else:
            high = max(high, needed * (observed / low_effect) ** 2)
    low = min(needed, max(2, low))
    return low, (int(np.ceil(high)) if high is not None and high <= MAX_DATASETS else None)


def _power(values: np.ndarray, counts: np.ndarray, alpha: float) -> float:
    """The share of the simulated benchmarks (``counts`` of ``values``) that reject."""
    pvalue = _drawn_signed_rank_pvalues(values, counts)
    return float((np.isfinite(pvalue) & (pvalue < alpha)).mean())


def pair_power(
    differences: Any,
    *,
    alpha: float = 0.05,
    rng: int | np.random.Generator,
    n_simulations: int = N_SIMULATIONS,
    power: float = POWER,
) -> PowerResult:
    """The smallest detectable difference and the datasets needed for one pair.

    Parameters
    ----------
    differences : array_like, shape (n,)
        Paired dataset-level differences, #1 minus #2 (larger is better), no NaN.
    alpha : float
        Level of the two-sided test.
    rng : int or numpy.random.Generator
        Seed of the simulations.
    n_simulations : int
        Simulated benchmarks per power evaluation.
    power : float
        The power asked for (default 0.8).
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or not np.isfinite(d).all():
        raise ValueError("differences must be a 1-D array of finite values")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    n, s = d.size, int(n_simulations)
    observed = float(np.mean(d)) if n else 0.0
    if n < 2:
        return PowerResult(n, observed, None, 0.0, None, 0, "fewer than two datasets")
    # every shift is tried on the same draws: only how often each value is drawn matters
    counts = _drawn_counts(generator, n, s, n)
    detectable, note = _detectable_difference(d - observed, counts, alpha, power)
    sizes = _SizeSearch(d, s, alpha, seed=int(generator.integers(0, 2**63 - 1)), spent=s * n)
    at_observed = sizes.power_at(n)
    needed: int | None = None
    if not (d != 0).any():
        note = "identical on every dataset: no number of datasets separates them"
    elif at_observed >= power:
        needed = sizes.smallest_below(n, power)
    else:
        needed, beyond = sizes.smallest_above(n, power)
        if needed is None:
            note = note or (
                f"more than {beyond} datasets would be needed (the simulation stops there "
                "to bound its cost)"
            )
    needed_low, needed_high = (
        _needed_interval(d, needed, NEEDED_CONFIDENCE) if needed is not None else (None, None)
    )
    return PowerResult(
        n_datasets=n,
        observed_difference=observed,
        detectable_difference=detectable,
        power_at_observed=at_observed,
        datasets_needed=needed,
        n_simulations=s,
        note=note,
        needed_low=needed_low,
        needed_high=needed_high,
    )


def _detectable_difference(
    centred: np.ndarray, counts: np.ndarray, alpha: float, power: float
) -> tuple[float | None, str | None]:
    """The smallest shift of the centred differences that the test detects with
    ``power`` on the drawn ``counts`` (a location-shift model; doubling, then bisection to
    1e-3 relative), and a note when the differences do not vary."""
    spread = float(np.abs(centred).max())
    if spread == 0:
        # every difference equal: any shift is detected (the test sees n equal signs)
        detected = _power(centred + 1.0, counts, alpha) >= power
        return (0.0 if detected else None), "the two differ by the same amount on every dataset"
    low, high = 0.0, spread
    steps = 0
    while _power(centred + high, counts, alpha) < power and steps < MAX_STEPS:
        low, high, steps = high, high * 2, steps + 1
    if steps == MAX_STEPS:
        return None, None
    for _ in range(MAX_STEPS):
        middle = (low + high) / 2
        if _power(centred + middle, counts, alpha) >= power:
            high = middle
        else:
            low = middle
        if high - low <= 1e-3 * high:
            break
    return high, None


@dataclass
class _SizeSearch:
    """The power at a number of datasets drawn from the observed differences (one seed
    for every size), and the searches for the smallest size with the power asked for,
    within :data:`MAX_DATASETS` and :data:`CELL_BUDGET` simulated differences."""

    differences: np.ndarray
    simulations: int
    alpha: float
    seed: int
    spent: int

    def power_at(self, size: int) -> float:
        self.spent += self.simulations * size
        n = self.differences.size
        counts = _drawn_counts(np.random.default_rng(self.seed), n, self.simulations, size)
        return _power(self.differences, counts, self.alpha)

    def affordable(self, size: int) -> bool:
        return self.spent + self.simulations * size <= CELL_BUDGET

    def smallest_below(self, n: int, power: float) -> int:
        """Already separated at ``n``: the smallest size that still is (bisection)."""
        low, high = 1, n
        while high - low > 1:
            middle = (low + high) // 2
            if self.power_at(middle) >= power:
                high = middle
            else:
                low = middle
        return high

    def smallest_above(self, n: int, power: float) -> tuple[int | None, int]:
        """Not separated at ``n``: doubling, then bisection to 1 %; (None, the largest
        size tried) when the bounds stop the doubling first."""
        low, high = n, 2 * n
        while high <= MAX_DATASETS and self.affordable(high):
            if self.power_at(high) >= power:
                break
            low, high = high, 2 * high
        else:
            return None, low
        while high - low > max(1, low // 100):
            middle = (low + high) // 2
            if not self.affordable(middle):
                break
            if self.power_at(middle) >= power:
                high = middle
            else:
                low = middle
        return high, low


def advisor_power(
    scores: np.ndarray | None,
    first: int,
    second: int,
    names: tuple[str, ...] | list[str],
    *,
    alpha: float,
    seed: int,
) -> AdvisorPower | NotApplicable:
    """The advisor's power figures for the board's #1 (``first``) and #2 (``second``)
    from the oriented dataset-level ``scores`` (None for ranking input)."""
    if scores is None:
        return NotApplicable("ranking-only input has no score differences to simulate")
    both = np.isfinite(scores[:, first]) & np.isfinite(scores[:, second])
    if both.sum() < 2:
        return NotApplicable("fewer than two datasets with results of both")
    a, b = names[first], names[second]
    # Exact where the scores are on a decimal grid, as the Wilcoxon tests take them.
    d = decimal_grid(scores[:, [first, second]]).pair_differences(0, 1, both)
    beyond = NotApplicable(
        f"the differences between {a} and {b} (scores as large as "
        f"{float(np.nanmax(np.abs(scores[both][:, [first, second]]))):.3g}) leave the float range"
    )
    if not np.isfinite(d).all():
        return beyond
    # The test does not depend on the scale: simulate at a power of two that keeps every
    # shift and mean finite, and scale the differences back (exactly).
    largest = float(np.abs(d).max())
    exponent = int(np.frexp(largest)[1]) if largest > 0 else 0
    result = pair_power(np.ldexp(d, -exponent), alpha=alpha, rng=seed)
    with np.errstate(over="ignore"):
        observed = float(np.ldexp(result.observed_difference, exponent))
        detectable = (
            None
            if result.detectable_difference is None
            else float(np.ldexp(result.detectable_difference, exponent))
        )
    if not np.isfinite(observed) or (detectable is not None and not np.isfinite(detectable)):
        return beyond
    result = replace(result, observed_difference=observed, detectable_difference=detectable)
    words = [
        f"At {result.n_datasets} datasets Wilcoxon's test (alpha {alpha:g}) would detect a "
        f"difference between {a} and {b} of "
        + (
            f"{result.detectable_difference:.3g}"
            if result.detectable_difference is not None
            else "(not found)"
        )
        + f" with {POWER:.0%} power; the observed mean difference is "
        f"{result.observed_difference:.3g}"
        + (f" ({b} ahead on the mean score)." if result.observed_difference < 0 else ".")
    ]
    if result.datasets_needed is not None and result.power_at_observed >= POWER:
        words.append(
            f"They are already separated with {POWER:.0%} power "
            f"(from about {result.datasets_needed} datasets{_needed_words(result, ', ')})."
        )
    elif result.datasets_needed is not None:
        words.append(
            f"About {result.datasets_needed} datasets"
            f"{_needed_words(result, ' (', ')')} would separate them with "
            f"{POWER:.0%} power if the differences stay as observed."
        )
    elif result.note:
        words.append(result.note[0].upper() + result.note[1:] + ".")
    return AdvisorPower(
        first=a,
        second=b,
        alpha=float(alpha),
        power=POWER,
        n_datasets=result.n_datasets,
        observed_difference=result.observed_difference,
        detectable_difference=result.detectable_difference,
        power_at_observed=result.power_at_observed,
        datasets_needed=result.datasets_needed,
        n_simulations=result.n_simulations,
        sentence=" ".join(words).replace("%", " %"),
        note=result.note,
        datasets_needed_low=result.needed_low,
        datasets_needed_high=result.needed_high,
    )


def _needed_words(result: PowerResult, before: str, after: str = "") -> str:
    """The datasets needed's confidence interval in words ("" when there is none)."""
    if result.needed_low is None:
        return ""
    level = f"{NEEDED_CONFIDENCE:.0%} confidence interval"
    if result.needed_high is None:
        words = (
            f"{level}: at least {result.needed_low}, with no upper end, as the data cannot "
            "rule out a difference too small to detect"
        )
    else:
        words = f"{level} {result.needed_low} to {result.needed_high}"
    return f"{before}{words}{after}"
