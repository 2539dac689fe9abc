"""Confidence intervals for the win probability (METHODS 6): exact (Clopper-Pearson),
pointwise and simultaneous by Bonferroni, and their coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import Board, WinInterval, from_json, to_json
from estimation.core.intervals import (
    exact_interval,
    exact_width,
    wilson_interval,
    win_intervals,
)
from estimation.core.table import ResultTable


def test_wilson_matches_statsmodels():
    z = stats.norm.ppf(0.975)
    for x, n in ((0, 10), (3, 10), (10, 10), (17, 30), (45, 100)):
        lower, upper = wilson_interval(x, n, z=z)
        expected = proportion_confint(x, n, alpha=0.05, method="wilson")
        np.testing.assert_allclose([lower, upper], expected, rtol=1e-12, atol=1e-15)


def test_exact_interval_matches_statsmodels():
    for x, n in ((0, 10), (1, 10), (3, 10), (10, 10), (17, 30), (45, 100), (0, 1)):
        lower, upper = exact_interval(x, n, level=0.95)
        expected = proportion_confint(x, n, alpha=0.05, method="beta")
        # scipy's beta quantiles agree to about 1e-13 between versions and CPUs
        np.testing.assert_allclose([lower, upper], expected, rtol=1e-10, atol=1e-14)


def test_exact_interval_is_scipys_beta_quantiles():
    """The ends are the beta quantiles of the docstring, as scipy.stats.beta.ppf gives
    them, at whole and fractional counts from 0 to n and at Bonferroni levels."""
    for n in (1, 2, 7, 10, 40, 100, 1000):
        x = np.unique(np.r_[np.arange(n + 1), np.linspace(0, n, 23)])
        for level in (0.5, 0.95, 1 - 0.05 / 7, 1 - 0.05 / 190):
            alpha = 1 - level
            lower, upper = exact_interval(x, n, level=level)
            np.testing.assert_allclose(
                lower[x > 0], stats.beta.ppf(alpha / 2, x[x > 0], n - x[x > 0] + 1), rtol=1e-12
            )
            np.testing.assert_allclose(
                upper[x < n], stats.beta.ppf(1 - alpha / 2, x[x < n] + 1, n - x[x < n]), rtol=1e-12
            )
            assert lower[0] == 0.0 and upper[-1] == 1.0


def test_exact_width_is_the_width_of_the_exact_interval():
    x, n = np.array([0.0, 3.0, 10.0, 2.5, 17.0]), np.array([10, 10, 10, 4, 30])
    lower, upper = exact_interval(x, n, level=0.95)
    np.testing.assert_allclose(exact_width(x, n, level=0.95), upper - lower, rtol=0, atol=0)
    with pytest.raises(ValueError, match="successes"):
        exact_width(11.0, 10, level=0.95)


@pytest.mark.parametrize("n", [5, 10, 14, 30, 100])
def test_exact_interval_covers_every_p_at_least_at_the_level(n):
    """Exact coverage (a sum over every win count, no simulation) at 2000 values of p,
    the smallest included: never below 0.95. Wilson's falls to about 0.83 near p = 0.01
    at n = 10, which is why it is no longer shown (bench coverage)."""
    p = np.concatenate([np.geomspace(1e-4, 0.5, 1000), 1 - np.geomspace(1e-4, 0.5, 1000)])
    x = np.arange(n + 1)
    lower, upper = exact_interval(x, n, level=0.95)
    pmf = stats.binom.pmf(x[None, :], n, p[:, None])
    inside = (lower[None, :] <= p[:, None]) & (p[:, None] <= upper[None, :])
    coverage = (pmf * inside).sum(axis=1)
    assert coverage.min() >= 0.95 - 1e-12, (n, p[coverage.argmin()], coverage.min())
    z = stats.norm.ppf(0.975)
    wilson_lower, wilson_upper = wilson_interval(x, n, z=z)
    wilson_inside = (wilson_lower[None, :] <= p[:, None]) & (p[:, None] <= wilson_upper[None, :])
    assert (pmf * wilson_inside).sum(axis=1).min() < 0.93  # what the exact interval fixes


def test_simultaneous_intervals_are_the_exact_ones_at_the_bonferroni_level():
    counts = np.array([12, 9, 5, 3, 1])
    result = win_intervals(_ranks_from_winners(np.repeat(np.arange(5), counts), 5))
    lower, upper = exact_interval(counts, counts.sum(), level=1 - 0.05 / 5)
    np.testing.assert_allclose(result.simultaneous_lower, lower, rtol=1e-12)
    np.testing.assert_allclose(result.simultaneous_upper, upper, rtol=1e-12)
    assert (result.simultaneous_lower <= result.lower).all()
    assert (result.upper <= result.simultaneous_upper).all()


def test_tie_split_wins_enter_the_interval():
    ranks = np.array([[1.5, 1.5, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [2.0, 1.0, 3.0]])
    result = win_intervals(ranks)
    np.testing.assert_allclose(result.wins, [2.5, 1.5, 0.0])
    lower, upper = exact_interval(2.5, 4, level=0.95)
    assert result.lower[0] == lower and result.upper[0] == upper
    assert lower < 2.5 / 4 < upper
    assert result.lower[2] == 0.0 and 0.0 < result.upper[2] < 1.0


def test_board_carries_the_win_interval_and_it_round_trips():
    scores = np.array([[0.9, 0.8, 0.7], [0.6, 0.9, 0.5], [0.8, 0.7, 0.1], [0.9, 0.1, 0.2]])
    table = ResultTable(("a", "b", "c", "d"), ("x", "y", "z"), scores)
    board = analyze(table, AnalysisSettings(bootstrap=0)).payload.board
    interval = board.win_interval
    assert isinstance(interval, WinInterval) and interval.level == 0.95
    assert len(interval.lower) == len(board.algorithms) == len(interval.simultaneous_upper)
    for lo, hi, slo, shi, p in zip(
        interval.lower,
        interval.upper,
        interval.simultaneous_lower,
        interval.simultaneous_upper,
        board.win_rate,
        strict=True,
    ):
        assert slo <= lo <= p <= hi <= shi
    assert from_json(Board, to_json(board)).win_interval == interval


def _ranks_from_winners(winners: np.ndarray, m: int) -> np.ndarray:
    """Rankings with the given winner on each dataset, the others in index order."""
    index = np.arange(m)
    return np.where(index == winners[..., None], 1.0, 2.0 + index - (index > winners[..., None]))


POPULATIONS = {
    "one clear leader": np.array([0.45, *[0.55 / 7] * 7]),
    "zipf": (1.0 / np.arange(1, 9)) / (1.0 / np.arange(1, 9)).sum(),
    "graded": np.arange(8, 0, -1) / np.arange(8, 0, -1).sum(),
    "near-uniform": np.array([0.16, *[0.84 / 7] * 7]),
}


@pytest.mark.parametrize("n", [10, 30, 100])
@pytest.mark.parametrize("population", sorted(POPULATIONS))
def test_interval_covers_the_leaders_true_win_probability(population, n):
    """Benchmarks drawn from known win probabilities: the 95 % exact interval covers
    the leader's true p, and the simultaneous ones every p, in at least 94 % of 4000
    runs (0.95 less 2.3 Monte Carlo standard errors, sqrt(0.95 * 0.05 / 4000) = 0.0034;
    METHODS 6)."""
    p = POPULATIONS[population]
    rng = np.random.default_rng([11, n, sorted(POPULATIONS).index(population)])
    runs = 4000
    winners = (rng.random((runs, n, 1)) > np.cumsum(p)[None, None, :]).sum(axis=2)
    ranks = _ranks_from_winners(winners, len(p))  # (runs, n, m)
    wins = (ranks == 1.0).sum(axis=1)
    # the engine's function on one run agrees with the vectorised count
    one = win_intervals(ranks[0])
    np.testing.assert_array_equal(one.wins, wins[0])
    lower, upper = exact_interval(wins[:, 0], n, level=0.95)
    assert (lower[0], upper[0]) == (one.lower[0], one.upper[0])
    covered = ((lower <= p[0]) & (p[0] <= upper)).mean()
    assert covered >= 0.94, f"{population}, n = {n}: coverage {covered:.3f}"
    all_lower, all_upper = exact_interval(wins, n, level=1 - 0.05 / len(p))
    np.testing.assert_array_equal(all_lower[0], one.simultaneous_lower)
    together = ((all_lower <= p) & (p <= all_upper)).all(axis=1).mean()
    assert together >= 0.94, f"{population}, n = {n}: simultaneous coverage {together:.3f}"
