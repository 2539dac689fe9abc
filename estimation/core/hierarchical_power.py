"""How many more folds would separate #1 from #2 (the folds counterpart of
:mod:`estimation.core.power`), simulated from the fitted hierarchical model.

Each simulated benchmark keeps the number of datasets and draws each dataset's true
difference from the fitted ``t(nu, delta0, std0)`` (posterior medians: over the first
:data:`~estimation.core.hierarchical.FOLDS_POWER_KEEP` kept steps), then its mean over
``K'`` folds with the variance of the model, ``sigma_i^2 (1 + (K' - 1) rho) / K'`` with
``rho = 1 / K`` (more folds are more repetitions of the same K-fold design, so the
correlation stays; the variance never falls below ``rho sigma_i^2``); ``sigma_i`` is
each dataset's fold standard deviation. Wilcoxon's signed-rank test at ``alpha`` on those
means rejects or not; the power is the share of :data:`N_SIMULATIONS` benchmarks in which
it rejects. Folds are tried at ``K, 2K, 4K, ...`` up to :data:`MAX_FACTOR` ``K``: the
answer is the first that reaches the power, or None (more folds alone do not: the spread
across datasets dominates). Cost: O(N_SIMULATIONS n log n) per size tried.

Approximated: plug-in medians (the posterior's spread is not propagated) and a
Monte-Carlo error of at most 0.5 / sqrt(N_SIMULATIONS) = 0.025 on each power.
"""

from __future__ import annotations

import numpy as np

from estimation.core.contract import FoldsPower
from estimation.core.power import signed_rank_rejects

__all__ = ["MAX_FACTOR", "N_SIMULATIONS", "folds_power"]

N_SIMULATIONS = 400
MAX_FACTOR = 16
POWER = 0.8


def folds_power(
    differences: np.ndarray,
    *,
    nu: float,
    delta0: float,
    std0: float,
    first: str,
    second: str,
    alpha: float,
    seed: int,
) -> FoldsPower:
    """The power of #1 against #2 at the current folds and the folds that reach 80 %,
    from fold differences ``(n, K)`` and the fitted ``t(nu, delta0, std0)``."""
    x = np.asarray(differences, dtype=float)
    n, k = x.shape
    rng = np.random.default_rng(seed)
    rho = 1.0 / k
    sigma = np.std(x, axis=1, ddof=1)
    # The same draws at every size (common random numbers): power rises smoothly.
    truth = delta0 + std0 * rng.standard_t(nu, size=(N_SIMULATIONS, n))
    noise = rng.standard_normal((N_SIMULATIONS, n))

    def power_at(folds: int) -> float:
        sd = sigma * np.sqrt((1.0 + (folds - 1) * rho) / folds)
        return float(signed_rank_rejects(truth + noise * sd, alpha).mean())

    current = power_at(k)
    needed: int | None = None
    folds = k
    while folds <= MAX_FACTOR * k:
        if power_at(folds) >= POWER:
            needed = folds
            break
        folds *= 2
    if needed is None:
        tail = (
            f"even {MAX_FACTOR * k} folds per dataset would not reach {POWER:.0%} power: "
            "the spread across datasets dominates, more datasets are needed"
        )
    elif needed == k:
        tail = f"the present {k} folds already reach {POWER:.0%} power"
    else:
        tail = f"about {needed} folds per dataset (now {k}) would reach {POWER:.0%} power"
    sentence = (
        f"With {n} datasets, Wilcoxon's test (alpha {alpha:g}) on the fold means separates "
        f"{first} from {second} in {current:.0%} of benchmarks simulated from the "
        f"hierarchical model; {tail}."
    ).replace("%", " %")
    return FoldsPower(
        first=first,
        second=second,
        n_datasets=n,
        n_folds=k,
        alpha=float(alpha),
        power=POWER,
        power_at_current=current,
        folds_needed=needed,
        max_folds=MAX_FACTOR * k,
        n_simulations=N_SIMULATIONS,
        sentence=sentence,
    )
