"""Optimisation over the simplex of mixture weights: the Brier quadratic program (exact by
supports up to a size, projected gradient above), the lexicographic tie-break, and the KL
objective's derivatives."""

from __future__ import annotations

import numpy as np

from estimation.core.win_probability.design import CLIP, _Design

# ---------------------------------------------------------------------------
# leave-one-out Brier (METHODS 2.1) and the tie-break of non-unique optima


def _self_products(design: _Design) -> np.ndarray:
    """``D[i, k, l] = C_ik . C_il``: dot products of dataset ``i``'s cumulative position
    shares (top-k and top-l), shape (n, K, K)."""
    n, m, K = design.n, design.m, design.K
    entries = design.positions.tocoo()
    row, column, share = entries.row, entries.col, entries.data
    position, algorithm = column // m, column % m
    # An algorithm's shares of one dataset (one per position its tie group spans, at most
    # K) sit next to each other in this order; a product pairs two of them.
    order = np.lexsort((position, algorithm, row))
    row, position, algorithm, share = row[order], position[order], algorithm[order], share[order]
    key = row.astype(np.int64) * m + algorithm
    flat = np.zeros(n * K * K)
    for gap in range(K):
        first = np.flatnonzero(key[: key.size - gap] == key[gap:])
        second = first + gap
        product = share[first] * share[second]
        cell = row[first].astype(np.int64) * K * K + position[first] * K + position[second]
        # bincount adds in entry order: by algorithm within a dataset, as the sparse
        # row sums did.
        flat += np.bincount(cell, weights=product, minlength=n * K * K)
    upper = flat.reshape(n, K, K)
    plain = np.triu(upper) + np.triu(upper, 1).transpose(0, 2, 1)
    return np.cumsum(np.cumsum(plain, axis=1), axis=2)


def _brier_quadratic(
    design: _Design,
    counts: np.ndarray,
    totals: np.ndarray,
    N: np.ndarray,
    usable: np.ndarray,
    self_products: np.ndarray,
) -> np.ndarray:
    """``H`` with ``(1/N) sum_i c_i ||p^{(-i)}(lam)||^2 = lam' H lam``, shape (B, K, K).

    ``q_k^{(-i)} = (R_k - c_i C_ik) / (k (N - c_i))``; the terms of the datasets drawn
    ``c`` times are summed in closed form: ``sum_i (R_k - c C_ik).(R_l - c C_il) =
    n_c R_k.R_l - c (R_k.S_l + S_k.R_l) + c^2 sum_i C_ik.C_il`` with ``S = sum_i C_i``.
    """
    B, K, _ = totals.shape
    safe_N = np.where(N > 0, N, 1.0)
    k = np.arange(1, K + 1, dtype=float)
    products = np.einsum("bka,bla->bkl", totals, totals)
    H = np.zeros((B, K, K))
    flat_self = self_products.reshape(self_products.shape[0], K * K)
    for c in np.unique(counts[counts > 0]):
        drawn = (counts == c).astype(float)
        n_drawn = drawn.sum(axis=1)
        cross = np.einsum("bka,bla->bkl", totals, design.totals(drawn))
        own = (drawn @ flat_self).reshape(B, K, K)
        block = n_drawn[:, None, None] * products - c * (cross + cross.transpose(0, 2, 1))
        block += c * c * own
        rest = np.where(usable & (N - c > 0), N - c, 1.0)
        H += (c / safe_N / rest**2)[:, None, None] * block
    return H / (k[:, None] * k[None, :])


_ENUMERATE_MAX_K = 8


def _qp_objective(H: np.ndarray, v: np.ndarray, lam: np.ndarray) -> np.ndarray:
    return np.einsum("bk,bkl,bl->b", lam, H, lam) - 2.0 * np.einsum("bk,bk->b", v, lam)


def _support_solution(H: np.ndarray, v: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Minimiser of ``lam' H lam - 2 v' lam`` on ``{sum lam = 1, lam = 0 off support}``
    (KKT system, pseudo-inverse: the minimum-norm solution when it is not unique)."""
    B, K = v.shape
    s = int(support.sum())
    where = np.flatnonzero(support)
    kkt = np.zeros((B, s + 1, s + 1))
    kkt[:, :s, :s] = 2.0 * H[:, where][:, :, where]
    kkt[:, :s, s] = 1.0
    kkt[:, s, :s] = 1.0
    rhs = np.zeros((B, s + 1))
    rhs[:, :s] = 2.0 * v[:, where]
    rhs[:, s] = 1.0
    solution = _kkt_solution(kkt, rhs)
    lam = np.zeros((B, K))
    lam[:, where] = solution[:, :s]
    return lam


_PINV_RCOND = 1e-10

_INVERSE_COND = 1e8
"""Below this 1-norm condition number, and below ``1 / (_PINV_RCOND (s + 1))``, a KKT
system of ``s + 1`` unknowns is solved through its inverse: its 2-norm condition (at most
``s + 1`` times the 1-norm one) is then below ``1 / _PINV_RCOND``, where the
pseudo-inverse would drop no singular value and gives the same solution (to rounding).
The second bound binds from ``s + 1 = 100`` on, which only the projected-gradient path
(``K > 8``) reaches."""


def _inverse_condition_bound(size: int) -> float:
    """The 1-norm condition below which a KKT system of ``size`` unknowns is solved
    through its inverse (:data:`_INVERSE_COND`)."""
    return min(_INVERSE_COND, 1.0 / (_PINV_RCOND * size))


def _kkt_solution(kkt: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``pinv(kkt, rcond=1e-10) @ rhs`` per replicate: by the inverse where the system is
    well conditioned (several times faster than the SVD the pseudo-inverse takes), by
    the pseudo-inverse where it is not (the minimum-norm solution of a singular face)."""
    try:
        inverse = np.linalg.inv(kkt)
    except np.linalg.LinAlgError:  # an exactly singular system in the batch
        return np.matmul(np.linalg.pinv(kkt, rcond=_PINV_RCOND), rhs[..., None])[..., 0]
    with np.errstate(invalid="ignore", over="ignore"):
        condition = np.abs(kkt).sum(axis=1).max(axis=1) * np.abs(inverse).sum(axis=1).max(axis=1)
        solution = np.matmul(inverse, rhs[..., None])[..., 0]
    poor = ~(condition < _inverse_condition_bound(kkt.shape[-1]))  # NaN included
    if poor.any():
        solution[poor] = np.matmul(
            np.linalg.pinv(kkt[poor], rcond=_PINV_RCOND), rhs[poor][..., None]
        )[..., 0]
    return solution


def _solve_simplex_qp(H: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``argmin lam' H lam - 2 v' lam`` over the simplex, per replicate (``H`` PSD).

    Exact: the minimum is attained at the KKT point of some support. For ``K <= 8``
    every support is tried (all replicates at once) and the feasible candidate with the
    lowest objective kept; a candidate that is not an optimum on its support can only
    lose. Beyond, accelerated projected gradient finds the support and the KKT system
    on it gives the exact point.
    """
    B, K = v.shape
    if K == 1:
        return np.ones((B, 1))
    if K <= _ENUMERATE_MAX_K:
        supports = [
            np.array([(mask >> k) & 1 for k in range(K)], dtype=bool) for mask in range(1, 2**K)
        ]
    else:
        supports = _supports_by_projected_gradient(H, v)
    best = np.zeros((B, K))
    best[:, 0] = 1.0
    best_value = _qp_objective(H, v, best)
    for support in supports:
        if support.sum() == 1:
            # A vertex: its KKT solution is 1 on the support (to rounding), which the
            # normalisation below makes exactly 1, so it is taken as it is.
            lam = np.zeros((B, K))
            lam[:, support] = 1.0
            value = _qp_objective(H, v, lam)
            better = value < best_value - 1e-15 * np.maximum(1.0, np.abs(best_value))
            best[better], best_value[better] = lam[better], value[better]
            continue
        lam = _support_solution(H, v, support)
        feasible = (lam >= -1e-12).all(axis=1) & (np.abs(lam.sum(axis=1) - 1.0) <= 1e-9)
        lam = np.clip(lam, 0.0, None)
        lam /= np.where(lam.sum(axis=1) > 0, lam.sum(axis=1), 1.0)[:, None]
        value = _qp_objective(H, v, lam)
        better = feasible & (value < best_value - 1e-15 * np.maximum(1.0, np.abs(best_value)))
        best[better], best_value[better] = lam[better], value[better]
    return best


def _project_simplex(x: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row onto the probability simplex."""
    K = x.shape[1]
    ordered = -np.sort(-x, axis=1)
    cumulative = np.cumsum(ordered, axis=1) - 1.0
    index = np.arange(1, K + 1)
    rho = (ordered - cumulative / index > 0).sum(axis=1)
    theta = cumulative[np.arange(len(x)), rho - 1] / rho
    return np.maximum(x - theta[:, None], 0.0)


def _supports_by_projected_gradient(H: np.ndarray, v: np.ndarray) -> list[np.ndarray]:
    B, K = v.shape
    step = 1.0 / (2.0 * np.maximum(np.linalg.eigvalsh(H)[:, -1], 1e-300))
    lam = np.full((B, K), 1.0 / K)
    momentum, t = lam.copy(), 1.0
    for _ in range(3000):
        gradient = 2.0 * np.einsum("bkl,bl->bk", H, momentum) - 2.0 * v
        new = _project_simplex(momentum - step[:, None] * gradient)
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        momentum, lam, t = new + (t - 1.0) / t_next * (new - lam), new, t_next
    found = np.unique(lam > 1e-9, axis=0)
    # with every support of one component fewer, in case a tiny component was kept
    out = {tuple(row) for row in found.tolist()}
    for row in found.tolist():
        for k in np.flatnonzero(row).tolist():
            smaller = list(row)
            smaller[k] = False
            if any(smaller):
                out.add(tuple(smaller))
    return [np.array(row, dtype=bool) for row in sorted(out)]


_NULL_TOL = 1e-9

_TIE_MOVE = 1e-9


def _lexicographic_optimum(
    lam: np.ndarray, hessian: np.ndarray, gradient: np.ndarray
) -> np.ndarray:
    """The optimal weights that are lexicographically largest (METHODS 2.1).

    A convex loss that is minimal at ``lam`` is minimal on the whole set ``lam + d``
    (staying in the simplex) with ``H d = 0``, ``g . d = 0`` and ``sum d = 0`` (``H`` the
    Hessian, ``g`` the gradient at ``lam``): the loss is constant there. When that null
    space is not trivial (very small ``n``), the reported point is the one with ``w[1]``
    as large as possible, then ``w[2]``, ...: closest to the win rate, and the same
    whatever path a solver took (up to its tolerance). Solved by one small linear
    programme per weight on the null-space coordinates, for those replicates only.
    """
    from scipy.optimize import linprog

    B, K = lam.shape
    if K == 1:
        return lam
    system = np.concatenate([hessian, gradient[:, None, :], np.ones((B, 1, K))], axis=1)
    _, singular, right = np.linalg.svd(system)
    nullity = (singular < _NULL_TOL * singular[:, :1]).sum(axis=1)
    if not nullity.any():
        return lam
    to_weights = np.triu(np.ones((K, K))) / np.arange(1, K + 1)[None, :]  # w = A lam
    out = lam.copy()
    # A segment (nullity 1, the common case at small n): its better end, no programme
    # needed, for all such replicates at once.
    segment = np.flatnonzero(nullity == 1)
    if segment.size:
        direction = right[segment, K - 1]  # (S, K)
        start = lam[segment]
        moved = _segment_ends(start, direction, direction @ to_weights.T)
        shifted = np.abs(moved - start).max(axis=1) > _TIE_MOVE
        out[segment[shifted]] = moved[shifted]
    for b in np.flatnonzero(nullity > 1).tolist():
        basis = right[b, K - nullity[b] :].T  # (K, d)
        gain = to_weights @ basis  # change of w per unit of z
        start = lam[b]
        rows, bounds = [-basis], [start]
        z = np.zeros(basis.shape[1])
        for j in range(K):
            if np.abs(gain[j]).max() < 1e-12:
                continue
            result = linprog(
                -gain[j],
                A_ub=np.vstack(rows),
                b_ub=np.concatenate(bounds),
                bounds=[(None, None)] * basis.shape[1],
                method="highs",
            )
            if result.status != 0:
                break
            z = result.x
            reached = float(gain[j] @ z)
            rows.append(-gain[j][None, :])
            bounds.append(np.array([-(reached - 1e-12)]))
        moved = np.clip(start + basis @ z, 0.0, None)
        moved /= moved.sum()
        # A move within the solver's tolerance is no move: the weights of a unique
        # optimum (a merely ill-conditioned one) stay exactly as solved.
        if np.abs(moved - start).max() > _TIE_MOVE:
            out[b] = moved
    return out


def _segment_ends(start: np.ndarray, direction: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Per row, the end of ``{start + t d >= 0}`` with the lexicographically largest
    ``w`` (``gain``: the change of ``w`` along ``d``); rows ``(S, K)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        limits = np.where(direction != 0, -start / direction, np.nan)
    upper = np.where(direction < 0, limits, np.inf).min(axis=1)
    lower = np.where(direction > 0, limits, -np.inf).max(axis=1)
    significant = np.abs(gain) > 1e-12
    first = np.argmax(significant, axis=1)
    rows = np.arange(len(start))
    t = np.where(gain[rows, first] > 0, upper, lower)
    keep = ~significant.any(axis=1) | ~(np.isfinite(upper) & np.isfinite(lower))
    with np.errstate(invalid="ignore"):
        moved = np.clip(start + np.where(keep, 0.0, t)[:, None] * direction, 0.0, None)
        moved /= moved.sum(axis=1, keepdims=True)
    return np.where(keep[:, None], start, moved)


def _kl_derivatives(Q: np.ndarray, W: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hessian and gradient of ``-sum_g W_g log(Q_g . lam) / sum W`` at ``lam``."""
    total = np.where(W.sum(axis=1) > 0, W.sum(axis=1), 1.0)
    p = np.maximum(np.einsum("bgk,bk->bg", Q, lam), CLIP)
    u = W / total[:, None] / p
    gradient = -np.einsum("bg,bgk->bk", u, Q)
    hessian = np.einsum("bg,bgk,bgl->bkl", u / p, Q, Q)
    return hessian, gradient
