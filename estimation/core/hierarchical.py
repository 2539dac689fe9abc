"""The Bayesian hierarchical model over datasets x folds (METHODS 6.1).

Corani, Benavoli, Demšar, Mangili & Zaffalon (2017), "Statistical comparison of
classifiers through Bayesian hierarchical modelling", Machine Learning 106; Benavoli,
Corani, Demšar & Zaffalon (2017), JMLR 18(77), section 5. The model is the one of
``baycomp.HierarchicalTest`` (its Stan file), on the fold differences ``x_ik = A - B``
(oriented: larger is better) of dataset ``i`` and fold ``k`` (``K`` folds each):

    x_i        ~ MVN(delta_i 1, sigma_i^2 R),  R = (1 - rho) I + rho 11',  rho = 1 / K
    delta_i    ~ t(nu, delta0, std0)
    sigma_i    ~ U(0, 1000 * mean within-dataset std)
    delta0     ~ U(-max |x|, max |x|),   std0 ~ U(0, 1000 * std of the dataset means)
    nu - 1     ~ Gamma(alpha, beta),  alpha ~ U(1, 2),  beta ~ U(0.01, 0.1)

and, from each posterior draw, the masses of the predictive ``t(nu, delta0, std0)`` of
a new dataset's difference above ``rope``, inside ``[-rope, rope]`` and below
``-rope``; the three probabilities are the shares of draws in which each mass is the
largest (as baycomp's ``Test.probs``). Data are divided by the mean within-dataset
standard deviation first, as baycomp does.

Baycomp samples this with Stan's NUTS, which is not installed here. This module uses a
seeded Gibbs sampler instead, exact in distribution as the chains lengthen: the
Student t is written as a scale mixture (``delta_i | lambda_i ~ N(delta0, std0^2 /
lambda_i)``, ``lambda_i ~ Gamma(nu/2, nu/2)``), which makes ``delta_i``, ``lambda_i``,
``delta0``, ``sigma_i``, ``std0`` and ``beta`` conjugate (truncated normal, gamma,
truncated gamma, each drawn by inverting its CDF) and ``alpha`` a draw from its
conditional on a fine grid (:data:`_ALPHA_GRID` points over [1, 2]: the one
approximation of a conditional). Given the ``lambda_i``, ``nu`` and ``std0`` mix slowly
between heavy tails with a narrow spread and light tails with a wide one (measured on
the simulated demo: a spread of 0.135 in P(equivalent) across seeds), so each step adds
random-walk Metropolis moves on ``log(nu - 1)`` and ``log std0`` with the ``lambda_i``
integrated out (the Student t likelihood of the ``delta_i``; the ``lambda_i`` are drawn
afresh on the new values at the next step: a collapsed block), and a joint rescaling of
``std0`` with the ``delta_i`` about ``delta0`` (a group move, Liu & Sabatti 2000); the
same pair's spread across seeds is then 0.025-0.043 (three sets of 24 seeds).
Compound symmetry makes the likelihood of ``delta_i`` depend only on the fold mean
(variance ``sigma_i^2 (1 + (K - 1) rho) / K``) and the quadratic form closed-form.

What is approximated: the Monte-Carlo error of the probabilities, from
:data:`N_CHAINS` chains x :data:`N_KEEP` kept draws after :data:`N_BURN` warm-up steps
(chains start apart and run vectorised side by side); the draws are autocorrelated, so
the standard error exceeds ``0.5 / sqrt(N_CHAINS * N_KEEP)`` = 0.008: each pair carries
its own (:func:`monte_carlo_error`, batch means), and the tests bound the probabilities
against an independent long reference run at 0.05.
A dataset whose folds all agree
(zero within variance) has its quadratic form floored at ``1e-6`` (scaled units) where
baycomp jitters the data. The cost is O((N_BURN + N_KEEP) N_CHAINS (n K)) time and
O(N_CHAINS n + n K) memory; ``n K`` is capped at :data:`MAX_CELLS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from estimation.core.contract import (
    FoldsPower,
    HierarchicalComparison,
    HierarchicalVersus,
    NotApplicable,
)
from estimation.core.hierarchical_power import folds_power

__all__ = [
    "FOLDS_POWER_KEEP",
    "MAX_CELLS",
    "MAX_VERSUS",
    "N_BURN",
    "N_CHAINS",
    "N_KEEP",
    "HierarchicalPair",
    "HierarchicalPosterior",
    "hierarchical_comparison",
    "hierarchical_posterior",
    "hierarchical_probabilities",
    "monte_carlo_error",
    "pair_folds",
    "pair_folds_power",
    "posterior_winners",
]

N_CHAINS = 8
N_BURN = 300
N_KEEP = 500
N_BATCHES = 5
FOLDS_POWER_KEEP = 250
"""The folds power's plug-in model is the medians of the first this many kept steps of
every chain (2,000 draws). Measured on four fold tables (10 x 30 x 5, 20 x 100 x 10,
the simulated demo, 20 x 30 x 5) over 12 seeds: the spread of the power at the present
folds across seeds is 0.008-0.022 from these steps and 0.007-0.021 from all 500, below
the power's own simulation error (0.018-0.025 at N_SIMULATIONS = 400), and the number
of folds needed does not move; the advisor, which runs the sampler for the power alone,
then stops after N_BURN + 250 steps instead of N_BURN + N_KEEP."""
MAX_CELLS = 20_000
"""Largest datasets x folds of one pair (e.g. 200 datasets x 100 folds)."""

MAX_VERSUS = 3
"""The leader is compared with this many next algorithms in the payload (measured: about
0.7 s of CPU each at 10 x 10, 0.8 s at 100 x 10, 2.3 s at 1000 x 2)."""

UPPER_SIGMA = 1000.0
ALPHA_BOUNDS = (1.0, 2.0)
BETA_BOUNDS = (0.01, 0.1)
_ALPHA_GRID = 64
_NU_STEP = 0.6
_MOVES = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, -1.0))
_STD0_STEP = 0.5
_REPEATS = 4
_Q_FLOOR = 1e-6
_STD0_FLOOR = 1e-6
"""std0 is kept at or above this (scaled units: the mean within-dataset spread is 1).
Below it the delta_i collapse onto delta0 and their precisions overflow (seen on
near-identical folds); a spread among datasets this small is zero at any ROPE."""


@dataclass(frozen=True)
class HierarchicalPosterior:
    """Draws of the hyper-parameters (scaled back to metric units) of one pair."""

    delta0: np.ndarray
    std0: np.ndarray
    nu: np.ndarray
    scale: float
    n_datasets: int
    n_folds: int
    n_chains: int = N_CHAINS
    """Draws are in the order (kept step, chain)."""


@dataclass(frozen=True)
class HierarchicalPair:
    """P(A practically better), P(equivalent), P(B practically better) on a new dataset."""

    a_better: float
    equivalent: float
    b_better: float
    n_datasets: int
    n_folds: int
    mc_se: float
    n_draws: int


def _check(differences: Any) -> np.ndarray:
    x = np.asarray(differences, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"differences must be 2-D (datasets x folds), got {x.ndim}-D")
    n, k = x.shape
    if n < 2 or k < 2:
        raise ValueError(f"differences need >= 2 datasets and >= 2 folds, got {n} x {k}")
    if n * k > MAX_CELLS:
        raise ValueError(f"differences have {n * k} cells; at most {MAX_CELLS} are allowed")
    if not np.isfinite(x).all():
        raise ValueError("differences must be finite (drop datasets with missing folds)")
    return x


def _gamma_above(rng, shape, rate, lower):
    """Gamma(shape, rate) truncated to (lower, inf): a plain gamma draw, and for the draws
    at or below ``lower`` (rare: the bound is the prior's 1000 x spread) a draw by the
    inverse upper CDF of the truncated tail; either way exactly the truncated law. The
    inverse alone costs 5 us a value at shape 1/2 (two folds): 20 times the draw."""
    rate = np.asarray(rate, dtype=float)
    draw = rng.standard_gamma(shape, size=rate.shape) / rate
    low = draw <= lower
    if low.any():
        shapes = np.broadcast_to(shape, rate.shape)[low]
        tail = special.gammaincc(shapes, rate[low] * lower)
        v = np.clip(rng.uniform(size=int(low.sum())) * tail, np.finfo(float).tiny, None)
        draw[low] = special.gammainccinv(shapes, v) / rate[low]
    return draw


def _gamma_between(rng, shape, rate, lower, upper):
    lo = special.gammainc(shape, rate * lower)
    hi = special.gammainc(shape, rate * upper)
    u = lo + rng.uniform(size=np.shape(rate)) * (hi - lo)
    return np.clip(special.gammaincinv(shape, u) / rate, lower, upper)


def _normal_between(rng, mean, sd, lower, upper):
    a = special.ndtr((lower - mean) / sd)
    b = special.ndtr((upper - mean) / sd)
    u = a + rng.uniform(size=np.shape(mean)) * (b - a)
    u = np.clip(u, 1e-300, 1 - 1e-16)
    return np.clip(mean + sd * special.ndtri(u), lower, upper)


def _log_nu_std0_marginal(eta, std0, resid2, alpha, beta):
    """log p(eta = nu - 1, std0 | delta, delta0, alpha, beta) + log eta + log std0 (the
    Jacobians of the log scale), up to a constant; ``resid2`` is (delta_i - delta0)^2."""
    nu = eta + 1.0
    n = resid2.shape[1]
    return (
        alpha * np.log(eta)
        - beta * eta
        + n * (special.gammaln((nu + 1.0) / 2.0) - special.gammaln(nu / 2.0) - 0.5 * np.log(nu))
        - (n - 1) * np.log(std0)
        - (nu + 1.0) / 2.0 * np.log1p(resid2 / (std0 * std0 * nu)[:, None]).sum(axis=1)
    )


_ALPHA_VALUES = np.linspace(*ALPHA_BOUNDS, _ALPHA_GRID)
_ALPHA_VALUES.setflags(write=False)
_ALPHA_LOG_GAMMA = special.gammaln(_ALPHA_VALUES)
_ALPHA_LOG_GAMMA.setflags(write=False)


@dataclass(frozen=True)
class _FoldSummary:
    """What the sampler reads of the scaled fold differences, fixed through the run."""

    n: int
    k: int
    scale: float
    fold_mean: np.ndarray
    # Quadratic form of R^-1 about delta: (S2 - 2 delta S1 + K delta^2 - c (S1 - K delta)^2)
    # / (1 - rho), c = rho / (1 + (K - 1) rho); S1, S2 the sum and the sum of squares.
    s1: np.ndarray
    s2: np.ndarray
    rho: float
    c: float
    mean_var_factor: float
    fold_var: np.ndarray
    std_among: float
    max_diff: float
    sigma_hi: float
    std0_hi: float


@dataclass
class _Chains:
    """The state of every chain (one entry, or one row, per chain), updated in place."""

    delta0: np.ndarray
    std0: np.ndarray
    eta: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    delta: np.ndarray
    sigma2: np.ndarray


def _fold_summary(x: np.ndarray) -> _FoldSummary:
    """Divide by the mean within-dataset spread (as baycomp) and precompute the sums."""
    n, k = x.shape
    within = float(np.mean(np.std(x, axis=1)))
    scale = within if within > 0 else max(float(np.abs(x).max()), 1.0)
    x = x / scale
    rho = 1.0 / k
    std_within = float(np.mean(np.std(x, axis=1)))
    std_among = float(np.std(x.mean(axis=1)))
    return _FoldSummary(
        n=n,
        k=k,
        scale=scale,
        fold_mean=x.mean(axis=1),
        s1=x.sum(axis=1),
        s2=(x * x).sum(axis=1),
        rho=rho,
        c=rho / (1.0 + (k - 1) * rho),
        mean_var_factor=(1.0 + (k - 1) * rho) / k,
        fold_var=np.var(x, axis=1),
        std_among=std_among,
        max_diff=max(float(np.abs(x).max()), 1e-12),
        sigma_hi=UPPER_SIGMA * max(std_within, 1e-12),
        std0_hi=UPPER_SIGMA * max(std_among, std_within, 1e-12),
    )


def _start_chains(data: _FoldSummary, generator: np.random.Generator, c_: int) -> _Chains:
    """Chains started apart, about the data's own centre and spread."""
    spread = generator.uniform(-0.5, 0.5, size=c_)
    delta0 = np.clip(
        data.fold_mean.mean() + spread * max(data.std_among, 0.1), -data.max_diff, data.max_diff
    )
    std0 = np.full(c_, max(data.std_among, 0.1)) * generator.uniform(0.5, 2.0, size=c_)
    eta = generator.uniform(1.0, 30.0, size=c_)
    alpha = generator.uniform(*ALPHA_BOUNDS, size=c_)
    beta = generator.uniform(*BETA_BOUNDS, size=c_)
    return _Chains(
        delta0=delta0,
        std0=std0,
        eta=eta,
        alpha=alpha,
        beta=beta,
        delta=np.tile(data.fold_mean, (c_, 1)),
        sigma2=np.tile(np.maximum(data.fold_var, _Q_FLOOR), (c_, 1)),
    )


def _conjugate_draws(data: _FoldSummary, s: _Chains, generator: np.random.Generator) -> np.ndarray:
    """lambda_i, delta_i, sigma_i^2, delta0 and std0 from their conditionals; returns the
    likelihood precision of the fold means (the group move reads it)."""
    c_ = s.delta0.shape[0]
    nu = s.eta + 1.0
    resid2 = (s.delta - s.delta0[:, None]) ** 2
    lam = generator.gamma((nu[:, None] + 1.0) / 2.0, size=(c_, data.n)) / (
        (nu[:, None] + resid2 / s.std0[:, None] ** 2) / 2.0
    )
    prior_prec = lam / s.std0[:, None] ** 2
    like_prec = 1.0 / (s.sigma2 * data.mean_var_factor)
    post_var = 1.0 / (prior_prec + like_prec)
    post_mean = post_var * (prior_prec * s.delta0[:, None] + like_prec * data.fold_mean)
    s.delta = post_mean + np.sqrt(post_var) * generator.standard_normal((c_, data.n))

    k, delta = data.k, s.delta
    quad = (data.s2 - 2 * delta * data.s1 + k * delta**2 - data.c * (data.s1 - k * delta) ** 2) / (
        1.0 - data.rho
    )
    quad = np.maximum(quad, _Q_FLOOR)
    precision = _gamma_above(generator, (k - 1) / 2.0, quad / 2.0, 1.0 / data.sigma_hi**2)
    s.sigma2 = 1.0 / precision

    lam_sum = lam.sum(axis=1)
    mu_mean = (lam * delta).sum(axis=1) / lam_sum
    s.delta0 = _normal_between(
        generator, mu_mean, s.std0 / np.sqrt(lam_sum), -data.max_diff, data.max_diff
    )
    spread2 = np.maximum((lam * (delta - s.delta0[:, None]) ** 2).sum(axis=1), 1e-300)
    s.std0 = np.maximum(
        1.0
        / np.sqrt(
            _gamma_above(generator, (data.n - 1) / 2.0, spread2 / 2.0, 1.0 / data.std0_hi**2)
        ),
        _STD0_FLOOR,
    )
    return like_prec


def _rescale_move(
    data: _FoldSummary, s: _Chains, like_prec: np.ndarray, generator: np.random.Generator
) -> None:
    """A joint rescaling of std0 and the delta_i about delta0 (a group move, Liu & Sabatti
    2000): the centred conditionals alone mix slowly where std0 is small. The prior of the
    delta_i is invariant under it; the ratio is the likelihood of the fold means times the
    Jacobian's factor c (c^(n+1) against c^-n of the prior)."""
    c_ = s.delta0.shape[0]
    c_scale = np.exp(_STD0_STEP * generator.standard_normal(c_))
    moved = s.delta0[:, None] + c_scale[:, None] * (s.delta - s.delta0[:, None])
    log_ratio = (
        np.log(c_scale)
        - (((data.fold_mean - moved) ** 2 - (data.fold_mean - s.delta) ** 2) * like_prec).sum(
            axis=1
        )
        / 2.0
    )
    moved_std0 = c_scale * s.std0
    accept = (np.log(generator.uniform(size=c_)) < log_ratio) & (
        (moved_std0 < data.std0_hi) & (moved_std0 >= _STD0_FLOOR)
    )
    s.std0 = np.where(accept, moved_std0, s.std0)
    s.delta = np.where(accept[:, None], moved, s.delta)


def _nu_std0_moves(
    data: _FoldSummary, s: _Chains, move_scales: np.ndarray, generator: np.random.Generator
) -> None:
    """nu and std0 with lambda integrated out (the Student t likelihood of the delta_i):
    given lambda, nu and std0 mix slowly between heavy tails with a narrow spread and light
    tails with a wide one; lambda is drawn afresh from its conditional on them at the next
    step. Random-walk moves on log(nu - 1) and log std0 (their Jacobians in the target),
    each alone and both together."""
    c_ = s.delta0.shape[0]
    resid2 = (s.delta - s.delta0[:, None]) ** 2
    current = _log_nu_std0_marginal(s.eta, s.std0, resid2, s.alpha, s.beta)
    # All the moves' proposals and uniforms of this step in three calls.
    steps = generator.standard_normal((2, move_scales.shape[1], c_)) * move_scales[..., None]
    log_u = np.log(generator.uniform(size=(move_scales.shape[1], c_)))
    eta, std0 = s.eta, s.std0
    for step_eta, step_std, log_u_move in zip(steps[0], steps[1], log_u, strict=True):
        eta_new = eta * np.exp(step_eta)
        std0_new = std0 * np.exp(step_std)
        proposed = _log_nu_std0_marginal(eta_new, std0_new, resid2, s.alpha, s.beta)
        accept = (log_u_move < proposed - current) & (
            (std0_new < data.std0_hi) & (std0_new >= _STD0_FLOOR)
        )
        eta = np.where(accept, eta_new, eta)
        std0 = np.where(accept, std0_new, std0)
        current = np.where(accept, proposed, current)
    s.eta, s.std0 = eta, std0


def _gamma_prior_draws(s: _Chains, generator: np.random.Generator) -> None:
    """alpha from its conditional on a grid of :data:`_ALPHA_GRID` points, then beta."""
    grid, grid_step = _ALPHA_VALUES, _ALPHA_VALUES[1] - _ALPHA_VALUES[0]
    log_alpha = (
        grid[None, :] * np.log(s.beta)[:, None]
        + (grid[None, :] - 1.0) * np.log(s.eta)[:, None]
        - _ALPHA_LOG_GAMMA[None, :]
    )
    pick = np.argmax(log_alpha + generator.gumbel(size=log_alpha.shape), axis=1)
    s.alpha = np.clip(
        grid[pick] + grid_step * generator.uniform(-0.5, 0.5, size=s.alpha.shape[0]),
        *ALPHA_BOUNDS,
    )
    s.beta = _gamma_between(generator, s.alpha + 1.0, s.eta, *BETA_BOUNDS)


def hierarchical_posterior(
    differences: Any,
    *,
    rng: int | np.random.Generator,
    n_chains: int = N_CHAINS,
    n_burn: int = N_BURN,
    n_keep: int = N_KEEP,
) -> HierarchicalPosterior:
    """Gibbs draws of ``(delta0, std0, nu)`` from fold differences ``(n, K)``, A - B."""
    data = _fold_summary(_check(differences))
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    c_ = int(n_chains)
    chains = _start_chains(data, generator, c_)
    # Rows: the step sizes on log(nu - 1) and log std0 of each Metropolis move.
    move_scales = np.array(_MOVES * _REPEATS, dtype=float).T * np.array([[_NU_STEP], [_STD0_STEP]])
    kept = np.empty((3, int(n_keep), c_))
    for step in range(int(n_burn) + int(n_keep)):
        like_prec = _conjugate_draws(data, chains, generator)
        _rescale_move(data, chains, like_prec, generator)
        _nu_std0_moves(data, chains, move_scales, generator)
        _gamma_prior_draws(chains, generator)
        if step >= n_burn:
            kept[:, step - n_burn] = (chains.delta0, chains.std0, chains.eta + 1.0)
    return HierarchicalPosterior(
        delta0=kept[0].ravel() * data.scale,
        std0=kept[1].ravel() * data.scale,
        nu=kept[2].ravel(),
        scale=data.scale,
        n_datasets=data.n,
        n_folds=data.k,
        n_chains=c_,
    )


def posterior_winners(posterior: HierarchicalPosterior, rope: float) -> np.ndarray:
    """Per draw, which predictive mass is the largest: 0 above ``rope`` (A better), 1
    inside, 2 below ``-rope``; draws in the order (kept step, chain)."""
    rope = float(rope)
    if not np.isfinite(rope) or rope < 0:
        raise ValueError(f"rope must be a finite number >= 0 (metric units), got {rope!r}")
    dist = stats.t(posterior.nu, posterior.delta0, posterior.std0)
    below = dist.cdf(-rope)
    above = dist.sf(rope)
    inside = np.clip(1.0 - above - below, 0.0, 1.0)
    if rope == 0:
        masses = np.stack([above, np.zeros_like(above), below])
    else:
        masses = np.stack([above, inside, below])
    return np.argmax(masses, axis=0)


def posterior_probabilities(posterior: HierarchicalPosterior, rope: float):
    """The three shares of draws in which each predictive mass is the largest."""
    winners = np.bincount(posterior_winners(posterior, rope), minlength=3) / posterior.nu.size
    return float(winners[0]), float(winners[1]), float(winners[2])


def monte_carlo_error(winners: np.ndarray, n_chains: int = N_CHAINS) -> float:
    """The largest Monte-Carlo standard error of the three shares, by batch means: each
    chain cut into :data:`N_BATCHES` runs of consecutive draws, the standard deviation of
    the batch shares over sqrt(batches) (autocorrelation shorter than a batch, N_KEEP /
    N_BATCHES = 100 steps, is accounted for; between-chain differences too)."""
    by_step = np.asarray(winners).reshape(-1, int(n_chains))
    usable = by_step.shape[0] // N_BATCHES * N_BATCHES
    if usable == 0:
        return 0.5
    batches = by_step[:usable].reshape(N_BATCHES, -1, int(n_chains))
    shares = np.stack([(batches == c).mean(axis=1).ravel() for c in range(3)])
    return float((shares.std(axis=1, ddof=1) / np.sqrt(shares.shape[1])).max())


def hierarchical_probabilities(
    differences: Any,
    *,
    rope: float,
    rng: int | np.random.Generator,
    n_chains: int = N_CHAINS,
    n_burn: int = N_BURN,
    n_keep: int = N_KEEP,
) -> HierarchicalPair:
    """P(A practically better), P(equivalent), P(B practically better) of a pair.

    Parameters
    ----------
    differences : array_like, shape (n, K)
        Fold-level differences A - B (oriented: larger is better), complete.
    rope : float
        Half-width of the region of practical equivalence, metric units (>= 0).
    rng : int or numpy.random.Generator
        Seed of the sampler.

    Examples
    --------
    >>> d = np.random.default_rng(0).normal(0.02, 0.01, size=(10, 10))
    >>> p = hierarchical_probabilities(d, rope=0.01, rng=1)
    >>> p.a_better > 0.9
    True
    """
    posterior = hierarchical_posterior(
        differences, rng=rng, n_chains=n_chains, n_burn=n_burn, n_keep=n_keep
    )
    winners = posterior_winners(posterior, rope)
    a, eq, b = (float(v) for v in np.bincount(winners, minlength=3) / winners.size)
    return HierarchicalPair(
        a_better=a,
        equivalent=eq,
        b_better=b,
        n_datasets=posterior.n_datasets,
        n_folds=posterior.n_folds,
        mc_se=monte_carlo_error(winners, n_chains),
        n_draws=int(winners.size),
    )


def pair_folds(
    fold_scores: np.ndarray, a: int, b: int, *, max_cells: int = MAX_CELLS
) -> tuple[np.ndarray | None, list[str]]:
    """The rectangular fold differences ``A - B`` of a pair, ``(datasets, folds)``.

    A dataset counts with its folds where both have a score; each keeps its first ``K``
    such folds, ``K`` the fewest among datasets with at least two; datasets beyond
    ``max_cells`` cells (:data:`MAX_CELLS`) are left out (a note says how many)."""
    notes: list[str] = []
    both = np.isfinite(fold_scores[:, :, a]) & np.isfinite(fold_scores[:, :, b])
    counts = both.sum(axis=1)
    used = np.flatnonzero(counts >= 2)
    if used.size < 2:
        return None, notes
    k = int(counts[used].min())
    limit = max(2, int(max_cells) // k)
    if used.size > limit:
        notes.append(f"{used.size - limit} datasets left out to bound the cost")
        used = used[:limit]
    rows = []
    for i in used:
        folds = np.flatnonzero(both[i])[:k]
        rows.append(fold_scores[i, folds, a] - fold_scores[i, folds, b])
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(rows)
    if not np.isfinite(x).all():
        return None, ["the fold differences leave the float range"]
    return x, notes


def hierarchical_comparison(
    algorithms: tuple[str, ...],
    order: Sequence[int],
    fold_scores: np.ndarray | None,
    *,
    rope: float,
    seed: int,
    alpha: float = 0.05,
) -> HierarchicalComparison | NotApplicable:
    """The leader (``order[0]``) against the next :data:`MAX_VERSUS` algorithms."""
    if fold_scores is None:
        return NotApplicable("the results have no folds")
    if len(order) < 2:
        return NotApplicable("the hierarchical model needs two algorithms")
    leader = order[0]
    versus = []
    notes: list[str] = []
    power: FoldsPower | NotApplicable = NotApplicable(
        f"fewer than two datasets with two folds of {algorithms[leader]} and {algorithms[order[1]]}"
    )
    for j in order[1 : 1 + MAX_VERSUS]:
        x, pair_notes = pair_folds(fold_scores, leader, j)
        notes += [f"{algorithms[j]}: {note}" for note in pair_notes]
        if x is None:
            continue
        posterior = hierarchical_posterior(x, rng=seed)
        winners = posterior_winners(posterior, rope)
        a, eq, b = (float(v) for v in np.bincount(winners, minlength=3) / winners.size)
        versus.append(
            HierarchicalVersus(
                algorithms[j], a, eq, b, x.shape[0], x.shape[1], monte_carlo_error(winners)
            )
        )
        if j == order[1]:
            power = _fitted_folds_power(
                posterior, x, algorithms[leader], algorithms[j], alpha=alpha, seed=seed
            )
    if not versus:
        return NotApplicable("no pair has two datasets with two folds of both")
    if len(order) > 1 + MAX_VERSUS:
        notes.append(f"the leader against the next {MAX_VERSUS} algorithms only")
    return HierarchicalComparison(
        leader=algorithms[leader],
        versus=tuple(versus),
        n_draws=N_CHAINS * N_KEEP,
        seed=int(seed),
        notes=tuple(notes),
        folds_power=power,
    )


def _fitted_folds_power(
    posterior: HierarchicalPosterior,
    x: np.ndarray,
    first: str,
    second: str,
    *,
    alpha: float,
    seed: int,
) -> FoldsPower:
    # In the sampler's units (power does not depend on the scale): fold scores near the
    # float limits would overflow in metric units. The medians of the first
    # FOLDS_POWER_KEEP kept steps (the same draws whichever n_keep the sampler ran).
    scale = posterior.scale
    first_draws = FOLDS_POWER_KEEP * posterior.n_chains
    return folds_power(
        x / scale,
        nu=float(np.median(posterior.nu[:first_draws])),
        delta0=float(np.median(posterior.delta0[:first_draws])) / scale,
        std0=float(np.median(posterior.std0[:first_draws])) / scale,
        first=first,
        second=second,
        alpha=alpha,
        seed=seed,
    )


def pair_folds_power(
    algorithms: Sequence[str],
    first: int,
    second: int,
    fold_scores: np.ndarray | None,
    *,
    alpha: float,
    seed: int,
) -> FoldsPower | NotApplicable:
    """How many more folds would separate ``first`` from ``second`` (the advisor's #1 and
    #2), from the hierarchical model fitted to their fold differences; no ROPE needed.
    With the seed of :func:`hierarchical_comparison` and the same pair, the same numbers
    as its ``folds_power``."""
    if fold_scores is None:
        return NotApplicable("the results have no folds")
    x, _ = pair_folds(fold_scores, first, second)
    if x is None:
        return NotApplicable(
            f"fewer than two datasets with two folds of {algorithms[first]} and "
            f"{algorithms[second]}"
        )
    # the first FOLDS_POWER_KEEP kept steps of the chains of hierarchical_comparison
    posterior = hierarchical_posterior(x, rng=seed, n_keep=FOLDS_POWER_KEEP)
    return _fitted_folds_power(
        posterior, x, algorithms[first], algorithms[second], alpha=alpha, seed=seed
    )
