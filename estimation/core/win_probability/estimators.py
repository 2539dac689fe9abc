"""The estimators of one table: the win rate (MLE), the leave-one-out weightings (KL,
TV, Brier) and the minimax weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from estimation.core.rankings import _check_K, tie_groups
from estimation.core.win_probability.design import (
    WinProbabilityFit,
    _components,
    _design,
    _readonly,
    _resolve_K,
    _validated_ranks,
    lam_to_weights,
    weights_to_lam,
)
from estimation.core.win_probability.loo_batch import _fit_loo_counts
from estimation.core.win_probability.minimax import minimax_weights

"""LOO probabilities are clipped at this value inside ``log``."""
"""Cumulative counts below this after removing one dataset are exactly zero (they are
sums of multiples of ``1/t``); this removes rounding residue such as ``1/3 * 3 - 1``."""


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


"""Up to this K the simplex QP is solved by enumerating supports (at most 255)."""
"""Singular values below this fraction of the largest span directions of equal loss."""
"""The tie-break replaces the solver's weights only when it moves them further than this."""
