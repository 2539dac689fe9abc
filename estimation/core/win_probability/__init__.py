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

from estimation.core.win_probability.design import (
    CLIP,
    WinProbabilityFit,
    _resolve_K,
    _validated_ranks,
    lam_to_weights,
    weights_to_lam,
)
from estimation.core.win_probability.estimators import (
    fit_loo,
    fit_loo_brier,
    fit_loo_kl,
    fit_loo_tv,
    fit_minimax,
    mle,
    win_probabilities,
)
from estimation.core.win_probability.loo_batch import LooBatchFit, fit_loo_batch
from estimation.core.win_probability.minimax import MinimaxWeights, minimax_bound, minimax_weights
from estimation.core.win_probability.simplex import _kl_derivatives, _lexicographic_optimum

__all__ = [
    "CLIP",
    "LooBatchFit",
    "MinimaxWeights",
    "WinProbabilityFit",
    "_kl_derivatives",
    "_lexicographic_optimum",
    "_resolve_K",
    "_validated_ranks",
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
