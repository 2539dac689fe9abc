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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from estimation.core import aggregates
from estimation.core.intervals import BIAS_CORRECTED_METHOD, bias_corrected_interval
from estimation.core.nadeau_bengio import SAME_LOSS, NadeauBengio, nadeau_bengio
from estimation.core.rankings import tie_groups
from estimation.core.registry import ESTIMATOR_KEYS
from estimation.core.win_probability import (
    _resolve_K,
    _validated_ranks,
    fit_loo_batch,
    minimax_weights,
    weights_to_lam,
)

__all__ = [
    "BIAS_CORRECTED_METHOD",
    "SCHEMES",
    "BootstrapResult",
    "EvaluationResult",
    "NadeauBengio",
    "SchemeBootstrap",
    "bias_corrected_interval",
    "bootstrap",
    "evaluate_schemes",
    "nadeau_bengio",
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


_POINT_PL_TOL = 1e-8  # the Plackett-Luce tolerance of point estimates


def scheme_estimates(
    ranks: Any,
    counts: Any,
    *,
    K: int = 3,
    known_positions: int | None = None,
    schemes: Sequence[str] = SCHEMES,
    pl_tol: float = _POINT_PL_TOL,
) -> dict[str, np.ndarray]:
    """Every scheme's win probabilities for ``B`` dataset-count vectors at once.

    ``pl_tol`` is the Plackett-Luce convergence tolerance (change in log worths);
    the bootstrap passes the looser :func:`resampled_pl_tol`.

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
    if {"mle", "loo_kl", "loo_tv", "loo_brier", "minimax"} & set(schemes):
        batch = fit_loo_batch(ranks, counts, K=K, known_positions=known_positions)
        if "mle" in schemes:
            out["mle"] = np.array(batch.p_mle)
        if "loo_kl" in schemes:
            out["loo_kl"] = np.array(batch.p_kl)
        if "loo_tv" in schemes:
            out["loo_tv"] = np.array(batch.p_tv)
        if "loo_brier" in schemes:
            out["loo_brier"] = np.array(batch.p_brier)
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
# Above this many rank cells (datasets x algorithms) each replicate is refitted on its
# own and every MM iteration is a pass over the whole table; there the bootstrap refits
# stop at PL_LARGE_RESAMPLED_TOL. From the fit on the mean counts a replicate then takes
# two or three iterations instead of four or five, and its probabilities stay within
# 0.75 % of their bootstrap standard deviation of the converged fit (the largest gap over
# 60 replicates at m = 100 to 2000 with 600 to 12000 datasets; the interval ends within
# 0.5 %), against the ~8 % Monte Carlo error of a 2.5 % quantile from 1000 replicates.
# Smaller tables keep 1e-5 (and their numbers).
PL_LARGE_REFIT_CELLS = 1_000_000
PL_LARGE_RESAMPLED_TOL = 1e-3


def _large_refit(n: int, m: int) -> bool:
    """Whether an ``(n, m)`` rank table is over PL_LARGE_REFIT_CELLS (read at each call)."""
    return n * m > PL_LARGE_REFIT_CELLS


def resampled_pl_tol(n: int, m: int) -> float:
    """The Plackett-Luce tolerance of bootstrap refits of an ``(n, m)`` rank table."""
    return PL_LARGE_RESAMPLED_TOL if _large_refit(n, m) else PL_RESAMPLED_TOL


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

    ``estimate`` is the scheme on the full data; ``lower`` and ``upper`` its
    bias-corrected percentile interval (:func:`bias_corrected_interval`, which contains
    ``estimate``); ``p_best`` the share of replicates in which each algorithm has the
    largest estimate (ties split equally); ``weights`` the position weights on the full
    data for the linear family, else ``None``; ``replicates`` the ``(B, m)`` replicates
    when :func:`bootstrap` was asked to keep them (``keep``), else ``None``.
    """

    scheme: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p_best: np.ndarray
    weights: np.ndarray | None = None
    replicates: np.ndarray | None = None

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
    """Bias-corrected percentile intervals and P(best) for each scheme (METHODS 6)."""

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
    full_data: Mapping[str, tuple[Any, Any]] | None = None,
    keep: Sequence[str] = (),
) -> BootstrapResult:
    """Bootstrap over datasets: intervals of ``p_hat[a]`` and ``P(best)``.

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
    full_data : mapping of str to (array_like, array_like or None), optional
        Each scheme's estimate on the full data and its position weights (None where
        the scheme has none), when the caller has already fitted them (the analysis
        does): they are then used as they are instead of being fitted again.
    keep : sequence of str, default ()
        Schemes whose ``(B, m)`` replicates the result keeps (the rank intervals of
        :mod:`estimation.core.rank_inference` read them); the others are dropped.

    Returns
    -------
    BootstrapResult

    Notes
    -----
    A replicate is a vector of dataset counts; every scheme is refitted on it, the LOO
    weights included (all replicates at once). The interval of ``p_hat[a]`` is the
    bias-corrected percentile interval of the replicates
    (:func:`bias_corrected_interval`), which contains ``p_hat[a]``. ``P(best)`` counts the replicates in which ``a`` has the largest
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
    _check_bootstrap(n_boot, level)
    generator = _generator(rng)
    counts = generator.multinomial(n, np.full(n, 1.0 / n), size=int(n_boot)).astype(float)
    point, full_weights = _point_estimates(
        ranks, K=K, known_positions=known_positions, schemes=schemes, full_data=full_data
    )
    replicates = scheme_estimates(
        ranks,
        counts,
        K=K,
        known_positions=known_positions,
        schemes=schemes,
        pl_tol=resampled_pl_tol(n, m),
    )
    summaries = {}
    for name in schemes:
        estimates = replicates[name]
        lower, upper = bias_corrected_interval(point[name][0], estimates, level=level)
        summaries[name] = SchemeBootstrap(
            scheme=name,
            estimate=point[name][0],
            lower=lower,
            upper=upper,
            p_best=_share_of_best(estimates),
            weights=full_weights.get(name),
            replicates=estimates if name in keep else None,
        )
    return BootstrapResult(n_boot=int(n_boot), level=float(level), K=K, schemes=summaries)


def _check_bootstrap(n_boot: int, level: float) -> None:
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


def _point_estimates(
    ranks: np.ndarray,
    *,
    K: int,
    known_positions: int | None,
    schemes: tuple[str, ...],
    full_data: Mapping[str, tuple[Any, Any]] | None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each scheme's estimate on the full data, shape ``(1, m)``, and its position weights:
    the caller's when it gives them for every scheme, else fitted here."""
    if full_data is not None and set(schemes) <= set(full_data):
        point = {name: np.asarray(full_data[name][0], dtype=float)[None, :] for name in schemes}
        full_weights = {
            name: np.asarray(full_data[name][1], dtype=float)
            for name in schemes
            if full_data[name][1] is not None
        }
        return point, full_weights
    point = scheme_estimates(
        ranks, np.ones((1, len(ranks))), K=K, known_positions=known_positions, schemes=schemes
    )
    return point, _full_data_weights(ranks, K, known_positions, schemes)


def _full_data_weights(
    ranks: np.ndarray, K: int, known_positions: int | None, schemes: tuple[str, ...]
) -> dict[str, np.ndarray]:
    n, m = ranks.shape
    weights: dict[str, np.ndarray] = {}
    if "mle" in schemes:
        weights["mle"] = np.eye(K)[0]
    if {"loo_kl", "loo_tv", "loo_brier"} & set(schemes):
        batch = fit_loo_batch(ranks, np.ones((1, n)), K=K, known_positions=known_positions)
        weights["loo_kl"] = batch.weights_kl[0]
        weights["loo_tv"] = batch.weights_tv[0]
        weights["loo_brier"] = batch.weights_brier[0]
    if "minimax" in schemes:
        weights["minimax"] = np.array(minimax_weights(m, n, K).weights)
    return {s: w for s, w in weights.items() if s in schemes}


# ---------------------------------------------------------------------------
# evaluation


NO_CLEAR_WINNER = "no estimator predicts clearly better than the win rate here"


@dataclass(frozen=True, eq=False)
class EvaluationResult:
    """Held-out losses of each scheme (METHODS 7).

    Attributes
    ----------
    schemes : tuple of str
    log_loss, brier_loss, tv_loss : ndarray, shape (S, n)
        Per-dataset held-out losses, averaged over repeats.
    split_log_loss : ndarray, shape (S, J)
        Mean held-out log loss of each split (fold of a repeat).
    mean_log_loss, mean_brier, mean_tv_loss : dict of str to float
    best_log : str
        Scheme with the lowest mean log loss (the first in scheme order on a tie).
    win_share : dict of str to float
        Share of the splits in which each scheme has the lowest log loss (ties split).
    versus_mle : dict of str to NadeauBengio or None
        Every scheme against the MLE (pre-specified), None for the MLE itself.
    predicts_best : str or None
        ``best_log`` when it beats the MLE significantly at ``alpha``, else None.
    verdict : str
        The sentence a page shows.
    alpha : float
    test_train_ratio : float
        ``n_test / n_train`` of the Nadeau-Bengio correction.
    n_folds, n_repeats : int
        The folds and repeats actually used.
    leave_one_out : bool
        True when ``n < n_folds`` forced one dataset per fold.
    """

    schemes: tuple[str, ...]
    log_loss: np.ndarray
    brier_loss: np.ndarray
    tv_loss: np.ndarray
    split_log_loss: np.ndarray
    mean_log_loss: dict[str, float]
    mean_brier: dict[str, float]
    mean_tv_loss: dict[str, float]
    best_log: str
    win_share: dict[str, float]
    versus_mle: dict[str, NadeauBengio | None]
    predicts_best: str | None
    verdict: str
    alpha: float
    test_train_ratio: float
    n_folds: int
    n_repeats: int
    leave_one_out: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "schemes": list(self.schemes),
            "n_folds": self.n_folds,
            "n_repeats": self.n_repeats,
            "leave_one_out": self.leave_one_out,
            "alpha": self.alpha,
            "test_train_ratio": self.test_train_ratio,
            "log_loss": {"mean": dict(self.mean_log_loss), "best": self.best_log},
            "brier": {"mean": dict(self.mean_brier)},
            "tv_loss": {"mean": dict(self.mean_tv_loss)},
            "win_share": dict(self.win_share),
            "versus_mle": {
                name: None
                if test is None
                else {"difference": test.difference, "t": test.t, "pvalue": test.pvalue}
                for name, test in self.versus_mle.items()
            },
            "predicts_best": self.predicts_best,
            "verdict": self.verdict,
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
    alpha: float = 0.05,
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
        As for :func:`bootstrap`; ``schemes`` must include ``"mle"``.
    alpha : float, default 0.05
        Level of the comparison against the MLE.

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
    * Brier score ``sum_a (1[a = y] - p_hat[a])^2``, unsmoothed (proper);
    * TV loss ``sum_a |1[a = y] - p_hat[a]|``, unsmoothed (improper, shown for the
      paper's sake).

    Each dataset is held out once per repeat; its losses are averaged over repeats,
    and the mean over datasets is the scheme's score. The comparison is pre-specified:
    every scheme against the MLE, by Nadeau and Bengio's corrected resampled t-test
    (:func:`nadeau_bengio`) on the per-split mean log losses. "Predicts best here"
    (``predicts_best``) is the scheme with the lowest mean log loss only when it
    beats the MLE at ``alpha`` (lower mean loss and ``p < alpha``); otherwise the
    verdict is that no estimator predicts clearly better than the win rate.

    When ``n < n_folds`` the folds are leave-one-out (one dataset each); those folds
    do not depend on the shuffle, so they are run once (``n_repeats`` is reported as
    1 and ``rng`` is not used).
    """
    ranks = _validated_ranks(ranks)
    n, m = ranks.shape
    K = _resolve_K(K, m, known_positions)
    schemes = _check_evaluation(schemes, n_folds=n_folds, n_repeats=n_repeats, alpha=alpha, n=n)
    folds = _evaluation_folds(n, n_folds=n_folds, n_repeats=n_repeats, generator=_generator(rng))
    train = folds.training_weights(n)
    # The training sets of a large table are refitted to PL_RESAMPLED_TOL; smaller ones
    # to the point estimates' tolerance.
    estimates = scheme_estimates(
        ranks,
        train,
        K=K,
        known_positions=known_positions,
        schemes=schemes,
        pl_tol=PL_RESAMPLED_TOL if _large_refit(n, m) else _POINT_PL_TOL,
    )
    losses = _held_out_losses(ranks, estimates, schemes, folds, n_train=train.sum(axis=1))
    return _evaluation_result(schemes, losses, folds, alpha=alpha, n=n)


def _evaluation_result(
    schemes: tuple[str, ...], losses: _HeldOutLosses, folds: _Folds, *, alpha: float, n: int
) -> EvaluationResult:
    """The summary of the held-out losses: means, the pre-specified tests against the MLE
    and the badge with its sentence."""
    best_log = schemes[int(np.argmin(losses.log.mean(axis=1)))]
    ratio = folds.test_train_ratio(n)
    versus = _versus_mle(losses.split_log, schemes, test_train_ratio=ratio)
    predicts_best = _predicts_best(best_log, versus, alpha=alpha)
    return EvaluationResult(
        schemes=schemes,
        log_loss=losses.log,
        brier_loss=losses.brier,
        tv_loss=losses.tv,
        split_log_loss=losses.split_log,
        mean_log_loss=_scheme_means(schemes, losses.log),
        mean_brier=_scheme_means(schemes, losses.brier),
        mean_tv_loss=_scheme_means(schemes, losses.tv),
        best_log=best_log,
        win_share=_win_shares(schemes, losses.split_log),
        versus_mle=versus,
        predicts_best=predicts_best,
        verdict=_evaluation_verdict(predicts_best, versus),
        alpha=float(alpha),
        test_train_ratio=ratio,
        n_folds=folds.n_folds,
        n_repeats=folds.n_repeats,
        leave_one_out=folds.leave_one_out,
    )


def _check_evaluation(
    schemes: Sequence[str], *, n_folds: int, n_repeats: int, alpha: float, n: int
) -> tuple[str, ...]:
    """The evaluation's arguments, checked in the order a caller reads them."""
    schemes = _check_schemes(schemes)
    if "mle" not in schemes:
        raise ValueError(
            f"schemes must include 'mle', the pre-specified comparison; got {list(schemes)}"
        )
    for name, value in (("n_folds", n_folds), ("n_repeats", n_repeats)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2, got {n_folds}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if n < 2:
        raise ValueError(f"evaluation needs at least 2 datasets, got {n}")
    return schemes


@dataclass(frozen=True, eq=False)
class _Folds:
    """The held-out datasets of every split (fold of a repeat), in the order they are run."""

    held_out: tuple[np.ndarray, ...]
    n_folds: int
    n_repeats: int
    leave_one_out: bool

    def training_weights(self, n: int) -> np.ndarray:
        """0/1 count vectors of the training sets, shape ``(splits, n)``."""
        train = np.ones((len(self.held_out), n))
        for f, held_out in enumerate(self.held_out):
            train[f, held_out] = 0.0
        return train

    def test_train_ratio(self, n: int) -> float:
        """``n_test / n_train`` of the Nadeau-Bengio correction, averaged over splits."""
        sizes = np.array([len(held_out) for held_out in self.held_out], dtype=float)
        return float(sizes.mean() / (n - sizes).mean())


def _evaluation_folds(
    n: int, *, n_folds: int, n_repeats: int, generator: np.random.Generator
) -> _Folds:
    """Repeated k-fold, or leave-one-out run once when there are fewer datasets than folds.

    Leave-one-out folds do not depend on the shuffle, so repeating them would only repeat
    the same numbers; the generator is then not drawn from.
    """
    if n < n_folds:
        return _Folds(
            held_out=tuple(np.array([i]) for i in range(n)),
            n_folds=n,
            n_repeats=1,
            leave_one_out=True,
        )
    held_out: list[np.ndarray] = []
    for _ in range(int(n_repeats)):
        held_out.extend(np.array_split(generator.permutation(n), int(n_folds)))
    return _Folds(
        held_out=tuple(held_out),
        n_folds=int(n_folds),
        n_repeats=int(n_repeats),
        leave_one_out=False,
    )


@dataclass(frozen=True, eq=False)
class _HeldOutLosses:
    """Per scheme, read-only: per-dataset losses averaged over repeats ``(S, n)`` and the
    mean log loss of each split ``(S, J)``."""

    log: np.ndarray
    brier: np.ndarray
    tv: np.ndarray
    split_log: np.ndarray


def _held_out_losses(
    ranks: np.ndarray,
    estimates: Mapping[str, np.ndarray],
    schemes: tuple[str, ...],
    folds: _Folds,
    *,
    n_train: np.ndarray,
) -> _HeldOutLosses:
    """Every scheme's losses on the held-out datasets (the Notes of :func:`evaluate_schemes`)."""
    start, size = tie_groups(ranks)
    winner_share = np.where(start == 1, 1.0 / size, 0.0)  # (n, m), rows sum to 1
    rows = [
        _scheme_held_out_losses(estimates[name], winner_share, folds, n_train=n_train)
        for name in schemes
    ]
    log_total, brier_total, tv_total, split_log = (
        np.array(part) for part in zip(*rows, strict=True)
    )
    losses = _HeldOutLosses(
        log=log_total / folds.n_repeats,
        brier=brier_total / folds.n_repeats,
        tv=tv_total / folds.n_repeats,
        split_log=split_log,
    )
    for array in (losses.log, losses.brier, losses.tv, losses.split_log):
        array.setflags(write=False)
    return losses


def _scheme_held_out_losses(
    p: np.ndarray, winner_share: np.ndarray, folds: _Folds, *, n_train: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One scheme's summed log, Brier and TV losses per dataset, and its split log losses.

    ``p`` holds the scheme's estimate fitted on each split's training set, shape
    ``(J, m)``; ``winner_share`` spreads each dataset's unit weight over its tied winners.
    """
    n, m = winner_share.shape
    log_total = np.zeros(n)
    brier_total = np.zeros(n)
    tv_total = np.zeros(n)
    split_log = np.zeros(len(folds.held_out))
    smoothed = (n_train[:, None] * p + 0.5) / (n_train[:, None] + m / 2.0)
    log_p = np.log(smoothed)
    abs_sum = np.abs(p).sum(axis=1)
    square_sum = (p * p).sum(axis=1)
    for f, held_out in enumerate(folds.held_out):
        share = winner_share[held_out]
        log_terms = -(share * log_p[f]).sum(axis=1)
        log_total[held_out] += log_terms
        split_log[f] = log_terms.mean()
        # sum_a' (1[a' = y] - p[a'])^2 = sum p^2 - 2 p[y] + 1
        brier_total[held_out] += (share * (square_sum[f] - 2.0 * p[f] + 1.0)).sum(axis=1)
        # sum_a' |1[a' = y] - p[a']| = sum|p| - |p[y]| + |1 - p[y]|
        per_winner = abs_sum[f] - np.abs(p[f]) + np.abs(1.0 - p[f])
        tv_total[held_out] += (share * per_winner).sum(axis=1)
    return log_total, brier_total, tv_total, split_log


def _scheme_means(schemes: tuple[str, ...], losses: np.ndarray) -> dict[str, float]:
    return {name: float(v) for name, v in zip(schemes, losses.mean(axis=1), strict=True)}


def _win_shares(schemes: tuple[str, ...], split_log: np.ndarray) -> dict[str, float]:
    """Share of the splits each scheme wins on log loss; equal losses split the win."""
    lowest = split_log.min(axis=0, keepdims=True)
    scale = np.maximum(1.0, np.abs(lowest))
    winners = split_log <= lowest + SAME_LOSS * scale
    win_share = winners / winners.sum(axis=0, keepdims=True)
    return {name: float(v) for name, v in zip(schemes, win_share.mean(axis=1), strict=True)}


def _versus_mle(
    split_log: np.ndarray, schemes: tuple[str, ...], *, test_train_ratio: float
) -> dict[str, NadeauBengio | None]:
    """The pre-specified comparison: every scheme's split log losses against the MLE's."""
    reference = split_log[schemes.index("mle")]
    return {
        name: None
        if name == "mle"
        else nadeau_bengio(split_log[s] - reference, test_train_ratio=test_train_ratio)
        for s, name in enumerate(schemes)
    }


def _predicts_best(
    best_log: str, versus_mle: Mapping[str, NadeauBengio | None], *, alpha: float
) -> str | None:
    """The scheme with the lowest log loss, only when it beats the MLE at ``alpha``.

    Beating means a lower mean loss (negative difference) and a p-value below ``alpha``;
    the MLE itself (no test) and a test without a p-value never earn the badge.
    """
    chosen = versus_mle[best_log]
    if chosen is None or chosen.pvalue is None:
        return None
    return best_log if chosen.difference < 0 and chosen.pvalue < alpha else None


def _evaluation_verdict(
    predicts_best: str | None, versus_mle: Mapping[str, NadeauBengio | None]
) -> str:
    """The sentence a page shows for the evaluation."""
    chosen = None if predicts_best is None else versus_mle[predicts_best]
    if chosen is None or chosen.pvalue is None:
        return NO_CLEAR_WINNER
    return (
        f"{predicts_best} predicts best here: lowest held-out log loss, better than the "
        f"win rate (Nadeau-Bengio p = {chosen.pvalue:.3g})"
    )
