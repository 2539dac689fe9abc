"""Leave-one-out Brier weights and the tie-break of non-unique LOO optima (METHODS 2.1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import rankdata

from estimation.core.rankings import tie_groups
from estimation.core.win_probability import (
    CLIP,
    _kl_derivatives,
    _lexicographic_optimum,
    fit_loo,
    fit_loo_batch,
    fit_loo_brier,
    lam_to_weights,
    win_probabilities,
)


def _loo_components(ranks: np.ndarray, K: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per dataset: its winner shares and the K top-k uniform estimates refitted on the
    other datasets, from the definition (no shortcut shared with the engine)."""
    out = []
    for i in range(ranks.shape[0]):
        rest = np.delete(ranks, i, axis=0)
        components = np.array([win_probabilities(rest, lam_to_weights(e)) for e in np.eye(K)])
        start, size = tie_groups(ranks[i : i + 1])
        out.append((np.where(start == 1, 1.0 / size, 0.0)[0], components))
    return out


def brier_by_definition(terms, lam: np.ndarray) -> np.ndarray:
    """LOO Brier of each row of ``lam`` (or of one ``lam``)."""
    lam = np.atleast_2d(lam)
    total = np.zeros(len(lam))
    for share, components in terms:
        p = lam @ components  # (L, m)
        for y in np.flatnonzero(share):
            total += share[y] * (((np.arange(p.shape[1]) == y) - p) ** 2).sum(axis=1)
    return total / len(terms)


def kl_by_definition(terms, lam: np.ndarray) -> np.ndarray:
    lam = np.atleast_2d(lam)
    total = np.zeros(len(lam))
    for share, components in terms:
        total -= (share * np.log(np.maximum(lam @ components, CLIP))).sum(axis=1)
    return total / len(terms)


def _random_ranks(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    scores = np.round(rng.normal(size=(n, m)) + rng.normal(size=m) * 2 * rng.random(), 1)
    return np.vstack([rankdata(-row) for row in scores])


def _general_qp(terms, K: int) -> float:
    """Best LOO Brier from SLSQP (several starts) on the loss by definition."""

    def loss(lam: np.ndarray) -> float:
        lam = np.clip(lam, 0.0, None)
        return float(brier_by_definition(terms, lam / lam.sum())[0])

    starts = [np.full(K, 1.0 / K), np.eye(K)[0], np.eye(K)[-1]]
    results = [
        minimize(
            loss,
            start,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * K,
            constraints=[{"type": "eq", "fun": lambda lam: lam.sum() - 1.0}],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        for start in starts
    ]
    return min(result.fun for result in results)


@pytest.mark.parametrize("seed", range(12))
def test_brier_weights_match_a_general_purpose_qp(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 20)), int(rng.integers(3, 8))
    K = int(rng.integers(2, min(m, 5) + 1))
    ranks = _random_ranks(rng, n, m)
    fit = fit_loo_brier(ranks, K=K)
    terms = _loo_components(ranks, K)
    ours = float(brier_by_definition(terms, fit.lam)[0])
    assert fit.loss == pytest.approx(ours, abs=1e-12)  # the engine's closed form
    assert ours <= _general_qp(terms, K) + 1e-10
    assert fit.loss <= fit.loss_mle + 1e-15
    np.testing.assert_allclose(fit.p.sum(), 1.0, atol=1e-12)


def test_brier_batch_leaves_out_every_copy_of_a_resampled_dataset():
    rng = np.random.default_rng(5)
    ranks = _random_ranks(rng, 9, 5)
    counts = rng.multinomial(9, np.full(9, 1 / 9), size=4).astype(float)
    batch = fit_loo_batch(ranks, counts, K=3)
    grid = _grid(3, 20)
    for b in range(4):
        # the terms of a dataset drawn c times: weight c, all c copies left out
        terms = []
        for i in np.flatnonzero(counts[b]):
            keep = counts[b].copy()
            keep[i] = 0
            rest = np.repeat(ranks, keep.astype(int), axis=0)
            components = np.array([win_probabilities(rest, lam_to_weights(e)) for e in np.eye(3)])
            start, size = tie_groups(ranks[i : i + 1])
            share = np.where(start == 1, 1.0 / size, 0.0)[0]
            terms += [(share, components)] * int(counts[b, i])
        ours = float(brier_by_definition(terms, batch.lam_brier[b])[0])
        assert batch.loss_brier[b] == pytest.approx(ours, abs=1e-12)
        assert ours <= brier_by_definition(terms, grid).min() + 1e-12


def test_improper_tv_and_proper_brier_are_both_in_the_fits():
    kl, tv, brier = fit_loo(np.array([[1.0, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3]]), K=3)
    assert (kl.method, tv.method, brier.method) == ("loo_kl", "loo_tv", "loo_brier")
    assert np.count_nonzero(tv.lam) == 1  # a vertex: TV is linear in lam


# --- non-unique optimum -------------------------------------------------------------------

# n = 2: found by searching small tables; the LOO-KL loss is flat along a segment.
FLAT = np.array([[2.5, 2.5, 1.0, 4.0], [2.0, 4.0, 2.0, 2.0]])


def _grid(K: int, steps: int = 60) -> np.ndarray:
    points = [v for v in itertools.product(range(steps + 1), repeat=K) if sum(v) == steps]
    return np.array(points, dtype=float) / steps


@pytest.mark.parametrize("loss_name", ["kl", "brier"])
def test_reported_optimum_is_the_lexicographically_largest(loss_name):
    by_definition = kl_by_definition if loss_name == "kl" else brier_by_definition
    kl, _, brier = fit_loo(FLAT, K=3)
    fit = kl if loss_name == "kl" else brier
    terms = _loo_components(FLAT, 3)
    best = float(by_definition(terms, fit.lam)[0])
    grid = _grid(3)
    losses = by_definition(terms, grid)
    assert best <= losses.min() + 1e-12
    weights = lam_to_weights(grid[losses <= best + 1e-12])
    # no optimal grid point has a larger w[1] (then w[2]) than the reported weights
    top = weights[np.lexsort((-weights[:, 1], -weights[:, 0]))[0]]
    assert fit.weights[0] > top[0] + 1e-9 or (
        fit.weights[0] == pytest.approx(top[0], abs=1e-9) and fit.weights[1] >= top[1] - 1e-9
    )


def test_kl_tie_break_does_not_depend_on_where_the_solver_stopped():
    """Equally optimal weights moved p-hat; now every optimal starting
    point reports the same (lexicographically largest) weights."""
    kl, _, _ = fit_loo(FLAT, K=3)
    terms = _loo_components(FLAT, 3)
    grid = _grid(3)
    optimal = grid[kl_by_definition(terms, grid) <= kl.loss + 1e-12]
    assert len(optimal) > 1  # the optimum is a segment here
    assert kl.weights[0] >= lam_to_weights(optimal)[:, 0].max() - 1e-9
    Q = np.array([c[:, y] for share, c in terms for y in np.flatnonzero(share)])[None]
    W = np.array([share[y] for share, _ in terms for y in np.flatnonzero(share)])[None]
    W = np.where(Q[0].any(axis=1), W[0], 0.0)[None]
    for lam in optimal:
        start = lam[None, :]
        moved = _lexicographic_optimum(start, *_kl_derivatives(Q, W, start))[0]
        np.testing.assert_allclose(moved, kl.lam, atol=1e-9)


def test_a_loss_flat_in_every_direction_reports_the_win_rate():
    """n = 3 where every LOO term of the log loss is constant in the weights (a plane of
    optima, solved by the linear programmes): the lexicographically largest optimum is
    the win rate's w = (1, 0, 0), from any optimal starting point."""
    ranks = np.array(
        [[2.0, 5.0, 4.0, 2.0, 2.0], [2.5, 2.5, 2.5, 5.0, 2.5], [5.0, 2.5, 2.5, 2.5, 2.5]]
    )
    kl, _, _ = fit_loo(ranks, K=3)
    np.testing.assert_allclose(kl.weights, [1.0, 0.0, 0.0], atol=1e-12)
    terms = _loo_components(ranks, 3)
    grid = _grid(3, 12)
    losses = kl_by_definition(terms, grid)
    assert np.ptp(losses) < 1e-12  # flat: every weighting is optimal
    Q = np.array([c[:, y] for share, c in terms for y in np.flatnonzero(share)])[None]
    W = np.array([share[y] for share, _ in terms for y in np.flatnonzero(share)])[None]
    W = np.where(Q[0].any(axis=1), W[0], 0.0)[None]
    start = np.array([[0.2, 0.3, 0.5]])
    hessian, gradient = _kl_derivatives(Q, W, start)
    np.testing.assert_allclose(
        _lexicographic_optimum(start, hessian, gradient)[0], [1.0, 0.0, 0.0], atol=1e-9
    )


def test_brier_weights_beyond_enumeration_match_a_general_purpose_qp():
    """K = 10 > 8: supports found by projected gradient, then solved exactly."""
    rng = np.random.default_rng(1)
    ranks = _random_ranks(rng, 15, 12)
    fit = fit_loo_brier(ranks, K=10)
    terms = _loo_components(ranks, 10)
    ours = float(brier_by_definition(terms, fit.lam)[0])
    assert fit.loss == pytest.approx(ours, abs=1e-12)
    assert ours <= _general_qp(terms, 10) + 1e-10
