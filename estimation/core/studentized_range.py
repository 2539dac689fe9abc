"""The studentized range survival function, fast for many values.

Tukey's HSD (finite df) and the Nemenyi test (df = inf) need ``studentized_range.sf``
for many statistics at once; scipy evaluates each by numerical integration
(milliseconds apiece with finite df). Here a verified interpolant built once per
``(m, df)`` answers in microseconds (checked within 1e-7 of scipy at its knots as it is
built, within 1e-6 at random points by the tests), and a few values still go
to scipy directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import interpolate, special, stats

__all__ = ["studentized_range_sf"]


# Up to this many distinct statistics per call are evaluated directly with scipy
# (about 10 ms each); beyond, through the interpolant of _sf_interpolant (about 1 s to
# build once per (m, df), then microseconds per value).
_DIRECT_SF_MAX = 40
# Largest absolute error of the interpolated survival function against scipy, checked
# at the midpoints of the knots while the interpolant is built.
_SF_TOLERANCE = 1e-7
# Coarse search grid in log q for the interpolation domain.
_SF_LOG_Q_RANGE = (np.log(1e-4), np.log(1e3))
_SF_COARSE_STEP = 1.0
# The domain reaches down to a cdf below _CDF_FLAT (below it sf = 1 within that) and
# up to a survival function below _SF_FLAT (beyond it the tail is extrapolated, within
# that of scipy, whose sf = 1 - cdf carries absolute rounding noise near 1e-15).
_CDF_FLAT = 1e-12
_SF_FLAT = 1e-9


@dataclass(frozen=True)
class _SfInterpolant:
    """``studentized_range.sf(q, m, df)`` as a cubic spline of ``ndtri(cdf)`` in ``log q``.

    Inside the knots the spline is used; below them the survival function is 1 when
    ``flat_below`` (the cdf there is under ``_CDF_FLAT``), above them the probit is
    extended linearly when ``flat_above`` (the sf there is under ``_SF_FLAT``);
    anything else goes to scipy.
    """

    m: int
    df: float
    spline: interpolate.CubicSpline
    log_q: np.ndarray
    flat_below: bool
    flat_above: bool

    def __call__(self, q: np.ndarray) -> np.ndarray:
        values = np.full(q.shape, np.nan)
        log_q = np.log(np.maximum(q, 1e-300))
        low, high = self.log_q[0], self.log_q[-1]
        inside = (log_q >= low) & (log_q <= high)
        values[inside] = special.ndtr(-self.spline(log_q[inside]))
        if self.flat_below:
            values[log_q < low] = 1.0
        if self.flat_above:
            beyond = log_q > high
            slope = float(self.spline(high, 1))
            values[beyond] = special.ndtr(-(self.spline(high) + slope * (log_q[beyond] - high)))
        direct = np.isnan(values)
        if direct.any():
            values[direct] = stats.studentized_range.sf(q[direct], self.m, self.df)
        return values


def _studentized_range_cdf(log_q: np.ndarray, m: int, df: float) -> np.ndarray:
    return np.array([stats.studentized_range.cdf(np.exp(x), m, df) for x in log_q])


def _domain_end(inner: float, outer: float, accept, m: int, df: float) -> float | None:
    """Bisect ``log q`` between a middle point and a flat one for an acceptable knot."""
    for _ in range(40):
        middle = (inner + outer) / 2
        verdict = accept(float(_studentized_range_cdf(np.array([middle]), m, df)[0]))
        if verdict == 0:
            return middle
        inner, outer = (middle, outer) if verdict > 0 else (inner, middle)
    return None


@lru_cache(maxsize=32)
def _sf_interpolant(m: int, df: float) -> _SfInterpolant | None:
    """Build (once per ``(m, df)``) and verify the interpolant; ``None`` if that fails.

    The probit of the cdf is smooth and nearly linear in ``log q`` over the whole
    range (the power-law tails of small ``df`` included), so a cubic spline through a
    few dozen scipy values is accurate to far below 1e-7. Every knot interval is
    halved until the spline matches scipy within ``_SF_TOLERANCE`` at its midpoint;
    the final spline also passes through those midpoints. The domain ends where the
    cdf falls below ``_CDF_FLAT`` and where the survival function falls below
    ``_SF_FLAT`` (but stays above scipy's rounding floor). A spline that is not
    increasing (never seen) is rejected: scipy then computes every value.
    """
    coarse = np.arange(_SF_LOG_Q_RANGE[0], _SF_LOG_Q_RANGE[1] + 1e-9, _SF_COARSE_STEP)
    cdf = _studentized_range_cdf(coarse, m, df)
    middle_range = np.flatnonzero((cdf > _CDF_FLAT) & (1 - cdf > _SF_FLAT))
    if middle_range.size == 0:
        return None
    first, last = middle_range[0], middle_range[-1]
    knots, values = list(coarse[first : last + 1]), list(cdf[first : last + 1])
    flat_below = flat_above = False
    if first > 0:

        def lower(value: float) -> int:
            return 1 if value > _CDF_FLAT else (0 if value > 0 else -1)

        end = _domain_end(coarse[first], coarse[first - 1], lower, m, df)
        if end is not None:
            knots.insert(0, end)
            values.insert(0, float(_studentized_range_cdf(np.array([end]), m, df)[0]))
            flat_below = True
    if last < coarse.size - 1:

        def upper(value: float) -> int:
            tail = 1 - value
            return 1 if tail > _SF_FLAT else (0 if tail >= _SF_FLAT / 100 else -1)

        end = _domain_end(coarse[last], coarse[last + 1], upper, m, df)
        if end is not None:
            knots.append(end)
            values.append(float(_studentized_range_cdf(np.array([end]), m, df)[0]))
            flat_above = True
    if len(knots) < 2:
        return None
    knots_array, values_array = np.array(knots), np.array(values)
    pending = np.arange(knots_array.size - 1)
    while pending.size:
        if knots_array.size > 2000:
            return None
        spline = interpolate.CubicSpline(knots_array, special.ndtri(values_array))
        middle = (knots_array[pending] + knots_array[pending + 1]) / 2
        middle_values = _studentized_range_cdf(middle, m, df)
        failed = np.abs(special.ndtr(spline(middle)) - middle_values) > _SF_TOLERANCE
        merged = np.concatenate([knots_array, middle])
        order = np.argsort(merged, kind="stable")
        knots_array = merged[order]
        values_array = np.concatenate([values_array, middle_values])[order]
        # A failed interval becomes two intervals to check next round.
        position = np.argsort(order)
        left = position[pending[failed]]
        pending = np.sort(np.concatenate([left, left + 1]))
    probit = special.ndtri(values_array)
    if not (np.isfinite(probit).all() and (np.diff(probit) > 0).all()):
        return None
    spline = interpolate.CubicSpline(knots_array, probit)
    dense = np.linspace(knots_array[0], knots_array[-1], 20 * knots_array.size)
    if (spline(dense, 1) <= 0).any():
        return None
    return _SfInterpolant(
        m=m,
        df=df,
        spline=spline,
        log_q=knots_array,
        flat_below=flat_below,
        flat_above=flat_above,
    )


def studentized_range_sf(q: np.ndarray, m: int, df: float) -> np.ndarray:
    """``scipy.stats.studentized_range.sf(q, m, df)`` for finite ``q``, fast for many values.

    Up to ``_DIRECT_SF_MAX`` values go to scipy; more use the cached interpolant of
    :func:`_sf_interpolant`, within 1e-7 absolute of scipy (verified while it is built
    and against scipy at many points by the tests).
    """
    q = np.asarray(q, dtype=float)
    interpolant = _sf_interpolant(m, df) if q.size > _DIRECT_SF_MAX else None
    if interpolant is None:
        return stats.studentized_range.sf(q, m, df)
    return interpolant(q)
