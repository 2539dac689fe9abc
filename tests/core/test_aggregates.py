"""Borda, Plackett-Luce and pairwise wins (METHODS 3) against choix and hand computations."""

import json

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.stats import rankdata

from estimation.core.aggregates import (
    borda_probabilities,
    mean_rank,
    pairwise_win_matrix,
    plackett_luce,
    plackett_luce_probabilities,
)


def _pl_rankings(n, m, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, spread, m)
    return rankdata(-(rng.gumbel(size=(n, m)) + theta), axis=1)


def _top_k(ranks, k):
    """Keep the top k positions; the rest tie at the mean of the unknown positions."""
    m = ranks.shape[1]
    unknown_mean = (k + 1 + m) / 2
    return np.where(ranks <= k, ranks, unknown_mean)


def _choix_probabilities(log_worths):
    worths = np.exp(log_worths - log_worths.max())
    return worths / worths.sum()


# ---------------------------------------------------------------------------- Borda


def test_borda_hand_computation_with_ties():
    ranks = np.array([[1, 2, 3], [1.5, 1.5, 3]])
    # points m - rank: (2, 1, 0) and (1.5, 1.5, 0); total 6
    np.testing.assert_allclose(borda_probabilities(ranks), [3.5 / 6, 2.5 / 6, 0.0], atol=1e-15)
    np.testing.assert_allclose(mean_rank(ranks), [1.25, 1.75, 3.0], atol=1e-15)


def test_borda_integer_weights_equal_repeated_datasets():
    ranks = _pl_rankings(12, 5, seed=1)
    counts = np.random.default_rng(2).multinomial(12, np.full(12, 1 / 12))
    repeated = np.repeat(ranks, counts, axis=0)
    np.testing.assert_allclose(
        borda_probabilities(ranks, dataset_weights=counts),
        borda_probabilities(repeated),
        rtol=1e-12,
    )
    batch = borda_probabilities(ranks, dataset_weights=np.stack([counts, np.ones(12)]))
    assert batch.shape == (2, 5)
    np.testing.assert_allclose(batch[1], borda_probabilities(ranks), rtol=1e-12)


def test_borda_single_algorithm_and_invalid_input():
    np.testing.assert_array_equal(borda_probabilities(np.ones((3, 1))), [1.0])
    with pytest.raises(ValueError, match="ranks must be finite"):
        borda_probabilities(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="dataset_weights"):
        borda_probabilities(np.array([[1.0, 2.0]]), dataset_weights=[-1.0])


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 8), st.integers(2, 7), st.integers(0, 10_000))
def test_borda_sums_to_one_and_orders_like_mean_rank(n, m, seed):
    scores = np.round(np.random.default_rng(seed).normal(size=(n, m)), 1)
    ranks = rankdata(-scores, axis=1)
    probabilities = borda_probabilities(ranks)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    # p = (m - mean rank) / ((m - 1) / 2) / m: an exact affine map of the mean rank.
    np.testing.assert_allclose(
        probabilities, (m - mean_rank(ranks)) * 2 / (m * (m - 1)), atol=1e-12
    )


# ---------------------------------------------------------------------------- pairwise wins


def test_pairwise_win_matrix_ties_and_missing():
    ranks = np.array([[1, 2, 3], [2, 1, np.nan], [1.5, 1.5, 3]])
    wins = pairwise_win_matrix(ranks)
    # a vs b: wins, loses, ties -> 1.5 / 3; a vs c: two common datasets, both won.
    assert wins[0, 1] == pytest.approx(0.5)
    assert wins[0, 2] == pytest.approx(1.0)
    assert wins[2, 0] == pytest.approx(0.0)
    np.testing.assert_allclose(wins + wins.T, np.ones((3, 3)), atol=1e-15)
    no_common = pairwise_win_matrix(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    assert np.isnan(no_common[0, 1])


# ---------------------------------------------------------------------------- Plackett-Luce


def test_plackett_luce_matches_choix_on_full_rankings():
    ranks = _pl_rankings(60, 6, seed=3)
    orders = [tuple(int(i) for i in np.argsort(row)) for row in ranks]
    reference = _choix_probabilities(
        choix.ilsr_rankings(6, orders, alpha=0.0, tol=1e-12, max_iter=1000)
    )
    result = plackett_luce(ranks, prior_strength=1e-10, tol=1e-12)
    assert result.converged
    # Vanishing prior: only the prior (1e-10 relative) and the stopping rules differ.
    np.testing.assert_allclose(result.worths, reference, rtol=1e-7)
    # The default (weak) prior moves the worths by a few percent at most here.
    default = plackett_luce_probabilities(ranks)
    np.testing.assert_allclose(default, reference, rtol=0.05)


def test_plackett_luce_matches_choix_on_top_k_rankings():
    full = _pl_rankings(80, 7, seed=4)
    k = 3
    ranks = _top_k(full, k)
    # A top-3 ranking is three successive top-1 choices from the remaining items.
    choices = []
    for row in full:
        order = [int(i) for i in np.argsort(row)]
        for stage in range(k):
            choices.append((order[stage], tuple(order[stage + 1 :])))
    reference = _choix_probabilities(
        choix.ilsr_top1(7, choices, alpha=0.0, tol=1e-12, max_iter=1000)
    )
    result = plackett_luce(ranks, known_positions=k, prior_strength=1e-10, tol=1e-12)
    np.testing.assert_allclose(result.worths, reference, rtol=1e-6)
    # Without known_positions the tied tail would be a Breslow stage: a different model.
    assert not np.allclose(
        plackett_luce_probabilities(ranks, prior_strength=1e-10), reference, rtol=1e-3
    )


def _breslow_objective(log_worths, ranks, prior_strength):
    """Independent scalar implementation of the Breslow PL log posterior (negated)."""
    worths = np.exp(log_worths)
    total = prior_strength * (log_worths - worths).sum()
    for row in ranks:
        remaining = np.ones(row.size, dtype=bool)
        for value in np.unique(row):
            group = row == value
            if remaining.sum() > 1:
                total += log_worths[group].sum() - group.sum() * np.log(worths[remaining].sum())
            remaining &= ~group
    return -total


def test_plackett_luce_breslow_ties_against_direct_optimisation():
    scores = np.round(np.random.default_rng(5).normal(size=(25, 5)) + np.arange(5) * 0.3, 0)
    ranks = rankdata(-scores, axis=1)
    assert (ranks != np.round(ranks)).any(), "the case must contain ties"
    strength = 0.5
    result = plackett_luce(ranks, prior_strength=strength, tol=1e-12)
    direct = minimize(
        _breslow_objective, np.zeros(5), args=(ranks, strength), method="BFGS", tol=1e-12
    )
    expected = np.exp(direct.x) / np.exp(direct.x).sum()
    np.testing.assert_allclose(result.worths, expected, rtol=1e-5)
    assert result.log_posterior == pytest.approx(-direct.fun, abs=1e-7)


def test_never_winning_algorithm_gets_finite_positive_worth():
    ranks = np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]], dtype=float)
    result = plackett_luce(ranks)
    assert result.converged
    assert 0 < result.worths[3] < result.worths[2]
    assert json.dumps(result.to_dict(), allow_nan=False)


def test_batched_fit_equals_single_fits():
    ranks = _pl_rankings(30, 5, seed=6)
    weights = np.random.default_rng(7).multinomial(30, np.full(30, 1 / 30), size=6).astype(float)
    weights[0] = (np.arange(30) % 3 != 0).astype(float)  # a training mask
    batch = plackett_luce_probabilities(ranks, dataset_weights=weights, tol=1e-11)
    for row, weight in zip(batch, weights, strict=True):
        single = plackett_luce(ranks, dataset_weights=weight, tol=1e-11).worths
        np.testing.assert_allclose(row, single, rtol=1e-8)
    # Integer weights are repeated datasets.
    repeated = np.repeat(ranks, weights[1].astype(int), axis=0)
    np.testing.assert_allclose(
        batch[1], plackett_luce_probabilities(repeated, tol=1e-11), rtol=1e-8
    )


@pytest.mark.parametrize("ties, known", [(False, None), (True, None), (True, 3), (False, 2)])
def test_one_row_at_a_time_fits_are_the_batched_fits_to_the_bit(monkeypatch, ties, known):
    """Large tables fit one weight row at a time without its weight-0 datasets;
    with whole-number weights (bootstrap counts, training masks: what the analysis
    passes) the worths are those of the batched iterations to the bit. Fractional
    weights' stage wins come from BLAS products of different shapes, as they always
    did, so there the two agree to rounding."""
    from estimation.core import aggregates

    rng = np.random.default_rng(11)
    ranks = _pl_rankings(40, 9, seed=12)
    if ties:
        ranks = rankdata(np.round(-ranks / 3), axis=1)
    if known is not None:
        ranks = _top_k(ranks, known)
    weights = rng.multinomial(40, np.full(40, 1 / 40), size=5).astype(float)
    weights[0] = (np.arange(40) % 4 != 0).astype(float)  # a training mask
    fractional = weights * rng.uniform(0.5, 2.0, weights.shape)  # not whole numbers
    for w in (weights, fractional):
        for tol in (1e-5, 1e-8):
            batched = plackett_luce_probabilities(
                ranks, known_positions=known, dataset_weights=w, tol=tol
            )
            with monkeypatch.context() as patch:
                patch.setattr(aggregates, "_PL_CHUNK_ELEMENTS", 1)  # capacity 1
                one_by_one = plackett_luce_probabilities(
                    ranks, known_positions=known, dataset_weights=w, tol=tol
                )
            if w is weights:
                np.testing.assert_array_equal(one_by_one, batched)
            else:
                np.testing.assert_allclose(one_by_one, batched, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.integers(2, 6), st.integers(0, 10_000), st.booleans())
def test_plackett_luce_properties(n, m, seed, top_two):
    rng = np.random.default_rng(seed)
    ranks = rankdata(-np.round(rng.normal(size=(n, m)), 1), axis=1)
    known = 2 if top_two and m > 3 else None
    if known:
        ranks = _top_k(rankdata(-rng.normal(size=(n, m)), axis=1), known)
    probabilities = plackett_luce_probabilities(ranks, known_positions=known, tol=1e-11)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    assert (probabilities > 0).all()
    permutation = rng.permutation(m)
    relabelled = plackett_luce_probabilities(
        ranks[:, permutation], known_positions=known, tol=1e-11
    )
    np.testing.assert_allclose(relabelled, probabilities[permutation], rtol=1e-7)
    weights = rng.integers(0, 3, size=(3, n)).astype(float)
    weights[:, 0] += 1
    batch = plackett_luce_probabilities(
        ranks, known_positions=known, dataset_weights=weights, tol=1e-11
    )
    for row, weight in zip(batch, weights, strict=True):
        single = plackett_luce_probabilities(
            ranks, known_positions=known, dataset_weights=weight, tol=1e-11
        )
        np.testing.assert_allclose(row, single, rtol=1e-7)


def test_plackett_luce_validation():
    ranks = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="prior_strength"):
        plackett_luce(ranks, prior_strength=0)
    with pytest.raises(ValueError, match="known_positions"):
        plackett_luce(ranks, known_positions=0)
    with pytest.raises(ValueError, match=r"shape \(n,\)"):
        plackett_luce(ranks, dataset_weights=np.ones((2, 2)))


def _plain_mm(ranks, weights, prior_strength, steps):
    """Hunter's MM for complete tie-free rankings, written out: the fixed point the
    accelerated fit must reach."""
    m = ranks.shape[1]
    order = np.argsort(ranks, axis=1)
    wins = weights @ (ranks < m).astype(float) + prior_strength
    gamma = np.ones(m)
    for _ in range(steps):
        in_order = gamma[order]
        totals = np.cumsum(in_order[:, ::-1], axis=1)[:, ::-1][:, :-1]  # stages 0..m-2
        terms = np.cumsum(weights[:, None] / totals, axis=1)  # stages an algorithm is in
        denominators = np.zeros(m)
        np.add.at(denominators, order[:, :-1], terms)
        np.add.at(denominators, order[:, -1], terms[:, -1])
        gamma = wins / (denominators + prior_strength)
        gamma *= m / gamma.sum()
    return gamma / gamma.sum()


def test_refits_reach_the_mm_fixed_point_in_few_mm_steps():
    """Few rankings of many algorithms: plain MM crawls towards its fixed point (about
    50 steps a refit at tolerance 1e-5, and still 1e-4 away). The accelerated fit
    reaches the same fixed point, to its tolerance, in well under half the MM steps."""
    from estimation.core.aggregates import _fit_batch

    ranks = _pl_rankings(6, 400, seed=5, spread=0.3)
    weights = np.random.default_rng(6).multinomial(6, np.full(6, 1 / 6), size=4).astype(float)
    gamma, iterations, converged, *_ = _fit_batch(ranks, None, weights, 0.1, 1e-5, 10_000)
    assert converged.all()
    fitted = gamma / gamma.sum(axis=1, keepdims=True)
    for row, weight in zip(fitted, weights, strict=True):
        reference = _plain_mm(ranks, weight, 0.1, steps=2000)
        np.testing.assert_allclose(row, reference, rtol=1e-3)
    assert iterations.max() <= 25  # plain MM: 21 to 48 steps on these rows
