"""Win probability, the linear family (METHODS 2): MLE, LOO-KL, LOO-TV, minimax."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize

from estimation.core.rankings import (
    cumulative_positions,
    prepare_rankings,
    rank_scores,
    tie_groups,
)
from estimation.core.win_probability import (
    CLIP,
    fit_loo_batch,
    fit_loo_kl,
    fit_loo_tv,
    fit_minimax,
    lam_to_weights,
    minimax_bound,
    minimax_weights,
    mle,
    weights_to_lam,
    win_probabilities,
)
from estimation.core.win_probability.loo_batch import _kl_best_vertex, _kl_em_ratio, _solve_kl
from tests.core.test_rankings import load_demsar, load_tabzilla_top3

# ---------------------------------------------------------------------------
# an independent, deliberately naive implementation of the LOO losses


def loo_losses(ranks: np.ndarray, K: int, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LOO KL and TV losses for each row of ``lam`` (L, K), one dataset at a time."""
    n, m = ranks.shape
    C = cumulative_positions(ranks, K)
    total = C.sum(axis=0)
    start, size = tie_groups(ranks)
    k = np.arange(1, K + 1)[:, None]
    kl = np.zeros(len(lam))
    tv = np.zeros(len(lam))
    for i in range(n):
        p = lam @ ((total - C[i]) / (k * (n - 1)))  # (L, m)
        for y in np.flatnonzero(start[i] == 1):
            share = 1.0 / size[i, y]
            kl -= share * np.log(np.maximum(p[:, y], CLIP))
            one_hot = np.zeros(m)
            one_hot[y] = 1.0
            tv += share * np.abs(one_hot - p).sum(axis=1)
    return kl / n, tv / n


def simplex_grid(K: int, steps: int) -> np.ndarray:
    points = [c for c in itertools.product(range(steps + 1), repeat=K - 1) if sum(c) <= steps]
    grid = np.array([[*c, steps - sum(c)] for c in points], dtype=float) / steps
    return grid


def ranks_from(scores) -> np.ndarray:
    return rank_scores(np.asarray(scores, dtype=float))


HAND_MADE = {
    # 6 datasets, 4 algorithms, no ties.
    "plain": [[4, 3, 2, 1], [3, 4, 2, 1], [4, 2, 3, 1], [1, 4, 3, 2], [2, 3, 4, 1], [4, 1, 3, 2]],
    # ties for first and further down.
    "ties": [[3, 3, 1, 0], [2, 3, 3, 1], [3, 1, 2, 2], [1, 1, 1, 0], [0, 2, 3, 1], [2, 2, 0, 3]],
    # a close contest: each algorithm wins once.
    "round_robin": [[3, 2, 1, 0], [0, 3, 2, 1], [1, 0, 3, 2], [2, 1, 0, 3], [3, 1, 2, 0]],
}


# ---------------------------------------------------------------------------
# coordinates


def test_weights_and_mixture_coordinates_round_trip():
    lam = np.array([0.2, 0.5, 0.3])
    w = lam_to_weights(lam)
    np.testing.assert_allclose(w, [0.2 + 0.25 + 0.1, 0.25 + 0.1, 0.1])
    np.testing.assert_allclose(w.sum(), 1.0)
    np.testing.assert_allclose(weights_to_lam(w), lam)
    np.testing.assert_allclose(lam_to_weights(np.eye(3)[2]), [1 / 3, 1 / 3, 1 / 3])
    with pytest.raises(ValueError, match="non-increasing"):
        weights_to_lam([0.2, 0.8])


def test_win_probabilities_of_fixed_weights():
    ranks = ranks_from(HAND_MADE["ties"])
    r = np.zeros((3, 4))
    start, size = tie_groups(ranks)
    for j in range(3):  # positional counts by hand: 1/t at each position of a tie group
        r[j] = np.where((start <= j + 1) & (j + 1 < start + size), 1 / size, 0).sum(axis=0)
    w = np.array([0.5, 0.3, 0.2])
    np.testing.assert_allclose(win_probabilities(ranks, w), w @ r / 6)


# ---------------------------------------------------------------------------
# MLE


def test_demsar_mle_with_the_four_way_tie_on_mushroom():
    _, algorithms, auc = load_demsar("auc")
    fit = mle(rank_scores(auc))
    p = dict(zip(algorithms, fit.p, strict=True))
    assert p["C4.5+m+cf"] == pytest.approx(0.4464, abs=5e-5)
    assert p["C4.5+m"] == pytest.approx(0.3036, abs=5e-5)
    assert p["C4.5"] == pytest.approx(0.1607, abs=5e-5)
    assert p["C4.5+cf"] == pytest.approx(0.0893, abs=5e-5)
    assert fit.to_dict(algorithms)["p"]["C4.5+m+cf"] == pytest.approx(6.25 / 14)


def test_demsar_loo_fits():
    _, _, auc = load_demsar("auc")
    ranks = rank_scores(auc)
    kl = fit_loo_kl(ranks, K=3)
    tv = fit_loo_tv(ranks, K=3)
    grid = simplex_grid(3, 120)
    kl_grid, tv_grid = loo_losses(ranks, 3, grid)
    assert kl.loss <= kl_grid.min() + 1e-12
    assert kl.loss == pytest.approx(kl_grid.min(), abs=1e-4)
    assert tv.loss == pytest.approx(tv_grid.min(), abs=1e-12)
    assert kl.loss < kl.loss_mle and tv.loss <= tv.loss_mle
    assert kl.n_terms == 17  # 13 single winners + the 4-way tie on mushroom
    assert kl.n_clipped == 0


# ---------------------------------------------------------------------------
# LOO-KL and LOO-TV against brute force


@pytest.mark.parametrize("name", sorted(HAND_MADE))
@pytest.mark.parametrize("K", [2, 3, 4])
def test_loo_fits_against_a_fine_grid(name, K):
    ranks = ranks_from(HAND_MADE[name])
    kl = fit_loo_kl(ranks, K=K)
    tv = fit_loo_tv(ranks, K=K)
    grid = simplex_grid(K, {2: 2000, 3: 150, 4: 40}[K])
    kl_grid, tv_grid = loo_losses(ranks, K, grid)
    # The exact optimum is at least as good as every grid point, and close to the best.
    assert kl.loss <= kl_grid.min() + 1e-12
    assert kl.loss == pytest.approx(kl_grid.min(), abs={2: 1e-6, 3: 1e-4, 4: 2e-3}[K])
    assert tv.loss <= tv_grid.min() + 1e-12
    # The reported losses are the losses of the reported weights.
    kl_at, _ = loo_losses(ranks, K, kl.lam[None, :])
    _, tv_at = loo_losses(ranks, K, tv.lam[None, :])
    assert kl.loss == pytest.approx(kl_at[0], abs=1e-12)
    assert tv.loss == pytest.approx(tv_at[0], abs=1e-12)
    mle_kl, mle_tv = loo_losses(ranks, K, np.eye(K)[:1])
    assert kl.loss_mle == pytest.approx(mle_kl[0], abs=1e-12)
    assert tv.loss_mle == pytest.approx(mle_tv[0], abs=1e-12)


def test_loo_tv_is_linear_in_lam_so_a_vertex_is_optimal():
    ranks = ranks_from(HAND_MADE["ties"])
    K = 3
    vertices = np.eye(K)
    _, tv_vertices = loo_losses(ranks, K, vertices)
    rng = np.random.default_rng(3)
    lam = rng.dirichlet(np.ones(K), size=20)
    _, tv = loo_losses(ranks, K, lam)
    np.testing.assert_allclose(tv, lam @ tv_vertices, atol=1e-12)
    fit = fit_loo_tv(ranks, K=K)
    assert np.count_nonzero(fit.lam) == 1
    assert fit.loss == pytest.approx(tv_vertices.min(), abs=1e-12)


def test_loo_tv_ties_between_vertices_go_to_the_smallest_k():
    # Every dataset all tied: every vertex has the same loss.
    ranks = np.full((4, 3), 2.0)
    fit = fit_loo_tv(ranks, K=3)
    np.testing.assert_array_equal(fit.weights, [1, 0, 0])


def test_loo_kl_against_an_independent_solver():
    rng = np.random.default_rng(11)
    for _ in range(12):
        n, m = int(rng.integers(3, 25)), int(rng.integers(3, 8))
        K = int(rng.integers(2, m + 1))
        ranks = rank_scores(rng.integers(0, 4, size=(n, m)).astype(float))
        fit = fit_loo_kl(ranks, K=K)

        def loss(lam, ranks=ranks, K=K):
            lam = np.clip(lam, 0, None)
            return loo_losses(ranks, K, (lam / lam.sum())[None, :])[0][0]

        best = min(
            loss(
                minimize(
                    loss,
                    start,
                    method="SLSQP",
                    bounds=[(0, 1)] * K,
                    constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
                    options={"ftol": 1e-14, "maxiter": 300},
                ).x
            )
            for start in [np.full(K, 1 / K), *(0.9 * np.eye(K) + 0.1 / K)]
        )
        assert fit.loss <= best + 1e-10


def test_k1_is_the_mle():
    ranks = ranks_from(HAND_MADE["ties"])
    expected = mle(ranks).p
    for fit in (fit_loo_kl(ranks, K=1), fit_loo_tv(ranks, K=1), fit_minimax(ranks, K=1)):
        np.testing.assert_array_equal(fit.weights, [1.0])
        np.testing.assert_allclose(fit.p, expected, atol=1e-15)


# ---------------------------------------------------------------------------
# edge cases


def test_single_win_algorithms_are_clipped_and_counted():
    # Columns a, b, c, d, e. d wins dataset 0 and c wins dataset 1; both finish 4th or
    # 5th everywhere else, so neither has any other top-3 appearance.
    scores = [
        [3, 2, 0, 9, 1],
        [3, 2, 9, 0, 1],
        [4, 3, 1, 0, 2],
        [2, 4, 1, 0, 3],
        [3, 2, 0, 1, 4],
    ]
    ranks = ranks_from(scores)
    kl = fit_loo_kl(ranks, K=3)
    assert kl.n_clipped == 2
    assert kl.n_terms == 5
    # The clipped terms are constant and included in both losses.
    floor = -2 * np.log(CLIP) / 5
    assert kl.loss > floor and kl.loss_mle > floor
    kl_at, _ = loo_losses(ranks, 3, kl.lam[None, :])
    assert kl.loss == pytest.approx(kl_at[0], abs=1e-12)
    grid_kl, _ = loo_losses(ranks, 3, simplex_grid(3, 100))
    assert kl.loss <= grid_kl.min() + 1e-12
    assert kl.to_dict()["n_clipped"] == 2


def test_tied_single_win_is_not_constant():
    # A shared win: the tie gives the partner a top-2 share, so the term depends on w.
    ranks = ranks_from([[2, 2, 0], [1, 2, 0], [2, 1, 0]])
    assert fit_loo_kl(ranks, K=2).n_clipped == 0


def test_all_tied_datasets_give_uniform_estimates():
    ranks = np.full((5, 4), 2.5)
    for fit in (mle(ranks), fit_loo_kl(ranks), fit_loo_tv(ranks), fit_minimax(ranks)):
        np.testing.assert_allclose(fit.p, 0.25)
    kl = fit_loo_kl(ranks)
    assert kl.loss == pytest.approx(np.log(4))
    assert kl.n_clipped == 0


def test_one_dataset():
    ranks = ranks_from([[0.3, 0.9, 0.5]])
    np.testing.assert_array_equal(mle(ranks).p, [0, 1, 0])
    kl = fit_loo_kl(ranks, K=2)
    tv = fit_loo_tv(ranks, K=2)
    # Leave-one-out is undefined with one dataset: the MLE, with no loss to report.
    for fit in (kl, tv):
        np.testing.assert_array_equal(fit.weights, [1, 0])
        np.testing.assert_array_equal(fit.p, [0, 1, 0])
        assert np.isnan(fit.loss) and np.isnan(fit.loss_mle)
        assert fit.to_dict()["loss"] is None
    minimax = fit_minimax(ranks, K=2)
    np.testing.assert_allclose(minimax.p.sum(), 1.0)


def test_one_algorithm_is_a_clear_error():
    for fit in (mle, fit_loo_kl, fit_loo_tv, fit_minimax):
        with pytest.raises(ValueError, match="at least 2 algorithms"):
            fit(np.ones((3, 1)))


def test_K_validation():
    ranks = ranks_from(HAND_MADE["plain"])
    with pytest.raises(ValueError, match="K must be"):
        fit_loo_kl(ranks, K=5)
    with pytest.raises(ValueError, match="known_positions"):
        fit_loo_kl(ranks, K=3, known_positions=2)


def test_tabzilla_top3_uses_only_the_known_positions():
    prepared = prepare_rankings(load_tabzilla_top3())
    ranks, known = prepared.ranks, prepared.known_positions
    assert known == 3
    with pytest.raises(ValueError, match="only the top 3"):
        fit_loo_kl(ranks, K=4, known_positions=known)
    kl = fit_loo_kl(ranks, K=3, known_positions=known)
    tv = fit_loo_tv(ranks, K=3, known_positions=known)
    for fit in (kl, tv):
        np.testing.assert_allclose(fit.p.sum(), 1.0)
        assert fit.loss <= fit.loss_mle
    grid = simplex_grid(3, 60)
    kl_grid, tv_grid = loo_losses(ranks, 3, grid)
    assert kl.loss <= kl_grid.min() + 1e-12
    assert tv.loss == pytest.approx(tv_grid.min(), abs=1e-12)
    # The top-3 estimate only moves mass among listed algorithms.
    listed = (ranks <= 3).any(axis=0)
    assert np.all(kl.p[~listed] == 0)
    p = dict(zip(prepared.algorithms, mle(ranks).p, strict=True))
    assert p["CatBoost"] == pytest.approx(8 / 36)


# ---------------------------------------------------------------------------
# minimax


def test_minimax_k2_closed_form():
    for m, n in [(5, 5), (5, 10), (30, 200)]:
        mm = minimax_weights(m, n, 2)
        w = 1 - 1 / (2 * n + 2)
        np.testing.assert_allclose(mm.weights, [w, 1 - w])
        expected = np.sqrt(m) * np.sqrt(2 * (1 - w) ** 2 + (w**2 + (1 - w) ** 2) / n)
        assert mm.bound == pytest.approx(expected)
        assert mm.bound_k2 == pytest.approx(expected)
        assert mm.bound_mle == pytest.approx(np.sqrt(m / n))
        # The general formula at w* is within 1 % of the closed form (METHODS 2.2).
        assert minimax_bound(mm.weights, m, n) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize(("n", "k3", "k2"), [(5, 0.90, 0.96), (10, 0.65, 0.69)])
def test_minimax_sanity_values(n, k3, k2):
    mm = minimax_weights(5, n, 3)
    assert mm.bound == pytest.approx(k3, abs=0.006)
    assert mm.bound_k2 == pytest.approx(k2, abs=0.006)
    assert mm.bound < mm.bound_k2 < mm.bound_mle
    w = mm.weights
    assert np.all(np.diff(w) <= 1e-12) and w.sum() == pytest.approx(1.0)
    assert w[0] >= (8 * n - np.sqrt(8 * n)) / (8 * n - 1) - 1e-12


def test_minimax_k3_against_a_grid():
    m, n = 5, 5
    mm = minimax_weights(m, n, 3)
    floor = (8 * n - np.sqrt(8 * n)) / (8 * n - 1)
    best = np.inf
    for w1 in np.linspace(floor, 1, 41):
        for w2 in np.linspace(0, min(w1, 1 - w1), 41):
            w3 = 1 - w1 - w2
            if -1e-12 <= w3 <= w2 + 1e-12:
                best = min(best, minimax_bound([w1, w2, max(w3, 0.0)], m, n))
    assert mm.bound <= best + 1e-9
    assert mm.bound == pytest.approx(best, abs=1e-3)


def test_minimax_inner_maximum_against_a_grid():
    m, n = 5, 5
    w = np.array([0.9, 0.06, 0.04])
    value = minimax_bound(w, m, n)
    best = -np.inf
    for t1, t2 in itertools.product(np.linspace(0, 1, 201), repeat=2):
        if t1 + t2 <= 1:
            t = np.array([t1, t2, 1 - t1 - t2])
            s = sum(
                np.sqrt(((1 - w[0]) * t[j] - w[j + 1]) ** 2 + (w[0] ** 2 * t[j] + w[1] ** 2) / n)
                for j in range(2)
            )
            s += np.sqrt((1 - w[0]) ** 2 * t[2] ** 2 + (3 / n) * (w[0] ** 2 * t[2] + w[1] ** 2 * 3))
            best = max(best, s)
    assert value >= best - 1e-12
    assert value == pytest.approx(best, abs=1e-4)


def test_minimax_is_cached_and_read_only():
    assert minimax_weights(7, 12, 3) is minimax_weights(7, 12, 3)
    with pytest.raises(ValueError):
        minimax_weights(7, 12, 3).weights[0] = 1.0
    mm = minimax_weights(7, 12, 1)
    np.testing.assert_array_equal(mm.weights, [1.0])
    assert mm.bound == pytest.approx(np.sqrt(7 / 12))


def test_minimax_bound_rejects_weights_below_the_floor():
    with pytest.raises(ValueError, match="at least"):
        minimax_bound([0.5, 0.3, 0.2], 5, 5)


# ---------------------------------------------------------------------------
# batched fits


def all_copies_loo_losses(ranks, counts, K, lam):
    """By hand: LOO over the distinct datasets of a replicate, each term leaving out
    every copy of its dataset and weighted by its count (METHODS 6, see fit_loo_batch)."""
    C = cumulative_positions(ranks, K)  # (n, K, m)
    Q = C / np.arange(1, K + 1)[None, :, None]
    first = C[:, 0, :]
    N = counts.sum()
    total = np.einsum("i,ikm->km", counts, Q)
    kl = tv = 0.0
    for i in np.flatnonzero(counts):
        p = lam @ ((total - counts[i] * Q[i]) / (N - counts[i]))
        kl -= counts[i] * (first[i] * np.log(np.maximum(p, 1e-12))).sum()
        tv += counts[i] * (2.0 - 2.0 * (first[i] * p).sum())
    return kl / N, tv / N


def test_batched_fits_leave_out_every_copy_of_a_dataset():
    rng = np.random.default_rng(5)
    ranks = rank_scores(rng.integers(0, 4, size=(12, 5)).astype(float))
    n = len(ranks)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=6).astype(float)
    batch = fit_loo_batch(ranks, counts, K=3)
    assert batch.n_unconverged == 0
    step = 0.02
    grid = np.array(
        [
            (a, b, 1 - a - b)
            for a in np.arange(0, 1 + 1e-9, step)
            for b in np.arange(0, 1 - a + 1e-9, step)
        ]
    )
    for b, c in enumerate(counts):
        kl, _ = all_copies_loo_losses(ranks, c, 3, batch.lam_kl[b])
        assert batch.loss_kl[b] == pytest.approx(kl, abs=1e-10)
        best_on_grid = min(all_copies_loo_losses(ranks, c, 3, lam)[0] for lam in grid)
        assert batch.loss_kl[b] <= best_on_grid + 1e-9
        vertices = [all_copies_loo_losses(ranks, c, 3, lam)[1] for lam in np.eye(3)]
        assert batch.loss_tv[b] == pytest.approx(min(vertices), abs=1e-12)
        np.testing.assert_allclose(batch.p_kl[b], batch.lam_kl[b] @ batch.q[b], atol=1e-12)
        np.testing.assert_allclose(
            batch.p_mle[b], mle(ranks[np.repeat(np.arange(n), c.astype(int))]).p
        )


def test_batched_fits_on_training_masks_equal_fits_on_the_subset():
    rng = np.random.default_rng(6)
    ranks = rank_scores(rng.integers(0, 4, size=(12, 5)).astype(float))
    masks = (rng.random((4, len(ranks))) < 0.7).astype(int)  # 0/1: no duplicates
    batch = fit_loo_batch(ranks, masks, K=3)
    for b, mask in enumerate(masks):
        subset = ranks[mask.astype(bool)]
        kl = fit_loo_kl(subset, K=3)
        tv = fit_loo_tv(subset, K=3)
        assert batch.loss_kl[b] == pytest.approx(kl.loss, abs=1e-10)
        assert batch.loss_kl_mle[b] == pytest.approx(kl.loss_mle, abs=1e-10)
        assert batch.loss_tv[b] == pytest.approx(tv.loss, abs=1e-12)
        np.testing.assert_allclose(batch.p_kl[b], kl.p, atol=1e-7)
        np.testing.assert_allclose(batch.p_tv[b], tv.p, atol=1e-12)
        assert batch.n_clipped[b] == kl.n_clipped
        assert batch.n_terms[b] == kl.n_terms


def test_batched_fit_handles_replicates_with_one_dataset():
    ranks = ranks_from(HAND_MADE["plain"])
    counts = np.array([[1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]])
    batch = fit_loo_batch(ranks, counts, K=2)
    np.testing.assert_array_equal(batch.lam_kl[0], [1, 0])
    assert np.isnan(batch.loss_kl[0]) and np.isfinite(batch.loss_kl[1])
    np.testing.assert_allclose(batch.p_kl.sum(axis=1), 1.0)


def test_batched_fit_validates_counts():
    ranks = ranks_from(HAND_MADE["plain"])
    with pytest.raises(ValueError, match="shape"):
        fit_loo_batch(ranks, np.ones((2, 5)))
    with pytest.raises(ValueError, match="non-negative"):
        fit_loo_batch(ranks, -np.ones((2, 6)))


def test_the_kl_solver_meets_its_optimality_conditions():
    # r_k = 1 where lam_k > 0 and r_k <= 1 where lam_k = 0 (the KKT conditions the
    # active-set method drives below tol), on shares shaped like top-k LOO shares.
    rng = np.random.default_rng(21)
    B, G, K = 300, 9, 4
    Q = np.cumsum(rng.uniform(size=(B, G, K)), axis=2) / np.arange(1, K + 1) ** 1.1
    W = rng.uniform(size=(B, G))
    W[:10] = 0.0  # no weight: the MLE's vertex
    lam, unconverged = _solve_kl(Q, W)
    assert unconverged == 0
    np.testing.assert_array_equal(lam[:10], np.eye(K)[np.zeros(10, dtype=int)])
    active = slice(10, None)
    ratio, _ = _kl_em_ratio(
        Q[active], W[active] / W[active].sum(axis=1, keepdims=True), lam[active]
    )
    assert (lam >= 0).all()
    np.testing.assert_allclose(lam.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    support = lam[active] > 0
    assert np.abs(ratio[support] - 1.0).max() <= 1e-9
    assert ratio[~support].max(initial=0.0) <= 1.0 + 1e-9
    assert (support.sum(axis=1) > 1).any() and (~support).any()  # both kinds of condition


def test_the_kl_solver_starts_at_the_best_vertex_with_a_finite_loss():
    # Term 0 has no share at k = 1: that vertex has an infinite loss although its other
    # term would make it the best.
    Q = np.array([[[0.0, 0.5, 0.4], [0.9, 0.3, 0.1]]])
    W = np.array([[0.1, 0.9]])
    np.testing.assert_array_equal(_kl_best_vertex(Q, W), [[0.0, 1.0, 0.0]])
    np.testing.assert_array_equal(_kl_best_vertex(Q[:, 1:], W[:, 1:]), [[1.0, 0.0, 0.0]])


# ---------------------------------------------------------------------------
# properties

score_tables = arrays(
    np.float64, st.tuples(st.integers(2, 12), st.integers(2, 6)), elements=st.integers(0, 3)
)


@settings(max_examples=60, deadline=None)
@given(score_tables, st.integers(1, 4))
def test_estimates_are_probabilities_and_weights_feasible(scores, K):
    ranks = rank_scores(scores)
    K = min(K, ranks.shape[1])
    fits = [mle(ranks), fit_loo_kl(ranks, K=K), fit_loo_tv(ranks, K=K), fit_minimax(ranks, K=K)]
    for fit in fits:
        assert np.all(fit.p >= 0)
        assert fit.p.sum() == pytest.approx(1.0, abs=1e-12)
        w = fit.weights
        assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(np.diff(w) <= 1e-12)
    kl, tv = fits[1], fits[2]
    assert kl.loss <= kl.loss_mle + 1e-12
    assert tv.loss <= tv.loss_mle + 1e-12


@settings(max_examples=40, deadline=None)
@given(score_tables, st.randoms(use_true_random=False))
def test_relabelling_and_reordering_permute_the_output(scores, random):
    ranks = rank_scores(scores)
    n, m = ranks.shape
    K = min(3, m)
    algorithm_order = list(range(m))
    dataset_order = list(range(n))
    random.shuffle(algorithm_order)
    random.shuffle(dataset_order)
    shuffled = ranks[dataset_order][:, algorithm_order]
    for fit in (mle, fit_loo_kl, fit_loo_tv, fit_minimax):
        kwargs = {} if fit is mle else {"K": K}
        a, b = fit(ranks, **kwargs), fit(shuffled, **kwargs)
        np.testing.assert_allclose(b.p, a.p[algorithm_order], atol=1e-7)
        if a.loss is not None:
            assert b.loss == pytest.approx(a.loss, abs=1e-10)
            assert b.loss_mle == pytest.approx(a.loss_mle, abs=1e-10)
        if fit is fit_loo_tv:
            np.testing.assert_array_equal(b.weights, a.weights)


@settings(max_examples=40, deadline=None)
@given(score_tables)
def test_k1_gives_the_mle_everywhere(scores):
    ranks = rank_scores(scores)
    expected = mle(ranks).p
    for fit in (fit_loo_kl, fit_loo_tv, fit_minimax):
        np.testing.assert_allclose(fit(ranks, K=1).p, expected, atol=1e-15)
