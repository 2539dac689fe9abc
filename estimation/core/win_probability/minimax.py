"""Data-independent minimax weights: the bound on the worst-case risk and its
minimisation (METHODS section 2)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize

from estimation.core.rankings import _check_K
from estimation.core.win_probability.design import weights_to_lam

# ---------------------------------------------------------------------------
# minimax weights (METHODS 2.2)


@dataclass(frozen=True, eq=False)
class MinimaxWeights:
    """Data-independent weights minimising the worst-case expected TV error bound.

    Attributes
    ----------
    weights : ndarray, shape (K,)
    bound : float
        The bound at ``weights`` (closed form for K <= 2, numeric for K >= 3).
    bound_mle : float
        ``sqrt(m / n)``, the MLE's bound.
    bound_k2 : float
        The K = 2 closed-form bound at ``w* = 1 - 1/(2n + 2)`` (``nan`` when ``m < 2``).
    """

    m: int
    n: int
    K: int
    weights: np.ndarray
    bound: float
    bound_mle: float
    bound_k2: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "m": self.m,
            "n": self.n,
            "K": self.K,
            "weights": [float(v) for v in self.weights],
            "bound": self.bound,
            "bound_mle": self.bound_mle,
            "bound_k2": self.bound_k2,
        }


def _k2_bound(w: float, m: int, n: int) -> float:
    return float(np.sqrt(m) * np.sqrt(2 * (1 - w) ** 2 + (w**2 + (1 - w) ** 2) / n))


def _bound_terms(w: np.ndarray, m: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients of ``f_j(t) = sqrt(A t^2 + B_j t + C_j)``, j = 1..K."""
    K = len(w)
    w1 = w[0]
    w2 = w[1] if K > 1 else 0.0
    M = m - K + 1
    A = np.full(K, (1.0 - w1) ** 2)
    Bc = np.empty(K)
    C = np.empty(K)
    Bc[: K - 1] = -2.0 * (1.0 - w1) * w[1:] + w1**2 / n
    C[: K - 1] = w[1:] ** 2 + w2**2 / n
    Bc[K - 1] = M * w1**2 / n
    C[K - 1] = M**2 * w2**2 / n
    return A, Bc, C


def _inner_max(w: np.ndarray, m: int, n: int) -> tuple[float, np.ndarray]:
    """``max_t sum_j f_j(t_j)`` over the simplex (concave, separable), and the argmax."""
    A, Bc, C = _bound_terms(w, m, n)
    K = len(w)
    if K == 1:
        t = np.ones(1)
        return float(np.sqrt(A[0] + Bc[0] + C[0])), t

    def t_of(mu: float) -> np.ndarray:
        # Root of f_j'(t) = mu, written without dividing by A (A may be 0), clipped.
        mu2 = mu * mu
        gap = np.maximum(mu2 - A, 1e-300)
        discriminant = np.maximum(Bc * Bc - 4.0 * A * C, 0.0)
        u = mu * np.sqrt(discriminant / gap)
        t = (Bc * Bc - 4.0 * C * mu2) / (2.0 * gap * np.maximum(u + Bc, 1e-300))
        return np.clip(t, 0.0, 1.0)

    lo = float(np.sqrt(A.max()))
    hi = max(lo, 1.0)
    while t_of(hi).sum() > 1.0 and hi < 1e300:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if t_of(mid).sum() > 1.0:
            lo = mid
        else:
            hi = mid
    t = t_of(hi)
    deficit = 1.0 - t.sum()
    if deficit > 0:  # put the rounding remainder where the marginal gain is largest
        slope = (2 * A * t + Bc) / (2 * np.sqrt(np.maximum(A * t * t + Bc * t + C, 1e-300)))
        t[np.argmax(np.where(t < 1, slope, -np.inf))] += deficit
    value = float(np.sqrt(np.maximum(A * t * t + Bc * t + C, 0.0)).sum())
    return value, t


def _bound_gradient(w: np.ndarray, t: np.ndarray, m: int, n: int) -> np.ndarray:
    """Gradient of ``sum_j ||v_j(w, t)||`` in ``w`` at fixed ``t`` (Danskin)."""
    K = len(w)
    w1 = w[0]
    w2 = w[1]
    M = m - K + 1
    grad = np.zeros(K)
    for j in range(K - 1):
        v = np.array([(1 - w1) * t[j] - w[j + 1], w1 * np.sqrt(t[j] / n), w2 / np.sqrt(n)])
        norm = np.linalg.norm(v)
        if norm == 0:
            continue
        grad[0] += (v[0] * -t[j] + v[1] * np.sqrt(t[j] / n)) / norm
        grad[j + 1] += -v[0] / norm
        grad[1] += v[2] / np.sqrt(n) / norm
    v = np.array([(1 - w1) * t[K - 1], w1 * np.sqrt(M * t[K - 1] / n), w2 * M / np.sqrt(n)])
    norm = np.linalg.norm(v)
    if norm > 0:
        grad[0] += (v[0] * -t[K - 1] + v[1] * np.sqrt(M * t[K - 1] / n)) / norm
        grad[1] += v[2] * M / np.sqrt(n) / norm
    return grad


def _minimax_floor(n: int) -> float:
    return (8 * n - np.sqrt(8 * n)) / (8 * n - 1)


def minimax_bound(weights: Any, m: int, n: int) -> float:
    """The worst-case TV bound ``B(w)`` of METHODS 2.2 for ``K = len(weights)``.

    Valid for feasible ``w``: non-increasing, summing to 1, with
    ``w[0] >= (8n - sqrt(8n)) / (8n - 1)`` (which makes the inner maximisation
    concave; it is solved exactly by bisection on its KKT multiplier).
    """
    w = np.asarray(weights, dtype=float)
    weights_to_lam(w)
    if w[0] < _minimax_floor(n) - 1e-12:
        raise ValueError(
            f"w[0] must be at least (8n - sqrt(8n)) / (8n - 1) = {_minimax_floor(n):.6f} "
            f"for the bound to hold, got {w[0]}"
        )
    return _inner_max(w, m, n)[0]


@functools.lru_cache(maxsize=256)
def minimax_weights(m: int, n: int, K: int) -> MinimaxWeights:
    """Minimax weights for ``m`` algorithms, ``n`` datasets and the top ``K`` positions.

    * ``K = 1``: the MLE, bound ``sqrt(m/n)``.
    * ``K = 2``: closed form ``w* = 1 - 1/(2n + 2)`` with bound
      ``sqrt(m) sqrt(2 (1-w)^2 + (w^2 + (1-w)^2)/n)``.
    * ``K >= 3``: ``B(w)`` of METHODS 2.2 minimised numerically. ``B`` is a maximum
      of sums of Euclidean norms of affine functions of ``w``, hence convex in ``w``;
      its gradient at the inner maximiser (Danskin) drives SLSQP over the polytope
      ``{w non-increasing, sum 1, w[0] >= (8n - sqrt(8n))/(8n - 1)}`` from two
      starting points, keeping the better result. The optimum often sits on the
      ``w[0]`` floor.

    Results are cached per ``(m, n, K)``; the returned arrays are read-only.
    """
    m, n, K = int(m), int(n), int(K)
    if m < 1 or n < 1:
        raise ValueError(f"m and n must be positive, got m={m}, n={n}")
    K = _check_K(K, m)
    bound_mle = float(np.sqrt(m / n))
    w_star = 1.0 - 1.0 / (2 * n + 2)
    bound_k2 = _k2_bound(w_star, m, n) if m >= 2 else float("nan")
    if K == 1:
        weights = np.ones(1)
        bound = bound_mle
    elif K == 2:
        weights = np.array([w_star, 1.0 - w_star])
        bound = bound_k2
    else:
        weights, bound = _minimise_bound(m, n, K)
    weights.setflags(write=False)
    return MinimaxWeights(m, n, K, weights, float(bound), bound_mle, bound_k2)


def _minimise_bound(m: int, n: int, K: int) -> tuple[np.ndarray, float]:
    floor = _minimax_floor(n)

    def value(w: np.ndarray) -> float:
        return _inner_max(w, m, n)[0]

    def gradient(w: np.ndarray) -> np.ndarray:
        _, t = _inner_max(w, m, n)
        return _bound_gradient(w, t, m, n)

    constraints = [
        {
            "type": "eq",
            "fun": lambda w: np.array([w.sum() - 1.0]),
            "jac": lambda w: np.ones((1, K)),
        },
        {"type": "ineq", "fun": lambda w: np.array([w[0] - floor])},
        {"type": "ineq", "fun": lambda w: w[:-1] - w[1:]},
    ]
    bounds = [(0.0, 1.0)] * K
    w1 = 0.5 * (floor + 1.0)
    starts = [
        np.concatenate([[w1], np.full(K - 1, (1.0 - w1) / (K - 1))]),
        np.concatenate([[floor], np.full(K - 1, (1.0 - floor) / (K - 1))]),
    ]
    best_w, best_value = None, np.inf
    for start in starts:
        result = minimize(
            value,
            start,
            jac=gradient,
            method="SLSQP",
            bounds=bounds,
            constraints=constraints,
            options={"ftol": 1e-13, "maxiter": 500},
        )
        w = _feasible(np.asarray(result.x, dtype=float), floor)
        v = value(w)
        if v < best_value:
            best_w, best_value = w, v
    assert best_w is not None
    return best_w, best_value


def _feasible(w: np.ndarray, floor: float) -> np.ndarray:
    """Snap an optimiser's output onto the feasible polytope (fixes 1e-12 violations)."""
    w = np.clip(w, 0.0, 1.0)
    w = np.minimum.accumulate(w)
    w[0] = max(w[0], floor)
    w = w / w.sum()
    if w[0] < floor:
        rest = w[1:] * (1.0 - floor) / max(w[1:].sum(), 1e-300)
        w = np.concatenate([[floor], rest])
    return w
