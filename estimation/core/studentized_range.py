"""The studentized range distribution, by our own quadrature: any m, any df, any batch.

Tukey's HSD (finite df) and the Nemenyi test (df = inf) need the survival function
for many statistics at once. scipy integrates each value numerically (milliseconds
apiece with finite df) and its ``1 - cdf`` loses every value below about 1e-15. Here:

- ``df = inf``: the range of ``m`` standard normals exceeds ``q`` when, for the largest
  of them at ``z``, the others are all below ``z`` and one is below ``z - q``:
  ``sf(q) = m * int phi(z) Phi(z)^(m-1) [1 - (1 - Phi(z-q)/Phi(z))^(m-1)] dz``. Every
  factor is positive (no ``1 - cdf`` cancellation), so the tail keeps its relative
  accuracy down to 1e-200.
- finite ``df``: the mixture ``sf(q; m, df) = int f(s) sf(q s; m, inf) ds`` over the
  distribution of ``s = sqrt(chi2_df / df)``, integrated in ``log s``.

Each one-dimensional integral is a Gauss-Legendre rule on the window where its
integrand (log-concave, one peak) is within ``_LOG_WINDOW`` of its largest value, the
window found per statistic on a coarse grid. These integrals give ``log sf`` at the
nodes of a piecewise Chebyshev interpolant (degree 16), built once per ``(m, df)``
(tens of milliseconds, a few hundred for df = 1: no scipy integration), whose pieces
are halved until it matches the quadrature within ``_LOG_SF_ATOL`` at points between
its nodes. Every value, however many are asked for in one call, goes through that
interpolant, so a value does not depend on its batch.

Accuracy, against ``scipy.stats.studentized_range.sf`` (tests/core/test_studentized_range.py):
within ``1e-6`` relative wherever ``sf >= 1e-7`` for m from 2 to 1000 and df from 1 to
inf, apart from scipy's own absolute integration error (its ``epsabs``, 1e-11); at
df = 1 and 2 scipy itself loses the tail (below 1e-3 and 1e-5), where the closed form
of m = 2 (``2 t.sf(q / sqrt 2, df)``) checks ours to 1e-8 relative down to 1e-30.
Below 1e-40 (finite df) the tail is the last piece's power law, an upper bound
(``log sf`` is concave in ``log q``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import optimize, special, stats

__all__ = ["studentized_range_isf", "studentized_range_sf"]

# Integrands are cut where they fall below exp(-_LOG_WINDOW) of their peak (relative
# error below 1e-17 from the cut, for any integrand that is log-concave).
_LOG_WINDOW = 40.0
# Points of the coarse grid that finds the window, and Gauss-Legendre nodes in each
# interval of that grid within the window (a step of the grid is at most a few widths
# of the peak, so the rule is exact to rounding there).
_COARSE = 96
_NODES = 8
# The interpolant of log sf matches the quadrature within this at its check points
# (so sf within 1e-10 relative of the quadrature, far inside the 1e-6 promised).
_LOG_SF_ATOL = 1e-10
# df = inf survival functions below this are not interpolated (0 beyond).
_SF_FLOOR = 1e-200
# Lower end in log q for finite df: the cdf there is below 1e-17 for every m >= 2.
_LOG_Q_FLOOR = np.log(1e-18)
# Halvings of a piece, and pieces at once, before the construction reports a failure.
_MAX_HALVINGS = 30
_MAX_PIECES = 4000

_LEGENDRE_X, _LEGENDRE_W = np.polynomial.legendre.leggauss(_NODES)


def _log_integral(log_integrand, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``log int exp(log_integrand(x, rows))`` over ``[lower, upper]``, one integral per row.

    ``log_integrand(x, rows)`` gives the log integrand of integral ``rows[i]`` at
    ``x[i]``. A coarse grid finds where the integrand is within ``_LOG_WINDOW`` of its
    peak (widened by one step: the peak of a log-concave integrand lies next to the
    largest grid value); each grid interval there gets a Gauss-Legendre rule.
    """
    count = lower.size
    grid = lower[:, None] + (upper - lower)[:, None] * np.linspace(0.0, 1.0, _COARSE)
    every = np.repeat(np.arange(count), _COARSE)
    log_values = log_integrand(grid.ravel(), every).reshape(count, _COARSE)
    peak = log_values.max(axis=1)
    inside = log_values >= peak[:, None] - _LOG_WINDOW
    used = inside[:, :-1] | inside[:, 1:]
    used[:, 1:] |= used[:, :-1].copy()
    used[:, :-1] |= used[:, 1:].copy()
    rows, intervals = np.nonzero(used)
    left, width = grid[rows, intervals], (grid[rows, intervals + 1] - grid[rows, intervals])
    nodes = left[:, None] + width[:, None] * (_LEGENDRE_X + 1) / 2
    weights = width[:, None] * _LEGENDRE_W / 2
    rows = np.repeat(rows, _NODES)
    values = log_integrand(nodes.ravel(), rows)
    total = np.bincount(rows, np.exp(values - peak[rows]) * weights.ravel(), minlength=count)
    with np.errstate(divide="ignore"):
        return np.log(total) + peak


def _log_sf_normal_range(q: np.ndarray, m: int) -> np.ndarray:
    """``log P(range of m standard normals > q)`` for ``q >= 0``, by quadrature over the
    largest value ``z`` (the module's first formula)."""
    log_m, others = np.log(m), m - 1

    def log_integrand(z: np.ndarray, rows: np.ndarray) -> np.ndarray:
        shifted = z - q[rows]
        log_a, log_c = special.log_ndtr(z), special.log_ndtr(shifted)
        ratio = np.exp(log_c - log_a)  # Phi(z - q) / Phi(z)
        # log(1 - ratio): directly when the ratio is small, else from the difference
        # Phi(z) - Phi(z - q) taken in the tails where both are small (no cancellation).
        upper_tails = shifted + z > 0
        difference = np.where(
            upper_tails, special.ndtr(-shifted) - special.ndtr(-z), np.exp(log_a) - np.exp(log_c)
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            log_rest = np.where(
                ratio <= 0.5, np.log1p(-np.minimum(ratio, 0.5)), np.log(difference) - log_a
            )
            log_h = np.log(-np.expm1(others * log_rest))
        return log_m - 0.5 * (z * z + np.log(2 * np.pi)) + others * log_a + log_h

    # The integrand peaks below max(q / 2, sqrt(2 log m)) + a few and is negligible
    # (below exp(-70) of its peak) 12 beyond either end.
    upper = np.maximum(q / 2, np.sqrt(2 * np.log(m))) + 12.0
    return _log_integral(log_integrand, np.full(q.shape, -12.0), upper)


def _log_sf_mixture(q: np.ndarray, m: int, df: float, normal: _LogSfInterpolant) -> np.ndarray:
    """``log sf(q; m, df)`` as the mixture over ``u = log s`` of the df = inf survival
    function (``normal``), ``s = sqrt(chi2_df / df)``.

    Below ``s_1 = q_1 / q``, with ``q_1`` where the df = inf cdf is under 1e-17
    (:func:`_normal_range_cdf_negligible`), that survival function is 1 and the mixture
    is the chi distribution's own cdf there; the quadrature covers the rest, where the
    survival function falls (narrow in ``log s`` for large m: a grid over the whole
    chi distribution would step over it).
    """
    half = df / 2
    log_norm = half * np.log(half) + np.log(2.0) - special.gammaln(half)

    def log_integrand(u: np.ndarray, rows: np.ndarray) -> np.ndarray:
        # density of log s: 2 (df/2)^(df/2) / Gamma(df/2) exp(df u - df e^(2u) / 2)
        return log_norm + df * u - half * np.exp(2 * u) + normal.log_sf(q_some[rows] * np.exp(u))

    chi2 = stats.chi2(df)
    with np.errstate(divide="ignore"):
        log_q = np.log(q)
    start = np.log(_normal_range_cdf_negligible(m)) - log_q
    # log s beyond the chi distribution's 1e-30 quantiles, or where q s is past the
    # df = inf interpolant (sf there below _SF_FLOOR), holds nothing the result can show.
    # For a q far in the tail the peak lies below the chi distribution's range: the
    # df = inf sf falls from 1 to _SF_FLOOR within 5 in log s, the chi density's left
    # tail (slope df in log s) by exp(-_LOG_WINDOW) within _LOG_WINDOW / df.
    lowest = 0.5 * np.log(chi2.ppf(1e-30) / df)
    highest = 0.5 * np.log(chi2.isf(1e-30) / df)
    upper = np.minimum(highest, np.log(normal.q_end) - log_q)
    # (never below the 1e-300 quantile: for large df that stretch would be most of a
    # coarse grid that then steps over the chi density's narrow peak).
    with np.errstate(divide="ignore"):
        floor = 0.5 * np.log(chi2.ppf(1e-300) / df)
    tail = np.maximum(floor, upper - 5.0 - 1.5 * _LOG_WINDOW / df)
    lower = np.maximum(start, np.minimum(lowest, tail))
    below = chi2.logcdf(df * np.exp(2 * np.minimum(start, highest)))
    rest = np.full(q.shape, -np.inf)
    some = lower < upper
    q_some = q[some]
    rest[some] = _log_integral(log_integrand, lower[some], upper[some])
    return np.logaddexp(below, rest)


@lru_cache(maxsize=256)
def _normal_range_cdf_negligible(m: int) -> float:
    """A ``q`` where ``P(range of m standard normals <= q) < 1e-17``: the range is at
    most ``q`` only if the m - 1 others lie within ``q`` of the first, below
    ``m (2 Phi(q / 2) - 1)^(m - 1) = m erf(q / sqrt 8)^(m - 1)``."""
    return float(np.sqrt(8.0) * special.erfinv((1e-17 / m) ** (1 / (m - 1))))


# Chebyshev interpolation of this degree on each piece; pieces are halved until the
# interpolant matches at _CHECKS points between its nodes.
_DEGREE = 16
_CHECKS = 8
_CHEBYSHEV_NODES = np.cos(np.pi * (np.arange(_DEGREE + 1) + 0.5) / (_DEGREE + 1))
_TO_COEFFICIENTS = np.linalg.inv(np.polynomial.chebyshev.chebvander(_CHEBYSHEV_NODES, _DEGREE))
_CHECK_POINTS = np.cos(np.pi * (np.arange(_CHECKS) + 0.5) / _CHECKS) * 0.999


def _chebyshev(coefficients: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Clenshaw's recurrence, row ``i`` of ``coefficients`` at ``t[i]``."""
    after = before = np.zeros(t.shape)
    for k in range(coefficients.shape[1] - 1, 0, -1):
        after, before = coefficients[:, k] + 2 * t * after - before, after
    return coefficients[:, 0] + t * after - before


@dataclass(frozen=True)
class _LogSfInterpolant:
    """``log sf`` as a piecewise Chebyshev interpolant of ``q`` (df = inf) or of
    ``log q`` (finite df, whose tail is a power law in ``q``) between ``edges``.

    Below the edges the survival function is 1 (its cdf there is below 1e-17); above
    them it is 0 for df = inf (below ``_SF_FLOOR``) and a power law continued from the
    last edge for finite df.
    """

    m: int
    df: float
    edges: np.ndarray
    coefficients: np.ndarray

    @property
    def q_end(self) -> float:
        return float(self.edges[-1] if np.isinf(self.df) else np.exp(self.edges[-1]))

    def log_sf(self, q: np.ndarray) -> np.ndarray:
        finite = np.isfinite(self.df)
        with np.errstate(divide="ignore"):
            x = np.log(q) if finite else q
        low, high = self.edges[0], self.edges[-1]
        values = np.zeros(x.shape)
        inside = (x >= low) & (x <= high)
        piece = np.clip(np.searchsorted(self.edges, x[inside]) - 1, 0, self.edges.size - 2)
        a, b = self.edges[piece], self.edges[piece + 1]
        values[inside] = _chebyshev(self.coefficients[piece], (2 * x[inside] - a - b) / (b - a))
        beyond = x > high
        if finite:
            last = self.coefficients[-1]
            end = float(last.sum())
            slope = float((np.arange(last.size) ** 2 * last).sum()) * 2 / (high - self.edges[-2])
            values[beyond] = end + slope * (x[beyond] - high)
        else:
            values[beyond] = -np.inf
        return values


def _pieces(log_sf, low: float, high: float, description: str) -> tuple[np.ndarray, np.ndarray]:
    """Edges and Chebyshev coefficients of ``log_sf`` on ``[low, high]``: pieces halved
    until the interpolant matches ``log_sf`` within ``_LOG_SF_ATOL`` at the check points
    (each piece on its own: no ringing from its neighbours, as a global spline has)."""
    done: list[tuple[float, float, np.ndarray]] = []
    pending = np.linspace(low, high, 33)
    lefts, rights = pending[:-1], pending[1:]
    for _ in range(_MAX_HALVINGS):
        middle, half = (lefts + rights) / 2, (rights - lefts) / 2
        nodes = middle[:, None] + half[:, None] * _CHEBYSHEV_NODES
        checks = middle[:, None] + half[:, None] * _CHECK_POINTS
        values = log_sf(np.concatenate([nodes.ravel(), checks.ravel()]))
        node_values = values[: nodes.size].reshape(nodes.shape)
        check_values = values[nodes.size :].reshape(checks.shape)
        coefficients = node_values @ _TO_COEFFICIENTS.T
        fitted = np.polynomial.chebyshev.chebval(_CHECK_POINTS, coefficients.T)
        good = (np.abs(fitted - check_values) <= _LOG_SF_ATOL).all(axis=1)
        done += zip(lefts[good], rights[good], coefficients[good], strict=True)
        if good.all():
            done.sort(key=lambda piece: piece[0])
            edges = np.array([piece[0] for piece in done] + [done[-1][1]])
            return edges, np.array([piece[2] for piece in done])
        if (~good).sum() > _MAX_PIECES or not np.isfinite(check_values).all():
            break
        lefts, rights = lefts[~good], rights[~good]
        lefts, rights = (
            np.concatenate([lefts, middle[~good]]),
            np.concatenate([middle[~good], rights]),
        )
    raise ArithmeticError(f"the studentized range interpolant for {description} did not converge")


@lru_cache(maxsize=64)
def _log_sf_interpolant(m: int, df: float) -> _LogSfInterpolant:
    """Built once per ``(m, df)`` in some milliseconds (the module's docstring)."""
    description = f"m={m}, df={df}"
    if np.isinf(df):
        # Beyond q_end every pair's difference, hence the range, has sf < _SF_FLOOR;
        # below _normal_range_cdf_negligible the sf is 1 within 1e-17.
        q_end = np.sqrt(2.0) * stats.norm.isf(_SF_FLOOR / (m * (m - 1)))
        edges, coefficients = _pieces(
            lambda q: _log_sf_normal_range(q, m),
            _normal_range_cdf_negligible(m),
            q_end,
            description,
        )
        return _LogSfInterpolant(m, np.inf, edges, coefficients)
    normal = _log_sf_interpolant(m, np.inf)
    # Beyond q_end (union bound over pairs, each sqrt(2) t) sf < 1e-40: the tail is
    # continued as the power law it tends to there.
    log_q_end = np.log(np.sqrt(2.0) * stats.t.isf(1e-40 / (m * (m - 1)), df))
    edges, coefficients = _pieces(
        lambda x: _log_sf_mixture(np.exp(x), m, df, normal), _LOG_Q_FLOOR, log_q_end, description
    )
    return _LogSfInterpolant(m, float(df), edges, coefficients)


def _check_parameters(m: int, df: float) -> tuple[int, float]:
    if int(m) != m or m < 2:
        raise ValueError(f"m must be an integer >= 2, got {m!r}")
    if not df >= 1:
        raise ValueError(f"df must be >= 1 (or inf), got {df!r}")
    return int(m), float(df)


def studentized_range_sf(q: np.ndarray, m: int, df: float) -> np.ndarray:
    """``scipy.stats.studentized_range.sf(q, m, df)``, fast for many values.

    Parameters
    ----------
    q : array_like
        Statistics (``q <= 0`` gives 1, NaN gives NaN).
    m : int
        Number of means, ``>= 2``.
    df : float
        Degrees of freedom of the standard error, ``>= 1``; ``inf`` for a known one.

    Notes
    -----
    Every value goes through the interpolant of ``(m, df)`` (module docstring): within
    1e-10 relative of our quadrature, within 1e-6 relative of scipy for ``sf >= 1e-7``;
    beyond, scipy's ``1 - cdf`` is rounding noise and ours keeps its relative accuracy
    down to 1e-200 (df = inf; 0 beyond) or 1e-40 (finite df; a power law beyond).
    """
    m, df = _check_parameters(m, df)
    q = np.asarray(q, dtype=float)
    if q.size == 0:
        return np.zeros(q.shape)
    interpolant = _log_sf_interpolant(m, df)
    values = np.exp(np.minimum(interpolant.log_sf(np.maximum(q, 0.0)), 0.0))
    values[np.isnan(q)] = np.nan
    return values


@lru_cache(maxsize=256)
def studentized_range_isf(p: float, m: int, df: float) -> float:
    """The ``q`` with ``studentized_range_sf(q, m, df) = p`` (``0 < p < 1``): Tukey's and
    Nemenyi's critical value at level ``p``, found by a bracketed root search on the
    same interpolant, so ``sf(q) < p`` exactly where ``q`` passes it (to ``1e-12`` in ``q``)."""
    m, df = _check_parameters(m, df)
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    target = np.log(p)

    def excess(q: float) -> float:
        return float(_log_sf_interpolant(m, df).log_sf(np.array([q]))[0]) - target

    upper = 1.0
    while excess(upper) > 0:
        upper *= 2
    return float(optimize.brentq(excess, 0.0, upper, xtol=1e-12, rtol=1e-14))
