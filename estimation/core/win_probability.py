"""Win probability: the linear family of METHODS.md section 2.

Every estimator here has the form ``p_hat(w)[a] = sum_j w[j] r[j, a] / n`` with
non-increasing weights ``w`` summing to 1. We work in the mixture coordinates ``lam``
over the "top-k uniform" estimators

    q_k[a] = (1/k) * sum_{j<=k} r[j, a] / n,   p_hat = sum_k lam[k] q_k,

and report ``w[j] = sum_{k>=j} lam[k] / k``. ``lam`` in the simplex is exactly the set
of feasible ``w``.

Estimators: :func:`mle` (win rate), :func:`fit_loo_kl` and :func:`fit_loo_tv`
(leave-one-out weights), :func:`fit_minimax` with :func:`minimax_weights` (data
independent), and :func:`fit_loo_batch`, which refits both LOO weightings for many
dataset-count vectors at once (bootstrap replicates, cross-validation folds).

Leave-one-out
-------------
For dataset ``i``, ``p_hat^{(-i)}`` removes dataset ``i``'s own contribution from the
cumulative positional counts and divides by ``n - 1``. With dataset counts ``c`` (a
bootstrap replicate, or a 0/1 training mask) the term of dataset ``i`` leaves out ALL
``c[i]`` copies (dividing by ``N - c[i]``, ``N = sum(c)``) and has weight ``c[i]``: a
copy left in would predict its twin and pull the refitted weights towards the MLE. A
simulation (m = 6, n = 14..100, three populations, 1000 benchmarks each) found the
bootstrap spread of LOO-KL then matches its sampling spread (SD ratio 0.95-1.08,
against 1.01-1.28 when one copy is left out).

Only the winners' LOO probabilities enter the losses. Every winner holds a tie group
that starts at position 1, so its cumulative share of the top-k is ``min(k/t, 1)``
with ``t`` the size of the tie for first. All wins of one algorithm with one tie size
therefore contribute the same LOO term; the fits work on these few (algorithm, tie
size) groups with aggregated weights, never on ``(B, n, m)`` arrays.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from estimation.core.rankings import _check_K, tie_groups

__all__ = [
    "CLIP",
    "LooBatchFit",
    "MinimaxWeights",
    "WinProbabilityFit",
    "fit_loo",
    "fit_loo_batch",
    "fit_loo_brier",
    "fit_loo_kl",
    "fit_loo_tv",
    "fit_minimax",
    "lam_to_weights",
    "minimax_bound",
    "minimax_weights",
    "mle",
    "weights_to_lam",
    "win_probabilities",
]

CLIP = 1e-12
"""LOO probabilities are clipped at this value inside ``log``."""

_ZERO = 1e-9
"""Cumulative counts below this after removing one dataset are exactly zero (they are
sums of multiples of ``1/t``); this removes rounding residue such as ``1/3 * 3 - 1``."""


# ---------------------------------------------------------------------------
# coordinates


def lam_to_weights(lam: Any) -> np.ndarray:
    """Position weights ``w[j] = sum_{k>=j} lam[k] / k`` (last axis)."""
    lam = np.asarray(lam, dtype=float)
    K = lam.shape[-1]
    per_k = lam / np.arange(1, K + 1)
    return np.cumsum(per_k[..., ::-1], axis=-1)[..., ::-1]


def weights_to_lam(weights: Any) -> np.ndarray:
    """Mixture coordinates ``lam[k] = k (w[k] - w[k+1])`` of non-increasing weights.

    Raises ``ValueError`` unless ``w`` is non-negative, non-increasing and sums to 1
    (to 1e-9).
    """
    w = np.asarray(weights, dtype=float)
    K = w.shape[-1]
    diffs = w - np.concatenate([w[..., 1:], np.zeros((*w.shape[:-1], 1))], axis=-1)
    if (diffs < -1e-9).any() or not np.allclose(w.sum(axis=-1), 1.0, atol=1e-9):
        raise ValueError("weights must be non-negative, non-increasing and sum to 1")
    return np.clip(diffs, 0.0, None) * np.arange(1, K + 1)


# ---------------------------------------------------------------------------
# results


def _labelled(values: np.ndarray, algorithms: tuple[str, ...] | None) -> Any:
    if algorithms is None:
        return [float(v) for v in values]
    return {a: float(v) for a, v in zip(algorithms, values, strict=True)}


def _finite_or_none(value: float | None) -> float | None:
    if value is None or not np.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True, eq=False)
class WinProbabilityFit:
    """One fitted estimator of the linear family.

    Attributes
    ----------
    method : str
        ``"mle"``, ``"loo_kl"``, ``"loo_tv"`` or ``"minimax"``.
    weights : ndarray, shape (K,)
        Position weights ``w`` (non-negative, non-increasing, sum 1).
    lam : ndarray, shape (K,)
        The same weights in mixture coordinates.
    p : ndarray, shape (m,)
        Estimated win probabilities.
    loss, loss_mle : float or None
        Leave-one-out loss at ``weights`` and at the MLE weights (LOO fits only; NaN
        when ``n = 1``, where leave-one-out is undefined).
    n_clipped : int or None
        KL only: LOO terms whose probability is zero for every feasible ``w`` (a single
        win and no other top-K appearance), clipped at :data:`CLIP`.
    n_terms : int or None
        Number of LOO terms (winner, dataset) pairs.
    """

    method: str
    weights: np.ndarray
    lam: np.ndarray
    p: np.ndarray
    loss: float | None = None
    loss_mle: float | None = None
    n_clipped: int | None = None
    n_terms: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def K(self) -> int:
        return len(self.weights)

    def to_dict(self, algorithms: tuple[str, ...] | None = None) -> dict[str, Any]:
        """JSON-ready; ``p`` keyed by algorithm name when ``algorithms`` is given."""
        out: dict[str, Any] = {
            "method": self.method,
            "K": self.K,
            "weights": [float(v) for v in self.weights],
            "p": _labelled(self.p, algorithms),
        }
        if self.loss is not None or self.loss_mle is not None:
            out["loss"] = _finite_or_none(self.loss)
            out["loss_mle"] = _finite_or_none(self.loss_mle)
        if self.n_clipped is not None:
            out["n_clipped"] = self.n_clipped
        if self.n_terms is not None:
            out["n_terms"] = self.n_terms
        out.update(self.extra)
        return out


def _readonly(*arrays: np.ndarray) -> None:
    for array in arrays:
        array.setflags(write=False)


# ---------------------------------------------------------------------------
# the design: cumulative positions and winner groups, in sparse form


@dataclass(frozen=True, eq=False)
class _Design:
    n: int
    m: int
    K: int
    positions: sp.csr_matrix  # (n, K*m): share of position k held by a, at k*m + a
    group_algorithm: np.ndarray  # (G,)
    group_profile: np.ndarray  # (G, K): min(k/t, 1), a winner's cumulative share
    group_share: sp.csr_matrix  # (n, G): 1/t for the winners of dataset i
    group_count: sp.csr_matrix  # (n, G): 1 for the winners of dataset i

    def totals(self, counts: np.ndarray) -> np.ndarray:
        """Cumulative counts ``R[b, k, a] = sum_i counts[b, i] C[i, k, a]``, (B, K, m)."""
        flat = np.asarray(self.positions.T @ counts.T).T
        return np.cumsum(flat.reshape(counts.shape[0], self.K, self.m), axis=1)


def _validated_ranks(ranks: Any) -> np.ndarray:
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim != 2:
        raise ValueError(f"ranks must be a 2-D array (datasets x algorithms), got {ranks.ndim}-D")
    n, m = ranks.shape
    if m < 2:
        raise ValueError(f"at least 2 algorithms are needed to estimate win probabilities, got {m}")
    if n < 1:
        raise ValueError("at least 1 dataset is needed")
    return ranks


def _resolve_K(K: int, m: int, known_positions: int | None) -> int:
    known = m if known_positions is None else int(known_positions)
    if not 1 <= known <= m:
        raise ValueError(f"known_positions must be in 1..{m}, got {known_positions!r}")
    K = _check_K(K, m)
    if K > known:
        raise ValueError(
            f"K={K} exceeds known_positions={known}: only the top {known} positions are known"
        )
    return K


def _design(ranks: np.ndarray, K: int) -> _Design:
    start, size = tie_groups(ranks)
    n, m = ranks.shape
    rows, algs = np.nonzero(start <= K)
    s, t = start[rows, algs], size[rows, algs]
    # A tie group at s..s+t-1 gives each member 1/t of each of its positions <= K.
    length = np.minimum(t, K - s + 1)
    entry = np.repeat(np.arange(len(rows)), length)
    offset = np.arange(len(entry)) - np.repeat(np.cumsum(length) - length, length)
    position = s[entry] - 1 + offset
    positions = sp.csr_matrix(
        (1.0 / t[entry], (rows[entry], position * m + algs[entry])), shape=(n, K * m)
    )
    k = np.arange(1, K + 1)

    winner = s == 1
    w_rows, w_algs, w_t = rows[winner], algs[winner], t[winner]
    # Groups keyed by (algorithm, tie size), in sorted order for reproducibility.
    keys = w_algs.astype(np.int64) * (m + 1) + w_t
    unique_keys, group_of = np.unique(keys, return_inverse=True)
    group_algorithm = unique_keys // (m + 1)
    group_t = unique_keys % (m + 1)
    group_profile = np.minimum(k[None, :] / group_t[:, None], 1.0)
    G = len(unique_keys)
    group_share = sp.csr_matrix((1.0 / w_t, (w_rows, group_of)), shape=(n, G))
    group_count = sp.csr_matrix((np.ones(len(w_rows)), (w_rows, group_of)), shape=(n, G))
    return _Design(n, m, K, positions, group_algorithm, group_profile, group_share, group_count)


def _components(totals: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Top-k uniform estimators ``q[b, k, a] = R[b, k, a] / (k N_b)``."""
    K = totals.shape[1]
    return totals / (np.arange(1, K + 1)[None, :, None] * N[:, None, None])


# ---------------------------------------------------------------------------
# single fits


def win_probabilities(ranks: Any, weights: Any) -> np.ndarray:
    """``p_hat(w)`` for given non-increasing position weights ``w`` (length K)."""
    ranks = _validated_ranks(ranks)
    lam = weights_to_lam(weights)
    K = _check_K(len(lam), ranks.shape[1])
    design = _design(ranks, K)
    ones = np.ones((1, design.n))
    q = _components(design.totals(ones), np.array([float(design.n)]))[0]
    return lam @ q


def mle(ranks: Any) -> WinProbabilityFit:
    """Win rate: ``p[a]`` = share of datasets won, a tie for first of ``t`` giving ``1/t``."""
    ranks = _validated_ranks(ranks)
    start, size = tie_groups(ranks)
    p = np.where(start == 1, 1.0 / size, 0.0).mean(axis=0)
    weights = np.ones(1)
    _readonly(p, weights)
    return WinProbabilityFit("mle", weights, weights.copy(), p)


def fit_minimax(ranks: Any, *, K: int = 3, known_positions: int | None = None) -> WinProbabilityFit:
    """The estimator with the minimax weights of :func:`minimax_weights` for ``(m, n, K)``."""
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    mm = minimax_weights(m, n, K)
    p = win_probabilities(ranks, mm.weights)
    _readonly(p)
    return WinProbabilityFit(
        "minimax",
        mm.weights,
        weights_to_lam(mm.weights),
        p,
        extra={"bound": mm.bound, "bound_mle": mm.bound_mle, "bound_k2": mm.bound_k2},
    )


def fit_loo_kl(ranks: Any, *, K: int = 3, known_positions: int | None = None) -> WinProbabilityFit:
    """Weights minimising the leave-one-out log loss (METHODS 2.1, KL).

    ``L_KL(lam) = -(1/n) sum_i sum_{a tied first on i} (1/t) log max(p^{(-i)}[a], 1e-12)``.
    Each term is the log of a linear function of ``lam``, so the loss is convex; it is
    minimised by an active-set Newton method on the simplex (see ``_solve_kl``),
    stopped when the KKT conditions hold to 1e-10. Terms whose LOO probability is zero for every ``w``
    are constant: they are clipped at 1e-12, included in the reported losses and
    counted in ``n_clipped``. With ``n = 1`` leave-one-out is undefined: the MLE is
    returned with NaN losses.

    When several ``lam`` reach the optimal loss (it happens at very small ``n``), the
    lexicographically largest optimal ``w`` is reported (METHODS 2.1; see
    ``_lexicographic_optimum``), whatever path the solver took.
    """
    return fit_loo(ranks, K=K, known_positions=known_positions)[0]


def fit_loo_tv(ranks: Any, *, K: int = 3, known_positions: int | None = None) -> WinProbabilityFit:
    """Weights minimising the leave-one-out total-variation loss (METHODS 2.1, TV).

    Because ``p^{(-i)}`` is non-negative and sums to 1,
    ``sum_a |1[a = y] - p[a]| = 2 (1 - p[y])``, and averaging over a tie for first gives
    ``2 (1 - mean_{y tied} p[y])``. ``p^{(-i)}`` is linear in ``lam``, so ``L_TV`` is
    linear in ``lam``: ``L_TV(lam) = sum_k lam[k] L_TV(e_k)``, and its minimum over the
    simplex is attained at a vertex, the top-k uniform estimator with the smallest LOO
    loss. This is exact (no LP solver needed). Ties between vertices (within 1e-12)
    go to the smallest k, the estimator closest to the MLE (the lexicographically
    largest optimal ``w``).

    TV is an *improper* score (METHODS 2.1): it is linear in the prediction, so it
    rewards putting all the mass on the most frequent winner rather than reporting the
    true probabilities. This is the paper's estimator, kept for comparison; prefer
    :func:`fit_loo_kl` or :func:`fit_loo_brier`.
    """
    return fit_loo(ranks, K=K, known_positions=known_positions)[1]


def fit_loo_brier(
    ranks: Any, *, K: int = 3, known_positions: int | None = None
) -> WinProbabilityFit:
    """Weights minimising the leave-one-out Brier score (METHODS 2.1, Brier).

    ``L_B(lam) = (1/n) sum_i sum_a (1[a = y_i] - p^{(-i)}[a])^2`` (a tie for first
    averages over the tied winners with weights ``1/t``) equals
    ``1 - 2 v . lam + lam' H lam``: a convex quadratic in ``lam``, minimised exactly over
    the simplex (see ``_solve_simplex_qp``). Unlike TV, Brier is a proper score: it does
    not reward putting all the mass on the leader. With ``n = 1`` the MLE is returned
    with NaN losses, as for the other LOO fits.
    """
    return fit_loo(ranks, K=K, known_positions=known_positions)[2]


def fit_loo(
    ranks: Any, *, K: int = 3, known_positions: int | None = None
) -> tuple[WinProbabilityFit, WinProbabilityFit, WinProbabilityFit]:
    """The leave-one-out fits ``(loo_kl, loo_tv, loo_brier)`` from one pass over the data.

    See :func:`fit_loo_kl`, :func:`fit_loo_tv` and :func:`fit_loo_brier`; they share the
    design and the LOO terms, so callers that want several should ask for them together.
    """
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    batch = _fit_loo_counts(_design(ranks, K), np.ones((1, n)))
    fits = []
    for method in ("loo_kl", "loo_tv", "loo_brier"):
        lam = np.array(getattr(batch, f"lam_{method[4:]}")[0])
        weights = lam_to_weights(lam)
        p = np.array(getattr(batch, f"p_{method[4:]}")[0])
        _readonly(lam, weights, p)
        fits.append(
            WinProbabilityFit(
                method,
                weights,
                lam,
                p,
                loss=float(getattr(batch, f"loss_{method[4:]}")[0]),
                loss_mle=float(getattr(batch, f"loss_{method[4:]}_mle")[0]),
                n_clipped=int(batch.n_clipped[0]) if method == "loo_kl" else None,
                n_terms=int(batch.n_terms[0]),
            )
        )
    return fits[0], fits[1], fits[2]


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
    self_products = _self_products(design)
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
    B = counts.shape[0]
    K = design.K
    N = counts.sum(axis=1)
    totals = design.totals(counts)
    safe_N = np.where(N > 0, N, 1.0)
    q = _components(totals, safe_N)

    # Leave-one-out leaves out every copy of a dataset: a bootstrap duplicate left in
    # the training part would predict its twin and pull the weights towards the MLE.
    # A dataset drawn c times gives c terms that each remove all c copies, so the terms
    # are grouped by (winner group, count) and there are few counts (bootstrap draws,
    # 0/1 masks). On data without duplicates this is the plain leave-one-out.
    usable = (counts > 0).sum(axis=1) >= 2
    at_group = totals[:, :, design.group_algorithm].transpose(0, 2, 1)  # (B, G, K)
    k = np.arange(1, K + 1)
    weights, pairs, loos = [], [], []
    for c in np.unique(counts[counts > 0]):
        drawn = (counts == c).astype(float)
        weights.append(c * np.asarray((design.group_share.T @ drawn.T).T))
        pairs.append(c * np.asarray((design.group_count.T @ drawn.T).T))
        remaining = at_group - c * design.group_profile
        remaining[remaining < _ZERO] = 0.0
        rest = np.where(usable & (N - c > 0), N - c, 1.0)
        loos.append(remaining / (k[None, None, :] * rest[:, None, None]))
    if not loos:  # every count is zero
        loos = [np.zeros((B, len(design.group_algorithm), K))]
        weights = pairs = [np.zeros((B, len(design.group_algorithm)))]
    weight = np.concatenate(weights, axis=1)  # (B, G * counts)
    n_pairs = np.concatenate(pairs, axis=1)
    loo = np.concatenate(loos, axis=1)
    # Zero for every lam. An explicit "or" of the K columns: numpy's reduction over the
    # short last axis is several times slower, for the same booleans.
    positive = loo > 0
    constant = ~functools.reduce(np.logical_or, [positive[:, :, k] for k in range(K)])
    fit_weight = np.where(constant | ~usable[:, None], 0.0, weight)

    lam_kl, unconverged = _solve_kl(loo, fit_weight)
    lam_kl = _lexicographic_optimum(lam_kl, *_kl_derivatives(loo, fit_weight, lam_kl))
    # sum_g weight_g q^{(-i)}_k, constant terms included, once for TV and Brier:
    # L_TV(e_k) = 2 - 2 winner_share_k / N, and Brier's linear term is winner_share / N.
    winner_share = np.einsum("bg,bgk->bk", weight, loo)
    vertex_tv = 2.0 - 2.0 * winner_share / safe_N[:, None]
    best = vertex_tv.min(axis=1, keepdims=True)
    choice = np.argmax(vertex_tv <= best + 1e-12 * np.maximum(1.0, np.abs(best)), axis=1)
    lam_tv = np.zeros((B, K))
    lam_tv[np.arange(B), choice] = 1.0

    # Brier: L_B(lam) = 1 - 2 v . lam + lam' H lam, the winner term as in TV.
    linear = winner_share / safe_N[:, None]
    quadratic = _brier_quadratic(design, counts, totals, N, usable, self_products)
    lam_brier = _solve_simplex_qp(quadratic, linear)
    brier_gradient = 2.0 * np.einsum("bkl,bl->bk", quadratic, lam_brier) - 2.0 * linear
    lam_brier = _lexicographic_optimum(lam_brier, quadratic, brier_gradient)

    mle_lam = np.zeros((B, K))
    mle_lam[:, 0] = 1.0
    lam_kl = np.where(usable[:, None], lam_kl, mle_lam)
    lam_tv = np.where(usable[:, None], lam_tv, mle_lam)
    lam_brier = np.where(usable[:, None], lam_brier, mle_lam)

    def brier_loss(lam: np.ndarray) -> np.ndarray:
        return 1.0 + _qp_objective(quadratic, linear, lam)

    def kl_loss(lam: np.ndarray) -> np.ndarray:
        p = np.einsum("bgk,bk->bg", loo, lam)
        return -(weight * np.log(np.maximum(p, CLIP))).sum(axis=1) / safe_N

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
        "n_clipped": np.where(usable, (n_pairs * constant).sum(axis=1), 0.0)
        .round()
        .astype(np.int64),
        "n_terms": n_pairs.sum(axis=1).round().astype(np.int64),
        "n_unconverged": unconverged,
    }


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
    # Start at the best vertex with a finite loss. e_K always qualifies: a term that is
    # not constant has a positive LOO share at some k, and shares grow with k. The
    # optimum usually mixes few components, so entering steps from a vertex are fewer
    # than the dropping steps from the centre of the simplex.
    positive_q = Qa > 0
    vertex_loss = -(Wa[:, :, None] * np.log(np.where(positive_q, Qa, 1.0))).sum(axis=1)
    vertex_loss[((Wa[:, :, None] > 0) & ~positive_q).any(axis=1)] = np.inf
    la = np.zeros((len(idx), K))
    la[np.arange(len(idx)), np.argmin(vertex_loss, axis=1)] = 1.0

    def objective(Qs: np.ndarray, Ws: np.ndarray, ls: np.ndarray) -> np.ndarray:
        p = np.matmul(Qs, ls[:, :, None])[:, :, 0]
        positive = p > 0
        f = -(Ws * np.log(np.where(positive, p, 1.0))).sum(axis=1)
        return np.where(((Ws > 0) & ~positive).any(axis=1), np.inf, f)

    def em_ratio(Qs: np.ndarray, Ws: np.ndarray, ls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = np.matmul(Qs, ls[:, :, None])[:, :, 0]
        safe = np.where(p > 0, p, 1.0)
        u = np.where(Ws > 0, Ws / safe, 0.0)
        return np.matmul(u[:, None, :], Qs)[:, 0, :], u / safe

    todo = np.arange(len(idx))
    eye = np.eye(K, dtype=bool)
    for _ in range(max_iter):
        if len(todo) == 0:
            break
        Qs, Ws, ls = Qa[todo], Wa[todo], la[todo]
        ratio, curvature = em_ratio(Qs, Ws, ls)
        positive = ls > 0
        face_residual = np.where(positive, np.abs(ratio - 1.0), 0.0).max(axis=1)
        violation = np.where(positive, -np.inf, ratio - 1.0)
        enter_residual = np.maximum(violation.max(axis=1), 0.0)
        done = np.maximum(face_residual, enter_residual) <= tol
        if done.any():
            keep = ~done
            todo, Qs, Ws, ls = todo[keep], Qs[keep], Ws[keep], ls[keep]
            ratio, curvature, positive = ratio[keep], curvature[keep], positive[keep]
            face_residual, enter_residual = face_residual[keep], enter_residual[keep]
            violation = violation[keep]
            if len(todo) == 0:
                break
        b = len(todo)
        rows = np.arange(b)
        grad = -ratio

        # Face step: Newton restricted to the positive components, sum preserved.
        hessian = np.matmul(np.swapaxes(Qs * curvature[:, :, None], 1, 2), Qs)
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
        shrinking = newton < 0
        limits = np.where(shrinking, ls / np.where(shrinking, -newton, 1.0), np.inf)
        blocking = np.argmin(limits, axis=1)
        alpha_max = limits[rows, blocking]

        # Entering step: towards the vertex of the most violated zero component.
        enter = enter_residual > face_residual
        target = np.argmax(violation, axis=1)
        toward = np.where(eye[target], 1.0, 0.0) - ls

        direction = np.where(enter[:, None], toward, newton)
        first = np.where(enter, 1.0, np.minimum(1.0, alpha_max))
        hits_zero = ~enter & (alpha_max <= 1.0)
        slope = np.where(
            enter,
            -enter_residual,
            -np.einsum("bk,bk->b", (ratio - 1.0) * positive, newton),
        )

        f0 = objective(Qs, Ws, ls)
        alpha = first.copy()
        new = ls.copy()
        # Within rounding of the optimum the predicted decrease is below the
        # resolution of f and a line search only sees noise: take the full Newton
        # step there, the quadratic model being exact.
        resolved = ~enter & (-slope <= 1e-13 * np.maximum(1.0, np.abs(f0)))
        if resolved.any():
            trial = np.maximum(ls[resolved] + first[resolved, None] * direction[resolved], 0.0)
            trial[hits_zero[resolved], blocking[resolved][hits_zero[resolved]]] = 0.0
            new[resolved] = trial / trial.sum(axis=1, keepdims=True)
        accepted = resolved.copy()
        # Far from the optimum (many components still to drop) the full Newton step
        # clipped at zero drops them all at once; kept only if it passes Armijo.
        clip_rows = np.flatnonzero(hits_zero & ~resolved)
        if len(clip_rows):
            trial = np.maximum(ls[clip_rows] + newton[clip_rows], 0.0)
            trial /= trial.sum(axis=1, keepdims=True)
            change = -np.einsum("bk,bk->b", ratio[clip_rows] - 1.0, trial - ls[clip_rows])
            ok = (change < 0) & (
                objective(Qs[clip_rows], Ws[clip_rows], trial) <= f0[clip_rows] + 1e-4 * change
            )
            new[clip_rows[ok]] = trial[ok]
            accepted[clip_rows[ok]] = True
        for _search in range(40):
            pending = np.flatnonzero(~accepted)
            if len(pending) == 0:
                break
            trial = ls[pending] + alpha[pending, None] * direction[pending]
            at_first = hits_zero[pending] & (alpha[pending] == first[pending])
            trial[at_first, blocking[pending][at_first]] = 0.0
            trial = np.maximum(trial, 0.0)
            trial /= trial.sum(axis=1, keepdims=True)
            f_trial = objective(Qs[pending], Ws[pending], trial)
            ok = f_trial <= f0[pending] + 1e-4 * alpha[pending] * slope[pending]
            new[pending[ok]] = trial[ok]
            accepted[pending[ok]] = True
            alpha[pending[~ok]] *= 0.5

        failed = ~accepted
        if failed.any():
            # A failed face search falls back to EM (monotone); a failed entering
            # search means the violation is rounding noise: that replicate is done.
            face_failed = failed & ~enter
            em = ls[face_failed] * ratio[face_failed]
            new[face_failed] = em / em.sum(axis=1, keepdims=True)
        la[todo] = new
        todo = todo[~(failed & enter)]
    # Components within rounding of zero that the KKT ratio wants at zero are put
    # there, so that boundary solutions read as such (w = (1/2, 1/2, 0), not 1e-11).
    ratio, _curvature = em_ratio(Qa, Wa, la)
    snap = (la > 0) & (la <= 1e-9) & (ratio <= 1.0 + 1e-8)
    if snap.any():
        la = np.where(snap, 0.0, la)
        la /= la.sum(axis=1, keepdims=True)
    lam[idx] = la
    return lam, len(todo)


# ---------------------------------------------------------------------------
# leave-one-out Brier (METHODS 2.1) and the tie-break of non-unique optima


def _self_products(design: _Design) -> np.ndarray:
    """``D[i, k, l] = C_ik . C_il``: dot products of dataset ``i``'s cumulative position
    shares (top-k and top-l), shape (n, K, K)."""
    n, m, K = design.n, design.m, design.K
    blocks = [design.positions[:, j * m : (j + 1) * m] for j in range(K)]
    plain = np.zeros((n, K, K))
    for j in range(K):
        for jj in range(j, K):
            value = np.asarray(blocks[j].multiply(blocks[jj]).sum(axis=1)).ravel()
            plain[:, j, jj] = plain[:, jj, j] = value
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
"""Up to this K the simplex QP is solved by enumerating supports (at most 255)."""


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
    solution = np.matmul(np.linalg.pinv(kkt, rcond=1e-10), rhs[..., None])[..., 0]
    lam = np.zeros((B, K))
    lam[:, where] = solution[:, :s]
    return lam


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
"""Singular values below this fraction of the largest span directions of equal loss."""

_TIE_MOVE = 1e-9
"""The tie-break replaces the solver's weights only when it moves them further than this."""


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
    for b in np.flatnonzero(nullity).tolist():
        basis = right[b, K - nullity[b] :].T  # (K, d)
        gain = to_weights @ basis  # change of w per unit of z
        start = lam[b]
        if basis.shape[1] == 1:  # a segment: its better end, no programme needed
            moved = _segment_end(start, basis[:, 0], gain[:, 0])
            if np.abs(moved - start).max() > _TIE_MOVE:
                out[b] = moved
            continue
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


def _segment_end(start: np.ndarray, direction: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """The end of ``{start + t d >= 0}`` with the lexicographically largest ``w``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        limits = np.where(direction != 0, -start / direction, np.nan)
    upper = np.nanmin(np.where(direction < 0, limits, np.nan), initial=np.inf)
    lower = np.nanmax(np.where(direction > 0, limits, np.nan), initial=-np.inf)
    significant = np.flatnonzero(np.abs(gain) > 1e-12)
    if not len(significant) or not (np.isfinite(upper) and np.isfinite(lower)):
        return start
    t = upper if gain[significant[0]] > 0 else lower
    moved = np.clip(start + t * direction, 0.0, None)
    return moved / moved.sum()


def _kl_derivatives(Q: np.ndarray, W: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hessian and gradient of ``-sum_g W_g log(Q_g . lam) / sum W`` at ``lam``."""
    total = np.where(W.sum(axis=1) > 0, W.sum(axis=1), 1.0)
    p = np.maximum(np.einsum("bgk,bk->bg", Q, lam), CLIP)
    u = W / total[:, None] / p
    gradient = -np.einsum("bg,bgk->bk", u, Q)
    hessian = np.einsum("bg,bgk,bgl->bkl", u / p, Q, Q)
    return hessian, gradient


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
