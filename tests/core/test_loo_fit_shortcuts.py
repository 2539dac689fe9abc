"""The shortcuts of the batched leave-one-out fits give the fits they replace: the KL fit
on its weighted terms only, the Brier QP's KKT systems by their inverse, and the Brier
self-products from the design's entries."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata

from estimation.core.win_probability import fit_loo_batch, simplex
from estimation.core.win_probability import loo_batch as loo_batch_module
from estimation.core.win_probability.design import _design
from estimation.core.win_probability.simplex import _kkt_solution, _self_products


def _tied_ranks(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    scores = np.round(rng.normal(size=(n, m)) * rng.choice([0.3, 1.0, 3.0]))
    return np.vstack([rankdata(-row) for row in scores])


def test_the_kl_fit_on_weighted_terms_is_the_fit_on_all_terms(monkeypatch):
    """Bootstrap counts leave most (winner group, count) terms without weight; the fit
    that reads only the weighted ones is the same optimum (to the solver's tolerance)."""
    rng = np.random.default_rng(0)
    for m, n in ((6, 14), (20, 100), (4, 8)):
        ranks = _tied_ranks(rng, m, n)
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=200).astype(float)
        compact = fit_loo_batch(ranks, counts, K=3)
        monkeypatch.setattr(loo_batch_module, "_COMPACT_SHARE", 0.0)  # never compact
        full = fit_loo_batch(ranks, counts, K=3)
        monkeypatch.undo()
        np.testing.assert_allclose(compact.lam_kl, full.lam_kl, rtol=0, atol=1e-9)
        np.testing.assert_allclose(compact.p_kl, full.p_kl, rtol=0, atol=1e-10)
        assert compact.n_unconverged == full.n_unconverged == 0


def _pinv_solution(kkt: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.matmul(np.linalg.pinv(kkt, rcond=1e-10), rhs[..., None])[..., 0]


def test_the_kkt_solution_is_the_pseudo_inverse_solution():
    rng = np.random.default_rng(1)
    kkt = rng.normal(size=(300, 4, 4))
    kkt = kkt + kkt.transpose(0, 2, 1)
    kkt[:10, 2] = kkt[:10, 0] * (1 + 1e-13)  # nearly singular: by the pseudo-inverse
    rhs = rng.normal(size=(300, 4))
    expected = _pinv_solution(kkt, rhs)
    got = _kkt_solution(kkt, rhs)
    np.testing.assert_array_equal(got[:10], expected[:10])
    scale = np.abs(expected[10:]).max(axis=1, keepdims=True)
    np.testing.assert_allclose(got[10:] / scale, expected[10:] / scale, rtol=0, atol=1e-9)
    # an exactly singular system in the batch: the pseudo-inverse for all
    kkt[20] = 0.0
    np.testing.assert_array_equal(_kkt_solution(kkt, rhs), _pinv_solution(kkt, rhs))


def _ill_conditioned(n: int, condition: float) -> tuple[np.ndarray, np.ndarray]:
    """A system of ``n`` unknowns whose 2-norm condition is ``condition`` but whose 1-norm
    condition is about ``condition / n`` (singular vectors spread where the 1-norm counts
    one entry), and a right-hand side along its smallest singular direction."""
    h = np.ones(n)
    h[0], h[1::2] = 0.0, -1.0
    h /= np.linalg.norm(h)
    e0 = np.eye(n)[0]
    middle = np.eye(n) - np.outer(e0, e0) - np.outer(h, h)
    return condition * np.outer(e0, h) + 1e4 * middle + np.outer(h, e0), h + e0


def test_a_large_kkt_system_past_the_pseudo_inverse_cutoff_takes_the_pseudo_inverse():
    # 400 unknowns, 2-norm condition 2e10 (pinv at rcond 1e-10 drops the smallest singular
    # value) and 1-norm condition ~5e7: below 1e8, so the inverse alone would answer a
    # solution off by 1 in e0. The bound 1e10 / (s + 1) sends it to the pseudo-inverse.
    kkt, rhs = _ill_conditioned(400, 2e10)
    condition = np.abs(kkt).sum(axis=0).max() * np.abs(np.linalg.inv(kkt)).sum(axis=0).max()
    assert condition < 1e8 < np.linalg.cond(kkt) / 100
    got = _kkt_solution(kkt[None], rhs[None])[0]
    np.testing.assert_allclose(got, _pinv_solution(kkt, rhs), rtol=0, atol=1e-9)


@pytest.mark.parametrize("K", [12, 110])
def test_the_simplex_qp_beyond_enumeration_is_the_pseudo_inverse_solution(K, monkeypatch):
    """K > 8 (projected gradient, then KKT systems up to K + 1 unknowns, past 100 at
    K = 110): the weights equal those with every KKT system by the pseudo-inverse, to
    1e-9 in each weight."""
    rng = np.random.default_rng(K)
    B = 3
    noise = rng.normal(size=(B, K, K)) / K
    H = np.eye(K)[None] + np.einsum("bij,bkj->bik", noise, noise)
    v = 1.0 / K + rng.normal(scale=0.1 / K, size=(B, K))  # an interior optimum: full support
    got = simplex._solve_simplex_qp(H, v)
    monkeypatch.setattr(simplex, "_inverse_condition_bound", lambda size: 0.0)
    by_pinv = simplex._solve_simplex_qp(H, v)
    assert (got > 0).sum(axis=1).max() >= min(K, 100)  # the large systems were solved
    np.testing.assert_allclose(got, by_pinv, rtol=0, atol=1e-9)


def _sparse_self_products(design) -> np.ndarray:
    """The self-products as the sparse block products computed them (the reference)."""
    n, m, K = design.n, design.m, design.K
    blocks = [design.positions[:, j * m : (j + 1) * m] for j in range(K)]
    plain = np.zeros((n, K, K))
    for j in range(K):
        for jj in range(j, K):
            value = np.asarray(blocks[j].multiply(blocks[jj]).sum(axis=1)).ravel()
            plain[:, j, jj] = plain[:, jj, j] = value
    return np.cumsum(np.cumsum(plain, axis=1), axis=2)


@pytest.mark.parametrize("seed", range(5))
def test_the_self_products_are_the_sparse_block_products_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        m = int(rng.integers(2, 12))
        ranks = _tied_ranks(rng, m, int(rng.integers(1, 30)))
        design = _design(ranks, int(rng.integers(1, m + 1)))
        np.testing.assert_array_equal(_self_products(design), _sparse_self_products(design))
