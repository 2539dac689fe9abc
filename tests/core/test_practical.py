"""The Bayesian signed-rank test with a ROPE against baycomp (estimation/core/practical.py).

Tolerances: every probability is a share of posterior draws, with a Monte-Carlo standard
error of at most 0.5 / sqrt(N). Two independent estimates (ours with N draws, baycomp's
with 50 000, seeded) differ by at most 4 standard errors of their difference,
4 * 0.5 * sqrt(1/N + 1/50000): 0.0127 at N = 50 000, 0.0330 at our default 4000.
"""

from pathlib import Path

import numpy as np
import pytest

from estimation.core import practical
from estimation.core.practical import (
    N_SAMPLES,
    PracticalPair,
    dirichlet_draws,
    practical_probabilities,
    signed_rank_posterior,
)

baycomp = pytest.importorskip("baycomp")

DATA = Path(__file__).parent / "data" / "baycomp" / "nbc_j48_means.csv"
REFERENCE_DRAWS = 50_000


def baycomp_probabilities(x, y, rope, random_state):
    """baycomp's Bayesian signed-rank test with REFERENCE_DRAWS draws: its probabilities
    (left, rope, right) with a rope, (left, right) without."""
    ref = baycomp.SignedRankTest(x, y, rope, nsamples=REFERENCE_DRAWS, random_state=random_state)
    return tuple(float(p) for p in ref.probs(rope > 0))


def kept_baycomp(peer_reference, x, y, rope, random_state):
    """:func:`baycomp_probabilities`, kept between runs (tests/reference_memo.py)."""
    return peer_reference(
        "baycomp-signed-rank",
        baycomp_probabilities,
        x,
        y,
        rope,
        random_state,
        under_test=practical,
        libraries=("baycomp",),
    )


def tolerance(n_samples: int) -> float:
    return 4 * 0.5 * np.sqrt(1 / n_samples + 1 / REFERENCE_DRAWS)


def nbc_j48() -> tuple[np.ndarray, np.ndarray]:
    table = np.genfromtxt(DATA, delimiter=",", names=True, dtype=None, encoding=None)
    return table["nbc"].astype(float), table["j48"].astype(float)


def test_baycomp_documented_example_nbc_j48():
    """baycomp's docs print (0.23014, 0.00674, 0.76312) for two_on_multiple(nbc, j48, rope=1)."""
    nbc, j48 = nbc_j48()
    ours = practical_probabilities(np.c_[nbc, j48], [(0, 1)], rope=1.0, rng=0)[(0, 1)]
    assert isinstance(ours, PracticalPair) and ours.n_datasets == 54
    documented = (0.23014, 0.00674, 0.76312)
    got = (ours.a_better, ours.equivalent, ours.b_better)
    np.testing.assert_allclose(got, documented, atol=tolerance(N_SAMPLES))
    assert sum(got) == pytest.approx(1.0)


@pytest.mark.parametrize("rope", [0.0, 0.5, 1.0, 3.0])
def test_nbc_j48_against_baycomp_sampler(rope, peer_reference):
    nbc, j48 = nbc_j48()
    expected = kept_baycomp(peer_reference, nbc, j48, rope, 7)
    if rope == 0:
        expected = (expected[0], 0.0, expected[1])
    ours = practical_probabilities(
        np.c_[nbc, j48], [(0, 1)], rope=rope, rng=1, n_samples=REFERENCE_DRAWS
    )[(0, 1)]
    got = (ours.a_better, ours.equivalent, ours.b_better)
    np.testing.assert_allclose(got, expected, atol=tolerance(REFERENCE_DRAWS))


@pytest.mark.parametrize("rope", [0.0, 1.0, 3.0, 100.0])
def test_baycomp_test_suite_example(rope, peer_reference):
    """The arrays of baycomp's tests/test_multiple.py (diff -5 -3 -2 0 4 70 70 70)."""
    x = np.array([15, 16, 17, 24, 11, 12, 13, 14.0])
    y = np.array([10, 13, 15, 24, 15, 82, 83, 84.0])
    expected = kept_baycomp(peer_reference, x, y, rope, 3)
    if rope == 0:
        expected = (expected[0], 0.0, expected[1])
    ours = practical_probabilities(
        np.c_[x, y], [(0, 1)], rope=rope, rng=2, n_samples=REFERENCE_DRAWS
    )
    pair = ours[(0, 1)]
    got = (pair.a_better, pair.equivalent, pair.b_better)
    np.testing.assert_allclose(got, expected, atol=tolerance(REFERENCE_DRAWS))


def test_posterior_masses_equal_the_quadratic_form():
    """The O(n) suffix sums give baycomp's O(n^2) sum of w_i w_j H(d_i + d_j - 2 rope),
    ties on the threshold counted half (decimal differences that sum exactly to 2 rope)."""
    d = np.array([0.7 - 0.68, 0.03, -0.01, 0.0, 0.05, 0.02])  # 0.02 + 0.02 = 2 * 0.02
    rope = 0.02
    weights = dirichlet_draws(d.size, rng=5, n_samples=64)
    full = np.concatenate([[0.0], np.round(d, 12)])
    sums = full[:, None] + full[None, :]
    above = (sums > 2 * rope + 1e-12) + 0.5 * (np.abs(sums - 2 * rope) <= 1e-12)
    below = (-sums > 2 * rope + 1e-12) + 0.5 * (np.abs(-sums - 2 * rope) <= 1e-12)
    theta_a = np.einsum("is,ij,js->s", weights, above, weights)
    theta_b = np.einsum("is,ij,js->s", weights, below, weights)
    masses = np.stack([theta_a, 1 - theta_a - theta_b, theta_b])
    expected = np.bincount(np.argmax(masses, axis=0), minlength=3) / 64
    np.testing.assert_allclose(signed_rank_posterior(np.round(d, 12), rope, weights), expected)


def test_same_seed_same_numbers_and_any_pair_alone():
    scores = np.random.default_rng(0).normal(0.8, 0.02, size=(30, 4))
    pairs = [(0, 1), (0, 2), (1, 3)]
    everything = practical_probabilities(scores, pairs, rope=0.01, rng=9)
    alone = practical_probabilities(scores, [(1, 3)], rope=0.01, rng=9)
    assert alone[(1, 3)] == everything[(1, 3)]


def test_missing_scores_and_bad_rope():
    scores = np.array([[0.8, np.nan], [0.7, 0.6], [0.9, 0.85]])
    pair = practical_probabilities(scores, [(0, 1)], rope=0.01, rng=0)[(0, 1)]
    assert pair.n_datasets == 2
    one = practical_probabilities(np.array([[0.8, 0.7], [np.nan, 0.6]]), [(0, 1)], rope=0.01, rng=0)
    assert one[(0, 1)] == "fewer than two datasets with results of both"
    with pytest.raises(ValueError, match="rope must be"):
        practical_probabilities(scores, [(0, 1)], rope=-1, rng=0)


def _near_twins_table():
    from estimation.core.table import ResultTable

    rng = np.random.default_rng(4)
    base = rng.uniform(0.6, 0.9, size=30)
    values = np.c_[base + 0.001, base + rng.normal(0, 0.001, 30), base - 0.05]
    return ResultTable(
        datasets=tuple(f"d{i}" for i in range(30)), algorithms=("a", "b", "c"), values=values
    )


def test_the_verdict_says_practically_equivalent_where_that_holds():
    from estimation.core.analysis import AnalysisSettings, analyze

    settings = AnalysisSettings(bootstrap=0, evaluation_repeats=1, rope=0.01)
    payload = analyze(_near_twins_table(), settings, advisor=False).payload
    verdict = payload.board.verdict
    leader = verdict.leader
    twin = "b" if leader == "a" else "a"
    assert verdict.practically_equivalent == (twin,)
    assert any("practically equivalent to" in s for s in verdict.sentences)
    versus = {v.algorithm: v for v in payload.board.practical.versus}
    assert versus[twin].equivalent >= 0.95 and versus["c"].leader_better >= 0.95
    section = payload.practical
    assert section.algorithms == ("a", "b", "c") and section.rope == 0.01
    # P(a over c) and P(c over a) are the two triangles of one non-symmetric matrix
    assert section.better.get(0, 2, 3) >= 0.95 and section.better.get(2, 0, 3) <= 0.05


def test_without_a_rope_nothing_is_claimed():
    from estimation.core.analysis import AnalysisSettings, analyze
    from estimation.core.contract import NotApplicable

    settings = AnalysisSettings(bootstrap=0, evaluation_repeats=1)
    payload = analyze(_near_twins_table(), settings, advisor=False).payload
    assert isinstance(payload.practical, NotApplicable)
    assert "no region of practical equivalence" in payload.board.practical.reason
    assert payload.board.verdict.practically_equivalent == ()


def test_scores_near_the_float_limits_give_the_numbers_of_ordinary_scores():
    """Differences and their Walsh sums near 1e308 would overflow: the test runs at a
    power of two (exact), so the probabilities are those of the same scores at 1."""
    base = np.random.default_rng(8).uniform(0.5, 1.0, size=(12, 2))
    ordinary = practical_probabilities(base, [(0, 1)], rope=0.05, rng=3)[(0, 1)]
    scale = 2.0**1022
    huge = practical_probabilities(base * scale, [(0, 1)], rope=0.05 * scale, rng=3)[(0, 1)]
    assert huge == ordinary
    opposite = base * np.array([1.0, -1.0]) * 1.7e308
    assert practical_probabilities(opposite, [(0, 1)], rope=1.0, rng=3)[(0, 1)] == (
        "the score differences leave the float range"
    )
