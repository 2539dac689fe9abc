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
truncated gamma, each drawn by inverting its CDF); ``nu`` takes a random-walk
Metropolis step on ``log(nu - 1)`` and ``alpha`` a draw from its conditional on a fine
grid (:data:`_ALPHA_GRID` points over [1, 2]: the one approximation of a conditional).
Compound symmetry makes the likelihood of ``delta_i`` depend only on the fold mean
(variance ``sigma_i^2 (1 + (K - 1) rho) / K``) and the quadratic form closed-form.

What is approximated: the Monte-Carlo error of the probabilities, from
:data:`N_CHAINS` chains x :data:`N_KEEP` kept draws after :data:`N_BURN` warm-up steps
(chains start apart and run vectorised side by side); the draws are autocorrelated, so
the standard error exceeds ``0.5 / sqrt(N_CHAINS * N_KEEP)`` = 0.008; the tests bound
it against an independent long reference run at 0.05. A dataset whose folds all agree
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
    "pair_folds",
]

N_CHAINS = 8
N_BURN = 300
N_KEEP = 500
MAX_CELLS = 20_000
"""Largest datasets x folds of one pair (e.g. 200 datasets x 100 folds)."""

MAX_VERSUS = 3
"""The leader is compared with this many next algorithms in the payload (about 0.3 s of
CPU each at 10 x 10, 0.8 s at 100 x 10)."""

UPPER_SIGMA = 1000.0
ALPHA_BOUNDS = (1.0, 2.0)
BETA_BOUNDS = (0.01, 0.1)
_ALPHA_GRID = 64
_NU_STEP = 0.6
_Q_FLOOR = 1e-6


@dataclass(frozen=True)
class HierarchicalPosterior:
    """Draws of the hyper-parameters (scaled back to metric units) of one pair."""

    delta0: np.ndarray
    std0: np.ndarray
    nu: np.ndarray
    scale: float
    n_datasets: int
    n_folds: int


@dataclass(frozen=True)
class HierarchicalPair:
    """P(A practically better), P(equivalent), P(B practically better) on a new dataset."""

    a_better: float
    equivalent: float
    b_better: float
    n_datasets: int
    n_folds: int


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
    """Gamma(shape, rate) truncated to (lower, inf), by the inverse upper CDF."""
    tail = special.gammaincc(shape, rate * lower)
    v = rng.uniform(size=np.shape(rate)) * tail
    v = np.clip(v, np.finfo(float).tiny, None)
    return special.gammainccinv(shape, v) / rate


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


def _log_nu_target(eta, lam_log_sum, lam_sum, n, alpha, beta):
    """log p(eta = nu - 1 | lambda, alpha, beta) + log eta (the Jacobian of log eta)."""
    half = (eta + 1.0) / 2.0
    return (
        alpha * np.log(eta)
        - beta * eta
        + n * (half * np.log(half) - special.gammaln(half))
        + (half - 1.0) * lam_log_sum
        - half * lam_sum
    )


def hierarchical_posterior(
    differences: Any,
    *,
    rng: int | np.random.Generator,
    n_chains: int = N_CHAINS,
    n_burn: int = N_BURN,
    n_keep: int = N_KEEP,
) -> HierarchicalPosterior:
    """Gibbs draws of ``(delta0, std0, nu)`` from fold differences ``(n, K)``, A - B."""
    x = _check(differences)
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    n, k = x.shape
    within = float(np.mean(np.std(x, axis=1)))
    scale = within if within > 0 else max(float(np.abs(x).max()), 1.0)
    x = x / scale
    rho = 1.0 / k
    std_within = float(np.mean(np.std(x, axis=1)))
    std_among = float(np.std(x.mean(axis=1)))
    max_diff = max(float(np.abs(x).max()), 1e-12)
    sigma_hi = UPPER_SIGMA * max(std_within, 1e-12)
    std0_hi = UPPER_SIGMA * max(std_among, std_within, 1e-12)

    fold_mean = x.mean(axis=1)
    # Quadratic form of R^-1 about delta: (S2 - 2 delta S1 + K delta^2 - c (S1 - K delta)^2)
    # / (1 - rho), c = rho / (1 + (K - 1) rho); S1, S2 the sum and the sum of squares.
    s1 = x.sum(axis=1)
    s2 = (x * x).sum(axis=1)
    c = rho / (1.0 + (k - 1) * rho)
    mean_var_factor = (1.0 + (k - 1) * rho) / k

    c_ = int(n_chains)
    spread = generator.uniform(-0.5, 0.5, size=c_)
    delta0 = np.clip(fold_mean.mean() + spread * max(std_among, 0.1), -max_diff, max_diff)
    std0 = np.full(c_, max(std_among, 0.1)) * generator.uniform(0.5, 2.0, size=c_)
    eta = generator.uniform(1.0, 30.0, size=c_)
    alpha = generator.uniform(*ALPHA_BOUNDS, size=c_)
    beta = generator.uniform(*BETA_BOUNDS, size=c_)
    delta = np.tile(fold_mean, (c_, 1))
    sigma2 = np.tile(np.maximum(np.var(x, axis=1), _Q_FLOOR), (c_, 1))
    grid = np.linspace(*ALPHA_BOUNDS, _ALPHA_GRID)
    grid_step = grid[1] - grid[0]

    total = int(n_burn) + int(n_keep)
    kept = np.empty((3, int(n_keep), c_))
    for step in range(total):
        nu = eta + 1.0
        resid2 = (delta - delta0[:, None]) ** 2
        lam = generator.gamma((nu[:, None] + 1.0) / 2.0, size=(c_, n)) / (
            (nu[:, None] + resid2 / std0[:, None] ** 2) / 2.0
        )
        prior_prec = lam / std0[:, None] ** 2
        like_prec = 1.0 / (sigma2 * mean_var_factor)
        post_var = 1.0 / (prior_prec + like_prec)
        post_mean = post_var * (prior_prec * delta0[:, None] + like_prec * fold_mean)
        delta = post_mean + np.sqrt(post_var) * generator.standard_normal((c_, n))

        quad = (s2 - 2 * delta * s1 + k * delta**2 - c * (s1 - k * delta) ** 2) / (1.0 - rho)
        quad = np.maximum(quad, _Q_FLOOR)
        precision = _gamma_above(generator, (k - 1) / 2.0, quad / 2.0, 1.0 / sigma_hi**2)
        sigma2 = 1.0 / precision

        lam_sum = lam.sum(axis=1)
        mu_mean = (lam * delta).sum(axis=1) / lam_sum
        delta0 = _normal_between(generator, mu_mean, std0 / np.sqrt(lam_sum), -max_diff, max_diff)
        spread2 = np.maximum((lam * (delta - delta0[:, None]) ** 2).sum(axis=1), 1e-300)
        std0 = 1.0 / np.sqrt(
            _gamma_above(generator, (n - 1) / 2.0, spread2 / 2.0, 1.0 / std0_hi**2)
        )

        log_lam = np.log(lam).sum(axis=1)
        proposal = eta * np.exp(_NU_STEP * generator.standard_normal(c_))
        log_ratio = _log_nu_target(proposal, log_lam, lam_sum, n, alpha, beta) - _log_nu_target(
            eta, log_lam, lam_sum, n, alpha, beta
        )
        eta = np.where(np.log(generator.uniform(size=c_)) < log_ratio, proposal, eta)

        log_alpha = (
            grid[None, :] * np.log(beta)[:, None]
            + (grid[None, :] - 1.0) * np.log(eta)[:, None]
            - special.gammaln(grid)[None, :]
        )
        pick = np.argmax(log_alpha + generator.gumbel(size=log_alpha.shape), axis=1)
        alpha = np.clip(
            grid[pick] + grid_step * generator.uniform(-0.5, 0.5, size=c_), *ALPHA_BOUNDS
        )
        beta = _gamma_between(generator, alpha + 1.0, eta, *BETA_BOUNDS)

        if step >= n_burn:
            kept[:, step - n_burn] = (delta0, std0, eta + 1.0)
    return HierarchicalPosterior(
        delta0=kept[0].ravel() * scale,
        std0=kept[1].ravel() * scale,
        nu=kept[2].ravel(),
        scale=scale,
        n_datasets=n,
        n_folds=k,
    )


def posterior_probabilities(posterior: HierarchicalPosterior, rope: float):
    """The three shares of draws in which each predictive mass is the largest."""
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
    winners = np.bincount(np.argmax(masses, axis=0), minlength=3) / masses.shape[1]
    return float(winners[0]), float(winners[1]), float(winners[2])


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
    a, eq, b = posterior_probabilities(posterior, rope)
    return HierarchicalPair(
        a_better=a,
        equivalent=eq,
        b_better=b,
        n_datasets=posterior.n_datasets,
        n_folds=posterior.n_folds,
    )


def pair_folds(fold_scores: np.ndarray, a: int, b: int) -> tuple[np.ndarray | None, list[str]]:
    """The rectangular fold differences ``A - B`` of a pair, ``(datasets, folds)``.

    A dataset counts with its folds where both have a score; each keeps its first ``K``
    such folds, ``K`` the fewest among datasets with at least two; datasets beyond
    :data:`MAX_CELLS` cells are left out (a note says how many)."""
    notes: list[str] = []
    both = np.isfinite(fold_scores[:, :, a]) & np.isfinite(fold_scores[:, :, b])
    counts = both.sum(axis=1)
    used = np.flatnonzero(counts >= 2)
    if used.size < 2:
        return None, notes
    k = int(counts[used].min())
    limit = MAX_CELLS // k
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
        a, eq, b = posterior_probabilities(posterior, rope)
        versus.append(HierarchicalVersus(algorithms[j], a, eq, b, x.shape[0], x.shape[1]))
        if j == order[1]:
            power = folds_power(
                x,
                nu=float(np.median(posterior.nu)),
                delta0=float(np.median(posterior.delta0)),
                std0=float(np.median(posterior.std0)),
                first=algorithms[leader],
                second=algorithms[j],
                alpha=alpha,
                seed=seed,
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
