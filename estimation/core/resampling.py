"""Uncertainty and out-of-sample evaluation of the win-probability schemes.

Implements METHODS.md sections 6 (bootstrap over datasets) and 7 (which estimator
predicts best here). Both resample datasets as count vectors and refit every scheme
for all replicates at once: the linear family through
:func:`estimation.core.win_probability.fit_loo_batch`, Borda and Plackett-Luce through
the batched functions of :mod:`estimation.core.aggregates`.

Randomness comes in as an argument (an ``int`` seed or a ``numpy.random.Generator``);
the same input and seed give the same output, bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import wilcoxon

from estimation.core import aggregates
from estimation.core.rankings import tie_groups
from estimation.core.registry import ESTIMATOR_KEYS
from estimation.core.significance import _signed_rank_batch
from estimation.core.win_probability import (
    _resolve_K,
    _validated_ranks,
    fit_loo_batch,
    minimax_weights,
    weights_to_lam,
)

__all__ = [
    "SCHEMES",
    "BootstrapResult",
    "EvaluationResult",
    "SchemeBootstrap",
    "bootstrap",
    "evaluate_schemes",
    "scheme_estimates",
]

SCHEMES: tuple[str, ...] = ("mle", *(key for key in ESTIMATOR_KEYS if key != "mle"))
"""Every estimator of the registry, the win rate first: the evaluation breaks an exact tie
between schemes in favour of the earlier one, and the schemes that reduce to the win rate
(K = 1, or LOO weights of (1, 0, ...)) tie with it exactly, so the tie names the win rate."""

_BEST_TOL = 1e-12
"""Estimates within this of a replicate's maximum count as tied for best."""


def _generator(rng: int | np.random.Generator) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer):
        raise TypeError(
            f"rng must be an int seed or a numpy.random.Generator, got {type(rng).__name__}"
        )
    return np.random.default_rng(int(rng))


def _check_schemes(schemes: Sequence[str]) -> tuple[str, ...]:
    schemes = tuple(schemes)
    unknown = [s for s in schemes if s not in SCHEMES]
    if unknown or not schemes or len(set(schemes)) != len(schemes):
        raise ValueError(
            f"schemes must be distinct names from {list(SCHEMES)}, got {list(schemes)}"
        )
    return schemes


def scheme_estimates(
    ranks: Any,
    counts: Any,
    *,
    K: int = 3,
    known_positions: int | None = None,
    schemes: Sequence[str] = SCHEMES,
    pl_tol: float = 1e-8,
) -> dict[str, np.ndarray]:
    """Every scheme's win probabilities for ``B`` dataset-count vectors at once.

    ``pl_tol`` is the Plackett-Luce convergence tolerance (change in log worths);
    resampling passes the looser :data:`PL_RESAMPLED_TOL`.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
    counts : array_like, shape (B, n)
        Non-negative dataset counts (bootstrap) or 0/1 masks (cross-validation).
    K, known_positions
        Positions used by the linear family and by Plackett-Luce.
    schemes : sequence of str
        Subset of :data:`SCHEMES`.

    Returns
    -------
    dict of str to ndarray, shape (B, m)

    Notes
    -----
    The LOO weights are refitted in every replicate. The minimax weights depend only
    on ``(m, N, K)`` with ``N`` a replicate's total count, so they are computed once
    per distinct ``N`` (once in a bootstrap).
    """
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    schemes = _check_schemes(schemes)
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or counts.shape[1] != n:
        raise ValueError(f"counts must have shape (B, {n}), got {counts.shape}")
    out: dict[str, np.ndarray] = {}
    if {"mle", "loo_kl", "loo_tv", "minimax"} & set(schemes):
        batch = fit_loo_batch(ranks, counts, K=K, known_positions=known_positions)
        if "mle" in schemes:
            out["mle"] = np.array(batch.p_mle)
        if "loo_kl" in schemes:
            out["loo_kl"] = np.array(batch.p_kl)
        if "loo_tv" in schemes:
            out["loo_tv"] = np.array(batch.p_tv)
        if "minimax" in schemes:
            sizes = np.rint(batch.N).astype(np.int64)
            lam = np.empty((len(sizes), K))
            for size in np.unique(sizes):
                weights = minimax_weights(m, max(int(size), 1), K).weights
                lam[sizes == size] = weights_to_lam(weights)
            out["minimax"] = np.einsum("bk,bkm->bm", lam, batch.q)
    if "borda" in schemes:
        out["borda"] = np.asarray(aggregates.borda_probabilities(ranks, dataset_weights=counts))
    if "plackett_luce" in schemes:
        out["plackett_luce"] = np.asarray(
            aggregates.plackett_luce_probabilities(
                ranks,
                known_positions=known_positions,
                dataset_weights=counts,
                tol=pl_tol,
            )
        )
    return {s: out[s] for s in schemes}


# Refits on resampled data stop at this change in log worths: the probabilities are then
# within about 1e-5 (relative; measured 2e-5 on a 6-algorithm case, 7e-7 at m = 100) of
# the converged fit, far below the Monte Carlo error of a percentile interval from 1000
# replicates, at half the iterations of the 1e-8 used for point estimates.
PL_RESAMPLED_TOL = 1e-5


def _share_of_best(estimates: np.ndarray) -> np.ndarray:
    """Share of rows in which each column is largest; ties split equally."""
    best = estimates.max(axis=1, keepdims=True)
    tied = estimates >= best - _BEST_TOL
    return (tied / tied.sum(axis=1, keepdims=True)).mean(axis=0)


# ---------------------------------------------------------------------------
# bootstrap


@dataclass(frozen=True, eq=False)
class SchemeBootstrap:
    """Bootstrap summary of one scheme.

    ``estimate`` is the scheme on the full data; ``lower`` and ``upper`` the
    percentile interval of the replicates; ``p_best`` the share of replicates in which
    each algorithm has the largest estimate (ties split equally); ``weights`` the
    position weights on the full data for the linear family, else ``None``.
    """

    scheme: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p_best: np.ndarray
    weights: np.ndarray | None = None

    def to_dict(self, algorithms: Sequence[str] | None = None) -> dict[str, Any]:
        def label(values: np.ndarray) -> Any:
            if algorithms is None:
                return [float(v) for v in values]
            return {a: float(v) for a, v in zip(algorithms, values, strict=True)}

        out = {
            "estimate": label(self.estimate),
            "lower": label(self.lower),
            "upper": label(self.upper),
            "p_best": label(self.p_best),
        }
        if self.weights is not None:
            out["weights"] = [float(v) for v in self.weights]
        return out


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Percentile intervals and P(best) for each scheme (METHODS 6)."""

    n_boot: int
    level: float
    K: int
    schemes: dict[str, SchemeBootstrap]

    def to_dict(self, algorithms: Sequence[str] | None = None) -> dict[str, Any]:
        return {
            "n_boot": self.n_boot,
            "level": self.level,
            "K": self.K,
            "schemes": {name: s.to_dict(algorithms) for name, s in self.schemes.items()},
        }


def bootstrap(
    ranks: Any,
    *,
    rng: int | np.random.Generator,
    n_boot: int = 1000,
    K: int = 3,
    known_positions: int | None = None,
    schemes: Sequence[str] = SCHEMES,
    level: float = 0.95,
) -> BootstrapResult:
    """Bootstrap over datasets: percentile intervals of ``p_hat[a]`` and ``P(best)``.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks, 1 = best.
    rng : int or numpy.random.Generator
        Seed or generator; the replicates are ``rng.multinomial(n, [1/n] * n, n_boot)``.
    n_boot : int, default 1000
        Number of replicates ``B``.
    K, known_positions
        Positions used by the linear family and by Plackett-Luce.
    schemes : sequence of str
        Subset of :data:`SCHEMES` (default all six).
    level : float, default 0.95
        Coverage of the percentile interval.

    Returns
    -------
    BootstrapResult

    Notes
    -----
    A replicate is a vector of dataset counts; every scheme is refitted on it, the LOO
    weights included (all replicates at once). The interval of ``p_hat[a]`` is the
    ``(1 - level)/2`` and ``(1 + level)/2`` quantiles (numpy's linear interpolation)
    of the replicates. ``P(best)`` counts the replicates in which ``a`` has the largest
    estimate, estimates within 1e-12 of the maximum sharing it equally, so it sums
    to 1.

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.array([[1, 2, 3], [2, 1, 3], [1, 3, 2], [1, 2, 3]], dtype=float)
    >>> result = bootstrap(ranks, rng=0, n_boot=200, schemes=["mle"])
    >>> result.schemes["mle"].estimate
    array([0.75, 0.25, 0.  ])
    """
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    schemes = _check_schemes(schemes)
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    generator = _generator(rng)
    counts = generator.multinomial(n, np.full(n, 1.0 / n), size=int(n_boot)).astype(float)

    point = scheme_estimates(
        ranks, np.ones((1, n)), K=K, known_positions=known_positions, schemes=schemes
    )
    replicates = scheme_estimates(
        ranks,
        counts,
        K=K,
        known_positions=known_positions,
        schemes=schemes,
        pl_tol=PL_RESAMPLED_TOL,
    )
    full_weights = _full_data_weights(ranks, K, known_positions, schemes)

    lower_q, upper_q = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    summaries = {}
    for name in schemes:
        estimates = replicates[name]
        lower, upper = np.quantile(estimates, [lower_q, upper_q], axis=0)
        summaries[name] = SchemeBootstrap(
            scheme=name,
            estimate=point[name][0],
            lower=lower,
            upper=upper,
            p_best=_share_of_best(estimates),
            weights=full_weights.get(name),
        )
    return BootstrapResult(n_boot=int(n_boot), level=float(level), K=K, schemes=summaries)


def _full_data_weights(
    ranks: np.ndarray, K: int, known_positions: int | None, schemes: tuple[str, ...]
) -> dict[str, np.ndarray]:
    n, m = ranks.shape
    weights: dict[str, np.ndarray] = {}
    if "mle" in schemes:
        weights["mle"] = np.eye(K)[0]
    if "loo_kl" in schemes or "loo_tv" in schemes:
        batch = fit_loo_batch(ranks, np.ones((1, n)), K=K, known_positions=known_positions)
        weights["loo_kl"] = batch.weights_kl[0]
        weights["loo_tv"] = batch.weights_tv[0]
    if "minimax" in schemes:
        weights["minimax"] = np.array(minimax_weights(m, n, K).weights)
    return {s: w for s, w in weights.items() if s in schemes}


# ---------------------------------------------------------------------------
# evaluation


@dataclass(frozen=True, eq=False)
class EvaluationResult:
    """Held-out losses of each scheme (METHODS 7).

    Attributes
    ----------
    schemes : tuple of str
    log_loss, tv_loss : ndarray, shape (S, n)
        Per-dataset held-out losses, averaged over repeats.
    mean_log_loss, mean_tv_loss : dict of str to float
    best_log, best_tv : str
        Scheme with the lowest mean loss (the first in scheme order on a tie).
    p_value_log, p_value_tv : dict of str to float or None
        Paired Wilcoxon signed-rank p-value of each scheme against the best, over
        per-dataset losses; ``None`` for the best itself and when all differences
        are zero.
    n_folds, n_repeats : int
        The folds and repeats actually used.
    leave_one_out : bool
        True when ``n < n_folds`` forced one dataset per fold.
    """

    schemes: tuple[str, ...]
    log_loss: np.ndarray
    tv_loss: np.ndarray
    mean_log_loss: dict[str, float]
    mean_tv_loss: dict[str, float]
    best_log: str
    best_tv: str
    p_value_log: dict[str, float | None]
    p_value_tv: dict[str, float | None]
    n_folds: int
    n_repeats: int
    leave_one_out: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "schemes": list(self.schemes),
            "n_folds": self.n_folds,
            "n_repeats": self.n_repeats,
            "leave_one_out": self.leave_one_out,
            "log_loss": {
                "mean": dict(self.mean_log_loss),
                "best": self.best_log,
                "p_value_vs_best": dict(self.p_value_log),
            },
            "tv_loss": {
                "mean": dict(self.mean_tv_loss),
                "best": self.best_tv,
                "p_value_vs_best": dict(self.p_value_tv),
            },
        }


def evaluate_schemes(
    ranks: Any,
    *,
    rng: int | np.random.Generator,
    n_folds: int = 10,
    n_repeats: int = 5,
    K: int = 3,
    known_positions: int | None = None,
    schemes: Sequence[str] = SCHEMES,
) -> EvaluationResult:
    """Repeated k-fold over datasets: which scheme predicts the held-out winner best.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks, 1 = best; ``n >= 2``.
    rng : int or numpy.random.Generator
        Seed or generator for the fold assignment.
    n_folds, n_repeats : int, default 10 and 5
        Each repeat shuffles the datasets and splits them into ``n_folds`` folds of
        near-equal size (``numpy.array_split``).
    K, known_positions, schemes
        As for :func:`bootstrap`.

    Returns
    -------
    EvaluationResult

    Notes
    -----
    Each scheme is fitted on the training datasets of a fold (all folds at once, as
    0/1 count vectors; the LOO weights are refitted inside each training set) and
    scored on every held-out dataset ``i`` with winners ``y`` (a tie for first of
    ``t`` averages the loss with weights ``1/t``):

    * log loss ``-log p~[y]`` with ``p~ = (n_train p_hat + 1/2) / (n_train + m/2)``,
      the same add-half smoothing for every scheme (raw estimates may be 0);
    * TV loss ``sum_a |1[a = y] - p_hat[a]|``, unsmoothed.

    Each dataset is held out once per repeat; its losses are averaged over repeats,
    and the mean over datasets is the scheme's score. The best scheme has the lowest
    mean; every other scheme gets a paired Wilcoxon signed-rank p-value
    (``scipy.stats.wilcoxon`` defaults) over the per-dataset losses.

    When ``n < n_folds`` the folds are leave-one-out (one dataset each); those folds
    do not depend on the shuffle, so they are run once (``n_repeats`` is reported as
    1 and ``rng`` is not used).
    """
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    schemes = _check_schemes(schemes)
    for name, value in (("n_folds", n_folds), ("n_repeats", n_repeats)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2, got {n_folds}")
    if n < 2:
        raise ValueError(f"evaluation needs at least 2 datasets, got {n}")
    generator = _generator(rng)

    leave_one_out = n < n_folds
    if leave_one_out:
        folds = [np.array([i]) for i in range(n)]
        repeats_used, folds_used = 1, n
    else:
        folds = []
        for _ in range(int(n_repeats)):
            folds.extend(np.array_split(generator.permutation(n), int(n_folds)))
        repeats_used, folds_used = int(n_repeats), int(n_folds)

    train = np.ones((len(folds), n))
    for f, held_out in enumerate(folds):
        train[f, held_out] = 0.0
    n_train = train.sum(axis=1)
    estimates = scheme_estimates(
        ranks, train, K=K, known_positions=known_positions, schemes=schemes
    )

    start, size = tie_groups(ranks)
    winner_share = np.where(start == 1, 1.0 / size, 0.0)  # (n, m), rows sum to 1
    log_total = np.zeros((len(schemes), n))
    tv_total = np.zeros((len(schemes), n))
    for s, name in enumerate(schemes):
        p = estimates[name]
        smoothed = (n_train[:, None] * p + 0.5) / (n_train[:, None] + m / 2.0)
        log_p = np.log(smoothed)
        abs_sum = np.abs(p).sum(axis=1)
        for f, held_out in enumerate(folds):
            share = winner_share[held_out]
            log_total[s, held_out] += -(share * log_p[f]).sum(axis=1)
            # sum_a' |1[a' = y] - p[a']| = sum|p| - |p[y]| + |1 - p[y]|
            per_winner = abs_sum[f] - np.abs(p[f]) + np.abs(1.0 - p[f])
            tv_total[s, held_out] += (share * per_winner).sum(axis=1)
    log_loss = log_total / repeats_used
    tv_loss = tv_total / repeats_used

    def summarise(losses: np.ndarray) -> tuple[dict[str, float], str, dict[str, float | None]]:
        means = losses.mean(axis=1)
        best = int(np.argmin(means))
        p_values: dict[str, float | None] = {}
        for s, name in enumerate(schemes):
            p_values[name] = None if s == best else _paired_p_value(losses[s], losses[best])
        return (
            {name: float(v) for name, v in zip(schemes, means, strict=True)},
            schemes[best],
            p_values,
        )

    mean_log, best_log, p_log = summarise(log_loss)
    mean_tv, best_tv, p_tv = summarise(tv_loss)
    for array in (log_loss, tv_loss):
        array.setflags(write=False)
    return EvaluationResult(
        schemes=schemes,
        log_loss=log_loss,
        tv_loss=tv_loss,
        mean_log_loss=mean_log,
        mean_tv_loss=mean_tv,
        best_log=best_log,
        best_tv=best_tv,
        p_value_log=p_log,
        p_value_tv=p_tv,
        n_folds=folds_used,
        n_repeats=repeats_used,
        leave_one_out=leave_one_out,
    )


_SAME_LOSS = 1e-12
"""Paired losses closer than this (relative to 1 or the loss) are equal: two schemes
that both return the uniform vector differ only in the last bits."""


def _paired_p_value(losses: np.ndarray, best: np.ndarray) -> float | None:
    """Wilcoxon signed-rank p-value of paired losses; ``None`` when all differences are 0.

    Differences within rounding (:data:`_SAME_LOSS`) count as exact zeros, which
    ``scipy.stats.wilcoxon`` then treats by its default ``zero_method``.
    """
    differences = losses - best
    scale = np.maximum(1.0, np.maximum(np.abs(losses), np.abs(best)))
    differences[np.abs(differences) <= _SAME_LOSS * scale] = 0.0
    if not differences.any():
        return None
    p_value = _small_sample_p_value(differences)
    if p_value is None:
        p_value = float(wilcoxon(differences).pvalue)
    return p_value if np.isfinite(p_value) else None


_PERMUTATION_MAX_N = 13  # scipy.stats.wilcoxon's exact permutation test (2**13 < 9999)


def _small_sample_p_value(differences: np.ndarray) -> float | None:
    """``scipy.stats.wilcoxon(differences).pvalue`` where scipy runs its exact
    permutation test (``method="auto"``: at most 13 differences with ties or zeros),
    from the vectorised signed-rank tests of :mod:`significance`; None elsewhere
    (scipy's own path is fast there).

    scipy evaluates the statistic on each of the ``2**n`` sign flips through
    ``permutation_test``: thousands of Python-level calls, seconds per p-value (the
    evaluation asks for several). The batch computes the same counts at once, bit for
    bit scipy's p-value (``tests/core/test_resampling_pvalue.py``).
    """
    n = differences.size
    if n > _PERMUTATION_MAX_N or not np.isfinite(differences).all():
        return None
    nonzero = differences[differences != 0]
    if nonzero.size == n and np.unique(np.abs(nonzero)).size == n:
        return None  # no ties, no zeros: scipy's exact distribution
    return float(_signed_rank_batch(differences[None, :]).pvalue[0])
