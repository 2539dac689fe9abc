"""The hierarchical model's Gibbs sampler against an independent reference.

Stan (baycomp's backend) is not installed here, so the reference is a random-walk
Metropolis sampler written below from the Stan file's joint density itself (no data
augmentation, no conjugate step shared with the module), run long over many chains.
Both are exact in the limit; the tolerance 0.05 on each probability covers the two
Monte-Carlo errors (the module's draws are autocorrelated, about 0.02 each here).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from estimation.core.contract import FoldsPower, HierarchicalComparison, NotApplicable
from estimation.core.hierarchical import (
    ALPHA_BOUNDS,
    BETA_BOUNDS,
    MAX_CELLS,
    MAX_VERSUS,
    UPPER_SIGMA,
    hierarchical_comparison,
    hierarchical_posterior,
    hierarchical_probabilities,
    pair_folds,
    posterior_probabilities,
)
from estimation.core.hierarchical_power import folds_power

PROBABILITY_TOLERANCE = 0.05


def _log_joint(theta, x, bounds):
    """The Stan model's log density (up to a constant), one row of ``theta`` per chain."""
    n, k = x.shape
    rho = 1.0 / k
    delta = theta[:, :n]
    log_sigma = theta[:, n : 2 * n]
    delta0, log_std0, log_eta, alpha, beta = theta[:, 2 * n :].T
    sigma, std0, eta = np.exp(log_sigma), np.exp(log_std0), np.exp(log_eta)
    inside = (
        (np.abs(delta0) < bounds["max_diff"])
        & (std0 < bounds["std0_hi"])
        & (sigma < bounds["sigma_hi"]).all(axis=1)
        & (alpha > ALPHA_BOUNDS[0])
        & (alpha < ALPHA_BOUNDS[1])
        & (beta > BETA_BOUNDS[0])
        & (beta < BETA_BOUNDS[1])
    )
    r = x[None, :, :] - delta[:, :, None]
    c = rho / (1 + (k - 1) * rho)
    quad = ((r**2).sum(axis=2) - c * r.sum(axis=2) ** 2) / (1 - rho)
    loglik = (-k * log_sigma - 0.5 * quad / sigma**2).sum(axis=1)
    prior_delta = stats.t.logpdf(delta, (eta + 1)[:, None], delta0[:, None], std0[:, None]).sum(
        axis=1
    )
    prior_eta = (
        alpha * np.log(np.clip(beta, BETA_BOUNDS[0], None))
        - special.gammaln(alpha)
        + (alpha - 1) * log_eta
        - beta * eta
    )
    # Jacobians of the log transforms (sigma, std0 and eta uniform / gamma on their scale).
    jac = log_sigma.sum(axis=1) + log_std0 + log_eta
    out = loglik + prior_delta + prior_eta + jac
    return np.where(inside, out, -np.inf)


def _reference(x, rope, *, chains=300, burn=3000, keep=3000, seed=7):
    rng = np.random.default_rng(seed)
    n = x.shape[0]
    scale = np.mean(np.std(x, axis=1))
    x = x / scale
    rope = rope / scale
    bounds = {
        "max_diff": np.abs(x).max(),
        "sigma_hi": UPPER_SIGMA * np.mean(np.std(x, axis=1)),
        "std0_hi": UPPER_SIGMA * np.std(x.mean(axis=1)),
    }
    start = np.concatenate(
        [
            x.mean(axis=1),
            np.log(np.std(x, axis=1)),
            [x.mean(), np.log(np.std(x.mean(axis=1))), 2.0, 1.5, 0.05],
        ]
    )
    theta = start + 0.01 * rng.standard_normal((chains, start.size))
    theta[:, -2] = rng.uniform(*ALPHA_BOUNDS, chains)
    theta[:, -1] = rng.uniform(*BETA_BOUNDS, chains)
    logp = _log_joint(theta, x, bounds)
    step = np.full(start.size, 0.05)
    draws = []
    for i in range(burn + keep):
        if i < burn and i % 100 == 99:
            step = 2.38 / np.sqrt(start.size) * theta.std(axis=0)
        proposal = theta + step * rng.standard_normal(theta.shape)
        logq = _log_joint(proposal, x, bounds)
        accept = np.log(rng.uniform(size=chains)) < logq - logp
        theta[accept], logp[accept] = proposal[accept], logq[accept]
        if i >= burn:
            draws.append(theta[:, 2 * n : 2 * n + 3].copy())
    d = np.concatenate(draws)
    dist = stats.t(np.exp(d[:, 2]) + 1, d[:, 0], np.exp(d[:, 1]))
    masses = np.stack([dist.sf(rope), dist.cdf(rope) - dist.cdf(-rope), dist.cdf(-rope)])
    return np.bincount(np.argmax(masses, axis=0), minlength=3) / masses.shape[1]


def _folds(mean, among, within, n, k, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(mean, among, size=(n, 1)) + rng.normal(0, within, size=(n, k))


@pytest.mark.parametrize("mean", [0.012, 0.006])
def test_matches_an_independent_metropolis_reference(mean):
    x = _folds(mean, 0.01, 0.02, 6, 5, seed=3)
    expected = _reference(x, 0.01)
    got = hierarchical_probabilities(x, rope=0.01, rng=11, n_chains=16, n_keep=1000)
    observed = np.array([got.a_better, got.equivalent, got.b_better])
    assert np.abs(observed - expected).max() < PROBABILITY_TOLERANCE, (observed, expected)


def test_seeded_and_symmetric():
    x = _folds(0.01, 0.01, 0.02, 8, 10, seed=5)
    first = hierarchical_probabilities(x, rope=0.01, rng=4)
    assert first == hierarchical_probabilities(x, rope=0.01, rng=4)
    # Swapping A and B swaps the two outer probabilities (same seed, mirrored draws are
    # not identical, so within the Monte-Carlo tolerance).
    swapped = hierarchical_probabilities(-x, rope=0.01, rng=4)
    assert abs(swapped.b_better - first.a_better) < PROBABILITY_TOLERANCE
    assert abs(swapped.equivalent - first.equivalent) < PROBABILITY_TOLERANCE


def test_clear_cases():
    better = hierarchical_probabilities(_folds(0.05, 0.005, 0.01, 10, 10, 1), rope=0.01, rng=1)
    assert better.a_better > 0.95
    same = hierarchical_probabilities(_folds(0.0, 0.001, 0.01, 10, 10, 2), rope=0.02, rng=1)
    assert same.equivalent > 0.95


def test_constant_folds_do_not_break_the_sampler():
    x = np.tile(np.linspace(0.01, 0.02, 6)[:, None], (1, 5))
    p = hierarchical_probabilities(x, rope=0.001, rng=3)
    assert p.a_better > 0.95


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros(10),
        np.zeros((1, 10)),
        np.zeros((10, 1)),
        np.full((3, 3), np.nan),
        np.full((3, 3), np.inf),
        np.zeros((MAX_CELLS // 10 + 1, 10)),
    ],
)
def test_hostile_inputs_are_refused(bad):
    with pytest.raises(ValueError):
        hierarchical_posterior(bad, rng=0)


@pytest.mark.parametrize("rope", [-0.1, float("nan"), float("inf")])
def test_hostile_rope_is_refused(rope):
    posterior = hierarchical_posterior(_folds(0.0, 0.01, 0.01, 3, 3, 0), rng=0, n_keep=10)
    with pytest.raises(ValueError):
        posterior_probabilities(posterior, rope)


def test_pair_folds_keeps_the_common_folds_of_each_dataset():
    folds = np.arange(4 * 5 * 2, dtype=float).reshape(4, 5, 2)
    folds[0, 4, 0] = np.nan  # dataset 0: four folds of both
    folds[1, :4, 1] = np.nan  # dataset 1: one fold of both, left out
    x, notes = pair_folds(folds, 0, 1)
    assert x is not None and x.shape == (3, 4) and notes == []
    np.testing.assert_array_equal(x, -np.ones((3, 4)))


def test_pair_folds_caps_the_cells():
    folds = np.zeros((MAX_CELLS // 10 + 5, 10, 2))
    x, notes = pair_folds(folds, 0, 1)
    assert x is not None and x.size <= MAX_CELLS
    assert notes == ["5 datasets left out to bound the cost"]


def test_comparison_bounds_the_pairs_and_says_what_does_not_apply():
    rng = np.random.default_rng(0)
    folds = rng.normal(0.0, 0.02, size=(6, 5, 6)) + np.linspace(0.05, 0, 6)
    names = tuple(f"a{i}" for i in range(6))
    result = hierarchical_comparison(names, list(range(6)), folds, rope=0.01, seed=1)
    assert isinstance(result, HierarchicalComparison)
    assert [v.algorithm for v in result.versus] == ["a1", "a2", "a3"][:MAX_VERSUS]
    assert result.notes == (f"the leader against the next {MAX_VERSUS} algorithms only",)
    for v in result.versus:
        assert abs(v.leader_better + v.equivalent + v.other_better - 1) < 1e-12
    assert isinstance(
        hierarchical_comparison(names, list(range(6)), None, rope=0.01, seed=1), NotApplicable
    )


def _power(x, delta0, std0, seed=0):
    return folds_power(
        x, nu=30.0, delta0=delta0, std0=std0, first="a", second="b", alpha=0.05, seed=seed
    )


def test_more_folds_help_when_the_noise_is_within_datasets():
    # Within-dataset noise 0.05 over 10 folds against a true difference 0.01 on 30
    # datasets: the fold means are noisy now (sd 0.022), and more repetitions bring their
    # sd towards sqrt(rho) sigma = 0.016, enough for 80 % power.
    x = np.random.default_rng(1).normal(0.0, 0.05, size=(30, 10))
    result = _power(x, delta0=0.01, std0=0.001)
    assert result.power_at_current < 0.8
    assert result.folds_needed is not None and result.folds_needed > 10
    assert result == _power(x, delta0=0.01, std0=0.001)  # seeded
    assert "folds per dataset (now 10)" in result.sentence


def test_more_folds_do_not_help_when_datasets_disagree():
    x = np.random.default_rng(2).normal(0.0, 0.01, size=(10, 10))
    result = _power(x, delta0=0.001, std0=0.05)
    assert result.folds_needed is None
    assert "the spread across datasets dominates" in result.sentence


def test_the_payload_carries_the_folds_power_of_one_and_two():
    rng = np.random.default_rng(0)
    folds = rng.normal(0.0, 0.02, size=(6, 5, 3)) + np.array([0.02, 0.0, -0.02])
    names = ("a0", "a1", "a2")
    result = hierarchical_comparison(names, [0, 1, 2], folds, rope=0.01, seed=1)
    assert isinstance(result, HierarchicalComparison)
    assert isinstance(result.folds_power, FoldsPower)
    assert (result.folds_power.first, result.folds_power.second) == ("a0", "a1")
    assert (result.folds_power.n_datasets, result.folds_power.n_folds) == (6, 5)


def test_a_truncated_gamma_draw_follows_the_truncated_law():
    """Plain gamma draws with the ones at or below the bound redrawn by inversion: the
    truncated law exactly (Kolmogorov-Smirnov against scipy, both branches exercised)."""
    from estimation.core.hierarchical import _gamma_above

    rng = np.random.default_rng(4)
    for shape, lower in ((0.5, 0.3), (4.5, 1e-6), (2.0, 3.0)):
        rate = np.full(20_000, 1.5)
        draws = _gamma_above(rng, shape, rate, lower)
        assert draws.min() > lower
        law = stats.gamma(shape, scale=1 / 1.5)
        below = law.cdf(lower)

        def truncated_cdf(v, law=law, below=below):
            return (law.cdf(v) - below) / (1 - below)

        assert stats.kstest(draws, truncated_cdf).pvalue > 0.01, (shape, lower)


def test_the_stated_monte_carlo_error_matches_the_spread_across_seeds():
    """mc_se (batch means) is what the golden tolerance and the pages rely on: on the
    simulated demo's hardest pair (two outlying datasets) it agrees with the spread of
    the probabilities over independent runs within a factor of 2.5 (8 runs: the spread's
    own relative error is about 0.27)."""
    from estimation.core.hierarchical import posterior_winners
    from tests.core.demo_tables import simulated_table

    table = simulated_table()
    names = table.algorithms
    x, _ = pair_folds(table.fold_values, names.index("new"), names.index("old"))
    runs = [hierarchical_probabilities(x, rope=0.01, rng=seed) for seed in range(8)]
    spread = np.std([r.equivalent for r in runs], ddof=1)
    stated = np.mean([r.mc_se for r in runs])
    assert stated / 2.5 < spread < stated * 2.5, (spread, stated)
    assert posterior_winners(hierarchical_posterior(x, rng=0), 0.01).size == runs[0].n_draws


def test_the_advisor_carries_the_folds_power_with_or_without_a_rope():
    from dataclasses import replace

    from estimation.core.analysis import analyze
    from tests.core.demo_tables import SETTINGS, demo_analysis, simulated_table

    with_rope = demo_analysis("simulated").payload
    assert isinstance(with_rope.advisor.folds_power, FoldsPower)
    # the same pair and seed as the practical section's: the same figure
    assert with_rope.advisor.folds_power == with_rope.practical.hierarchical.folds_power
    without = analyze(simulated_table(), replace(SETTINGS, bootstrap=0)).payload
    assert isinstance(without.practical, NotApplicable)
    assert without.advisor.folds_power == with_rope.advisor.folds_power
    assert isinstance(demo_analysis("demsar").payload.advisor.folds_power, NotApplicable)


def test_the_deferred_advisor_takes_the_served_folds_power_without_sampling(monkeypatch):
    """analyze_advisor given the served practical section (as the worker passes it) is
    the advisor of one analyze call, bit for bit, and runs no sampler of its own."""
    from dataclasses import replace

    from estimation.core import hierarchical
    from estimation.core.analysis import analyze, analyze_advisor
    from estimation.core.contract import to_json
    from tests.core.demo_tables import DEMO_SETTINGS, simulated_table

    table, settings = simulated_table(), replace(DEMO_SETTINGS["simulated"], bootstrap=0)
    served = analyze(table, settings, advisor=False, uncertainty=False).payload
    whole = analyze(table, settings).payload
    runs = []
    real = hierarchical.hierarchical_posterior

    def counted(*args, **kwargs):
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(hierarchical, "hierarchical_posterior", counted)
    alone = analyze_advisor(table, settings, practical=served.practical)
    assert runs == []
    assert to_json(alone) == to_json(whole.advisor)
    # without it the advisor samples the same figure itself
    assert to_json(analyze_advisor(table, settings)) == to_json(whole.advisor) and runs
