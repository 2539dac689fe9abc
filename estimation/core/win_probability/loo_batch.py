"""Leave-one-out weights refitted for many dataset-count vectors at once (bootstrap
replicates, cross-validation folds), in chunks of bounded memory."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from estimation.core.win_probability.design import (
    _ZERO,
    CLIP,
    _components,
    _Design,
    _design,
    _resolve_K,
    _validated_ranks,
    lam_to_weights,
)
from estimation.core.win_probability.simplex import (
    _brier_quadratic,
    _kl_derivatives,
    _lexicographic_optimum,
    _qp_objective,
    _self_products,
    _solve_simplex_qp,
)

# ---------------------------------------------------------------------------
# batched LOO fits


@dataclass(frozen=True, eq=False)
class LooBatchFit:
    """LOO weights refitted for ``B`` dataset-count vectors.

    All arrays have a leading axis of length ``B``. ``q`` holds the top-k uniform
    estimators of each replicate (``B, K, m``), so any fixed weights ``lam`` give
    ``p = einsum('bk,bkm->bm', lam, q)``. Replicates with fewer than two datasets
    (``N < 2``) get the MLE weights and NaN losses.
    """

    N: np.ndarray
    q: np.ndarray
    lam_kl: np.ndarray
    lam_tv: np.ndarray
    p_kl: np.ndarray
    p_tv: np.ndarray
    loss_kl: np.ndarray
    loss_kl_mle: np.ndarray
    loss_tv: np.ndarray
    loss_tv_mle: np.ndarray
    lam_brier: np.ndarray
    p_brier: np.ndarray
    loss_brier: np.ndarray
    loss_brier_mle: np.ndarray
    n_clipped: np.ndarray
    n_terms: np.ndarray
    n_unconverged: int

    @property
    def p_mle(self) -> np.ndarray:
        return self.q[:, 0, :]

    @property
    def weights_kl(self) -> np.ndarray:
        return lam_to_weights(self.lam_kl)

    @property
    def weights_tv(self) -> np.ndarray:
        return lam_to_weights(self.lam_tv)

    @property
    def weights_brier(self) -> np.ndarray:
        return lam_to_weights(self.lam_brier)


def fit_loo_batch(
    ranks: Any,
    counts: Any,
    *,
    K: int = 3,
    known_positions: int | None = None,
) -> LooBatchFit:
    """Fit the LOO-KL and LOO-TV weights for ``B`` dataset-count vectors at once.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks, 1 = best.
    counts : array_like, shape (B, n) or (n,)
        Non-negative dataset counts: bootstrap multinomial counts, or 0/1 training
        masks for cross-validation. A dataset's LOO term leaves out all its copies
        (see the module docstring); counts may be any non-negative numbers, but few
        distinct values keep the fit fast (terms are grouped by count).
    K, known_positions
        As for :func:`fit_loo_kl`.

    Notes
    -----
    Memory is ``O(B K (m + G V))`` with ``G`` the number of (winner, tie size) groups
    (about ``m``) and ``V`` the number of distinct counts (a handful), plus a sparse ``n x K m`` design with about ``n K`` entries: no
    ``(B, n, m)`` array is built. Work arrays are chunked over replicates (a few
    million elements each); the Newton iterations run over all replicates of a chunk
    at once.
    """
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 1:
        counts = counts[None, :]
    if counts.ndim != 2 or counts.shape[1] != n:
        raise ValueError(f"counts must have shape (B, {n}), got {counts.shape}")
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise ValueError("counts must be finite and non-negative")
    return _fit_loo_counts(_design(ranks, K), counts)


_CHUNK_ELEMENTS = 4_000_000


def _fit_loo_counts(design: _Design, counts: np.ndarray) -> LooBatchFit:
    B = counts.shape[0]
    G = len(design.group_algorithm)
    per_replicate = max(1, (G * 4 + design.m * 6) * design.K)
    chunk = max(1, min(B, _CHUNK_ELEMENTS // per_replicate))
    # Replicates with the same counts have the same fit (bootstraps of few datasets repeat
    # a handful of count vectors): fit each distinct one once. Rows whose bytes differ
    # (after + 0.0 turns -0.0 into 0.0) are distinct, so the row sort of np.unique (27 ms
    # for 1000 x 1000 counts, against 4 ms for the bytes) runs only when two are equal
    # (equal bytes: equal finite values, which np.unique merges into fewer than B rows).
    if len({row.tobytes() for row in counts + 0.0}) < B:
        distinct, replicate_of = np.unique(counts, axis=0, return_inverse=True)
        replicate_of = replicate_of.reshape(-1)
        fitted = _fit_loo_counts(design, distinct)
        return LooBatchFit(
            n_unconverged=int(fitted.n_unconverged),
            **{
                f.name: _readonly_copy(getattr(fitted, f.name)[replicate_of])
                for f in fields(LooBatchFit)
                if f.name != "n_unconverged"
            },
        )
    self_products = _self_products(design)
    parts = [
        _fit_chunk(design, counts[lo : lo + chunk], self_products) for lo in range(0, B, chunk)
    ]
    merged = {
        name: np.concatenate([part[name] for part in parts])
        for name in parts[0]
        if name != "n_unconverged"
    }
    for value in merged.values():
        value.setflags(write=False)
    return LooBatchFit(n_unconverged=int(sum(part["n_unconverged"] for part in parts)), **merged)


def _readonly_copy(array: np.ndarray) -> np.ndarray:
    array = np.array(array)
    array.setflags(write=False)
    return array


def _fit_chunk(design: _Design, counts: np.ndarray, self_products: np.ndarray) -> dict[str, Any]:
    """The KL, TV and Brier weights of one chunk of count vectors, with their losses."""
    B = counts.shape[0]
    N = counts.sum(axis=1)
    totals = design.totals(counts)
    safe_N = np.where(N > 0, N, 1.0)
    usable = (counts > 0).sum(axis=1) >= 2
    terms = _LooTerms.of(design, counts, totals, N, usable)
    fit_weight = np.where(terms.constant | ~usable[:, None], 0.0, terms.weight)

    fit_loo, fit_weight = _fitted_terms(terms.loo, fit_weight)
    lam_kl, unconverged = _solve_kl(fit_loo, fit_weight)
    lam_kl = _lexicographic_optimum(lam_kl, *_kl_derivatives(fit_loo, fit_weight, lam_kl))
    # sum_g weight_g q^{(-i)}_k, constant terms included, once for TV and Brier:
    # L_TV(e_k) = 2 - 2 winner_share_k / N, and Brier's linear term is winner_share / N.
    winner_share = np.einsum("bg,bgk->bk", terms.weight, terms.loo)
    vertex_tv, choice, lam_tv = _tv_vertex(winner_share, safe_N)
    # Brier: L_B(lam) = 1 - 2 v . lam + lam' H lam, the winner term as in TV.
    linear = winner_share / safe_N[:, None]
    quadratic = _brier_quadratic(design, counts, totals, N, usable, self_products)
    lam_brier = _brier_weights(quadratic, linear)

    mle_lam = np.zeros((B, design.K))
    mle_lam[:, 0] = 1.0
    lam_kl = np.where(usable[:, None], lam_kl, mle_lam)
    lam_tv = np.where(usable[:, None], lam_tv, mle_lam)
    lam_brier = np.where(usable[:, None], lam_brier, mle_lam)

    def brier_loss(lam: np.ndarray) -> np.ndarray:
        return 1.0 + _qp_objective(quadratic, linear, lam)

    def kl_loss(lam: np.ndarray) -> np.ndarray:
        p = np.einsum("bgk,bk->bg", terms.loo, lam)
        return -(terms.weight * np.log(np.maximum(p, CLIP))).sum(axis=1) / safe_N

    q = _components(totals, safe_N)
    nan = np.full(B, np.nan)
    return {
        "N": N,
        "q": q,
        "lam_kl": lam_kl,
        "lam_tv": lam_tv,
        "p_kl": np.einsum("bk,bkm->bm", lam_kl, q),
        "p_tv": np.einsum("bk,bkm->bm", lam_tv, q),
        "lam_brier": lam_brier,
        "p_brier": np.einsum("bk,bkm->bm", lam_brier, q),
        "loss_brier": np.where(usable, brier_loss(lam_brier), nan),
        "loss_brier_mle": np.where(usable, brier_loss(mle_lam), nan),
        "loss_kl": np.where(usable, kl_loss(lam_kl), nan),
        "loss_kl_mle": np.where(usable, kl_loss(mle_lam), nan),
        "loss_tv": np.where(usable, vertex_tv[np.arange(B), choice], nan),
        "loss_tv_mle": np.where(usable, vertex_tv[:, 0], nan),
        "n_clipped": np.where(usable, (terms.n_pairs * terms.constant).sum(axis=1), 0.0)
        .round()
        .astype(np.int64),
        "n_terms": terms.n_pairs.sum(axis=1).round().astype(np.int64),
        "n_unconverged": unconverged,
    }


_COMPACT_SHARE = 0.75
"""The KL fit reads only the terms of positive weight when the widest row has fewer than
this share of the terms (see :func:`_fitted_terms`)."""


def _fitted_terms(loo: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The terms the KL fit reads: those of positive weight, moved to the front of each row
    in their order, the rows cut to the widest one's count.

    Terms are indexed by (winner group, count), and a replicate draws few of the
    possible counts of each group: in a bootstrap of 100 datasets of 20 algorithms, or
    a simulated benchmark of the advisor, 25-35 % of the terms have any weight. A term
    of weight 0 adds nothing to the objective, its gradient or its curvature, so the fit
    is the same problem on fewer terms (its sums associate differently: the weights
    agree to rounding, then to the solver's tolerance). Rows of equal width (0/1 masks:
    one count) are left as they are.
    """
    keep = weight > 0
    width = int(keep.sum(axis=1).max(initial=0))
    if width >= _COMPACT_SHARE * weight.shape[1]:
        return loo, weight
    order = np.argsort(~keep, axis=1, kind="stable")[:, : max(width, 1)]
    return (
        np.take_along_axis(loo, order[:, :, None], axis=1),
        np.take_along_axis(weight, order, axis=1),
    )


def _tv_vertex(
    winner_share: np.ndarray, safe_N: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LOO-TV is linear in lam, so a vertex is optimal: each vertex's loss, the chosen one
    (the first within rounding of the best) and its weights."""
    B, K = winner_share.shape
    vertex_tv = 2.0 - 2.0 * winner_share / safe_N[:, None]
    best = vertex_tv.min(axis=1, keepdims=True)
    choice = np.argmax(vertex_tv <= best + 1e-12 * np.maximum(1.0, np.abs(best)), axis=1)
    lam_tv = np.zeros((B, K))
    lam_tv[np.arange(B), choice] = 1.0
    return vertex_tv, choice, lam_tv


def _brier_weights(quadratic: np.ndarray, linear: np.ndarray) -> np.ndarray:
    """The Brier weights: the simplex QP's optimum, made unique lexicographically."""
    lam_brier = _solve_simplex_qp(quadratic, linear)
    brier_gradient = 2.0 * np.einsum("bkl,bl->bk", quadratic, lam_brier) - 2.0 * linear
    return _lexicographic_optimum(lam_brier, quadratic, brier_gradient)


@dataclass(frozen=True, eq=False)
class _LooTerms:
    """The leave-one-out terms of a chunk, grouped by (winner group, count).

    Leave-one-out leaves out every copy of a dataset: a bootstrap duplicate left in the
    training part would predict its twin and pull the weights towards the MLE. A
    dataset drawn c times gives c terms that each remove all c copies, so the terms are
    grouped by (winner group, count) and there are few counts (bootstrap draws, 0/1
    masks). On data without duplicates this is the plain leave-one-out.
    """

    weight: np.ndarray  # (B, G * counts): the winner shares each term carries
    n_pairs: np.ndarray  # (B, G * counts): how many (dataset, winner) pairs it stands for
    loo: np.ndarray  # (B, G * counts, K): its top-k LOO shares
    constant: np.ndarray  # (B, G * counts): zero for every lam

    @classmethod
    def of(
        cls,
        design: _Design,
        counts: np.ndarray,
        totals: np.ndarray,
        N: np.ndarray,
        usable: np.ndarray,
    ) -> _LooTerms:
        B, K = counts.shape[0], design.K
        at_group = totals[:, :, design.group_algorithm].transpose(0, 2, 1)  # (B, G, K)
        k = np.arange(1, K + 1)
        weights, pairs, loos = [], [], []
        for c in np.unique(counts[counts > 0]):
            # (n, B), contiguous: the layout the sparse products read, made once for both
            drawn_t = np.ascontiguousarray((counts == c).T, dtype=float)
            weights.append(c * np.asarray((design.group_share_t @ drawn_t).T))
            pairs.append(c * np.asarray((design.group_count_t @ drawn_t).T))
            remaining = at_group - c * design.group_profile
            remaining[remaining < _ZERO] = 0.0
            rest = np.where(usable & (N - c > 0), N - c, 1.0)
            loos.append(remaining / (k[None, None, :] * rest[:, None, None]))
        if not loos:  # every count is zero
            loos = [np.zeros((B, len(design.group_algorithm), K))]
            weights = pairs = [np.zeros((B, len(design.group_algorithm)))]
        loo = np.concatenate(loos, axis=1)
        # An explicit "or" of the K columns: numpy's reduction over the short last axis
        # is several times slower, for the same booleans.
        positive = loo > 0
        constant = ~functools.reduce(np.logical_or, [positive[:, :, k] for k in range(K)])
        return cls(
            weight=np.concatenate(weights, axis=1),
            n_pairs=np.concatenate(pairs, axis=1),
            loo=loo,
            constant=constant,
        )


def _solve_kl(
    Q: np.ndarray, W: np.ndarray, *, tol: float = 1e-10, max_iter: int = 500
) -> tuple[np.ndarray, int]:
    """Minimise ``-sum_g W_g log(Q_g . lam) / sum_g W_g`` over the simplex, per replicate.

    ``Q`` (B, G, K) non-negative, ``W`` (B, G) non-negative; terms with ``Q_g = 0``
    must have ``W_g = 0``. Replicates with no weight get ``lam = e_1``.

    Optimality: with ``r_k = sum_g W_g Q_gk / p_g / sum W`` (the EM ratio; minus the
    gradient), ``sum_k lam_k r_k = 1`` always, and at the optimum ``r_k = 1`` where
    ``lam_k > 0`` and ``r_k <= 1`` where ``lam_k = 0``. An active-set method drives
    the larger of the two KKT residuals below ``tol``:

    * face step: Newton on the components that are positive, keeping the sum, with a
      ratio test; a component the full step would push through zero is set exactly
      to zero; Armijo backtracking; an EM step if the search fails;
    * entering step: when the largest violation is a zero component ``k`` with
      ``r_k > 1``, a line search along ``e_k - lam``, a descent direction whose slope
      is ``1 - r_k < 0``.

    All replicates iterate together (vectorised); each stops when its KKT residual is
    below ``tol``. Returns the weights and the number of replicates that did not
    converge within ``max_iter`` (0 in every case we have seen).
    """
    B, _, K = Q.shape
    total = W.sum(axis=1)
    active = total > 0
    lam = np.zeros((B, K))
    lam[:, 0] = 1.0
    if K == 1 or not active.any():
        return lam, 0
    idx = np.flatnonzero(active)
    Qa = Q[idx]
    Wa = W[idx] / total[idx, None]
    la = _kl_best_vertex(Qa, Wa)
    todo = np.arange(len(idx))
    for _ in range(max_iter):
        if len(todo) == 0:
            break
        todo = _kl_iteration(Qa, Wa, la, todo, tol=tol)
    lam[idx] = _kl_snap_to_zero(Qa, Wa, la)
    return lam, len(todo)


def _kl_best_vertex(Qa: np.ndarray, Wa: np.ndarray) -> np.ndarray:
    """The start: the best vertex with a finite loss.

    ``e_K`` always qualifies: a term that is not constant has a positive LOO share at
    some k, and shares grow with k. The optimum usually mixes few components, so
    entering steps from a vertex are fewer than the dropping steps from the centre of
    the simplex.
    """
    positive_q = Qa > 0
    vertex_loss = -(Wa[:, :, None] * np.log(np.where(positive_q, Qa, 1.0))).sum(axis=1)
    vertex_loss[((Wa[:, :, None] > 0) & ~positive_q).any(axis=1)] = np.inf
    la = np.zeros((len(Qa), Qa.shape[2]))
    la[np.arange(len(Qa)), np.argmin(vertex_loss, axis=1)] = 1.0
    return la


def _kl_objective(Qs: np.ndarray, Ws: np.ndarray, ls: np.ndarray) -> np.ndarray:
    p = np.matmul(Qs, ls[:, :, None])[:, :, 0]
    positive = p > 0
    f = -(Ws * np.log(np.where(positive, p, 1.0))).sum(axis=1)
    return np.where(((Ws > 0) & ~positive).any(axis=1), np.inf, f)


def _kl_em_ratio(Qs: np.ndarray, Ws: np.ndarray, ls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The EM ratio ``r`` (minus the gradient) and the per-term curvature ``W / p^2``."""
    p = np.matmul(Qs, ls[:, :, None])[:, :, 0]
    safe = np.where(p > 0, p, 1.0)
    u = np.where(Ws > 0, Ws / safe, 0.0)
    return np.matmul(u[:, None, :], Qs)[:, 0, :], u / safe


@dataclass(frozen=True, eq=False)
class _KlState:
    """The replicates still iterating: their data, weights and KKT residuals."""

    todo: np.ndarray  # rows of the active replicates
    Qs: np.ndarray
    Ws: np.ndarray
    ls: np.ndarray
    ratio: np.ndarray
    curvature: np.ndarray
    positive: np.ndarray
    face_residual: np.ndarray  # max |r_k - 1| over the positive components
    violation: np.ndarray  # r_k - 1 at the zero components, -inf elsewhere
    enter_residual: np.ndarray

    @classmethod
    def at(cls, Qa: np.ndarray, Wa: np.ndarray, la: np.ndarray, todo: np.ndarray) -> _KlState:
        Qs, Ws, ls = Qa[todo], Wa[todo], la[todo]
        ratio, curvature = _kl_em_ratio(Qs, Ws, ls)
        positive = ls > 0
        violation = np.where(positive, -np.inf, ratio - 1.0)
        return cls(
            todo=todo,
            Qs=Qs,
            Ws=Ws,
            ls=ls,
            ratio=ratio,
            curvature=curvature,
            positive=positive,
            face_residual=np.where(positive, np.abs(ratio - 1.0), 0.0).max(axis=1),
            violation=violation,
            enter_residual=np.maximum(violation.max(axis=1), 0.0),
        )

    def converged(self, tol: float) -> np.ndarray:
        return np.maximum(self.face_residual, self.enter_residual) <= tol

    def rows(self, keep: np.ndarray) -> _KlState:
        return _KlState(**{f.name: getattr(self, f.name)[keep] for f in fields(_KlState)})


def _kl_iteration(
    Qa: np.ndarray, Wa: np.ndarray, la: np.ndarray, todo: np.ndarray, *, tol: float
) -> np.ndarray:
    """One active-set step for the replicates ``todo``: updates ``la`` in place and
    returns the replicates still to iterate."""
    state = _KlState.at(Qa, Wa, la, todo)
    done = state.converged(tol)
    if done.any():
        state = state.rows(~done)
        if len(state.todo) == 0:
            return state.todo
    step = _kl_step(state)
    new, accepted = _kl_line_search(state, step)
    failed = ~accepted
    if failed.any():
        # A failed face search falls back to EM (monotone); a failed entering
        # search means the violation is rounding noise: that replicate is done.
        face_failed = failed & ~step.enter
        em = state.ls[face_failed] * state.ratio[face_failed]
        new[face_failed] = em / em.sum(axis=1, keepdims=True)
    la[state.todo] = new
    return state.todo[~(failed & step.enter)]


@dataclass(frozen=True, eq=False)
class _KlStep:
    """Per replicate, the search direction, the first step length and the slope."""

    enter: np.ndarray  # True: entering step, False: face step
    direction: np.ndarray
    first: np.ndarray
    hits_zero: np.ndarray  # the first face step sets the blocking component to zero
    blocking: np.ndarray
    slope: np.ndarray
    newton: np.ndarray


def _kl_step(state: _KlState) -> _KlStep:
    """The face step or, where the largest violation is a zero component, the entering
    step towards that component's vertex."""
    newton = _kl_face_newton(state)
    ls, positive = state.ls, state.positive
    shrinking = newton < 0
    limits = np.where(shrinking, ls / np.where(shrinking, -newton, 1.0), np.inf)
    blocking = np.argmin(limits, axis=1)
    alpha_max = limits[np.arange(len(ls)), blocking]

    enter = state.enter_residual > state.face_residual
    target = np.argmax(state.violation, axis=1)
    eye = np.eye(ls.shape[1], dtype=bool)
    toward = np.where(eye[target], 1.0, 0.0) - ls
    return _KlStep(
        enter=enter,
        direction=np.where(enter[:, None], toward, newton),
        first=np.where(enter, 1.0, np.minimum(1.0, alpha_max)),
        hits_zero=~enter & (alpha_max <= 1.0),
        blocking=blocking,
        slope=np.where(
            enter,
            -state.enter_residual,
            -np.einsum("bk,bk->b", (state.ratio - 1.0) * positive, newton),
        ),
        newton=newton,
    )


def _kl_face_newton(state: _KlState) -> np.ndarray:
    """Newton restricted to the positive components, sum preserved (zero elsewhere)."""
    Qs, ratio, positive = state.Qs, state.ratio, state.positive
    b, K = positive.shape
    eye = np.eye(K, dtype=bool)
    grad = -ratio
    hessian = np.matmul(np.swapaxes(Qs * state.curvature[:, :, None], 1, 2), Qs)
    both = positive[:, :, None] & positive[:, None, :]
    scale = np.einsum("bkk->b", hessian) / K
    system = np.zeros((b, K + 1, K + 1))
    system[:, :K, :K] = np.where(both, hessian, 0.0)
    system[:, :K, :K] += np.where(eye & ~positive[:, :, None], 1.0, 0.0)
    system[:, :K, :K] += np.where(eye & positive[:, :, None], 1e-12 * scale[:, None, None], 0.0)
    system[:, :K, K] = positive
    system[:, K, :K] = positive
    rhs = np.zeros((b, K + 1))
    rhs[:, :K] = -grad * positive
    newton = np.linalg.solve(system, rhs[..., None])[..., 0][:, :K] * positive
    # On a nearly flat face the solve can lose the sign of the slope: use the
    # projected gradient there, which always descends.
    excess = (ratio - 1.0) * positive  # the gradient less its known multiplier
    ascent = np.einsum("bk,bk->b", excess, newton) <= 0
    if ascent.any():
        mean_grad = (grad * positive).sum(axis=1) / positive.sum(axis=1)
        projected = -(grad - mean_grad[:, None]) * positive
        newton[ascent] = projected[ascent]
    return newton


def _kl_line_search(state: _KlState, step: _KlStep) -> tuple[np.ndarray, np.ndarray]:
    """The new weights of each replicate and whether its step was accepted."""
    Qs, Ws, ls = state.Qs, state.Ws, state.ls
    f0 = _kl_objective(Qs, Ws, ls)
    new = ls.copy()
    # Within rounding of the optimum the predicted decrease is below the
    # resolution of f and a line search only sees noise: take the full Newton
    # step there, the quadratic model being exact.
    resolved = ~step.enter & (-step.slope <= 1e-13 * np.maximum(1.0, np.abs(f0)))
    if resolved.any():
        trial = np.maximum(
            ls[resolved] + step.first[resolved, None] * step.direction[resolved], 0.0
        )
        trial[step.hits_zero[resolved], step.blocking[resolved][step.hits_zero[resolved]]] = 0.0
        new[resolved] = trial / trial.sum(axis=1, keepdims=True)
    accepted = resolved.copy()
    # Far from the optimum (many components still to drop) the full Newton step
    # clipped at zero drops them all at once; kept only if it passes Armijo.
    clip_rows = np.flatnonzero(step.hits_zero & ~resolved)
    if len(clip_rows):
        trial = np.maximum(ls[clip_rows] + step.newton[clip_rows], 0.0)
        trial /= trial.sum(axis=1, keepdims=True)
        change = -np.einsum("bk,bk->b", state.ratio[clip_rows] - 1.0, trial - ls[clip_rows])
        ok = (change < 0) & (
            _kl_objective(Qs[clip_rows], Ws[clip_rows], trial) <= f0[clip_rows] + 1e-4 * change
        )
        new[clip_rows[ok]] = trial[ok]
        accepted[clip_rows[ok]] = True
    _kl_backtrack(state, step, f0, new, accepted)
    return new, accepted


def _kl_backtrack(
    state: _KlState, step: _KlStep, f0: np.ndarray, new: np.ndarray, accepted: np.ndarray
) -> None:
    """Armijo backtracking, halving the step, for the replicates not yet accepted;
    fills ``new`` and ``accepted`` in place."""
    Qs, Ws, ls = state.Qs, state.Ws, state.ls
    alpha = step.first.copy()
    for _search in range(40):
        pending = np.flatnonzero(~accepted)
        if len(pending) == 0:
            break
        trial = ls[pending] + alpha[pending, None] * step.direction[pending]
        at_first = step.hits_zero[pending] & (alpha[pending] == step.first[pending])
        trial[at_first, step.blocking[pending][at_first]] = 0.0
        trial = np.maximum(trial, 0.0)
        trial /= trial.sum(axis=1, keepdims=True)
        f_trial = _kl_objective(Qs[pending], Ws[pending], trial)
        ok = f_trial <= f0[pending] + 1e-4 * alpha[pending] * step.slope[pending]
        new[pending[ok]] = trial[ok]
        accepted[pending[ok]] = True
        alpha[pending[~ok]] *= 0.5


def _kl_snap_to_zero(Qa: np.ndarray, Wa: np.ndarray, la: np.ndarray) -> np.ndarray:
    """Components within rounding of zero that the KKT ratio wants at zero are put
    there, so that boundary solutions read as such (w = (1/2, 1/2, 0), not 1e-11)."""
    ratio, _curvature = _kl_em_ratio(Qa, Wa, la)
    snap = (la > 0) & (la <= 1e-9) & (ratio <= 1.0 + 1e-8)
    if snap.any():
        la = np.where(snap, 0.0, la)
        la /= la.sum(axis=1, keepdims=True)
    return la
