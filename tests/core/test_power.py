"""How many more datasets (estimation/core/power.py)."""

import tracemalloc

import numpy as np
import pytest
from scipy import stats

from estimation.core import power as power_module
from estimation.core.power import (
    _draw_counts,
    _drawn_counts,
    _drawn_signed_rank_pvalues,
    advisor_power,
    effect_interval,
    pair_power,
    signed_rank_pvalues,
    walsh_interval,
)


def test_signed_rank_pvalues_match_scipy_approx_with_ties_and_zeros():
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(0.2, 1, (40, 30)), 1)
    d[0, :5] = 0
    expected = [stats.wilcoxon(row, method="approx").pvalue for row in d]
    np.testing.assert_allclose(signed_rank_pvalues(d), expected, rtol=1e-12)


def test_detectable_difference_near_the_normal_theory_value():
    """Normal differences, sd 0.02, n = 100: the paired t-test needs
    (z_0.975 + z_0.8) sd / sqrt(n) = 0.0056; Wilcoxon's efficiency 3/pi makes it about
    0.0057. The simulated value (500 simulations) is within 15 % of it."""
    d = np.random.default_rng(0).normal(0.004, 0.02, 100)
    result = pair_power(d, rng=0)
    theory = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * d.std(ddof=1) / 10 / np.sqrt(3 / np.pi)
    assert result.detectable_difference == pytest.approx(theory, rel=0.15)
    # the observed mean difference is below it: more datasets are needed
    assert result.power_at_observed < 0.8 and result.datasets_needed > 100


def test_datasets_needed_gives_power_and_is_seeded():
    d = np.random.default_rng(1).normal(0.01, 0.02, 40)
    first, again = pair_power(d, rng=5), pair_power(d, rng=5)
    assert first == again
    theory = ((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * d.std() / d.mean()) ** 2 / (3 / np.pi)
    assert first.datasets_needed == pytest.approx(theory, rel=0.3)


def test_identical_pairs_are_never_separated():
    result = pair_power(np.zeros(12), rng=0)
    assert result.datasets_needed is None and "identical" in result.note


def test_counted_draws_give_the_p_values_of_the_drawn_rows_bit_for_bit():
    """The simulations count how often each value is drawn instead of ranking the drawn
    rows: the same p-values to the bit, with ties, zeros and shifted values."""
    rng = np.random.default_rng(8)
    for _ in range(100):
        n, rows, size = (int(v) for v in rng.integers(1, [40, 30, 120]))
        values = np.round(rng.normal(0, 1, n), int(rng.integers(0, 3)))
        values[rng.random(n) < 0.2] = 0.0
        values = values + float(rng.choice([0.0, 0.1, 1e-17]))
        indices = rng.integers(0, n, size=(rows, size))
        counted = _drawn_signed_rank_pvalues(values, _draw_counts(indices, n))
        np.testing.assert_array_equal(counted, signed_rank_pvalues(values[indices]))


def test_effect_interval_inverts_the_noncentral_t():
    """The ends are the noncentralities (over sqrt(n)) that put the observed t at the
    tails of scipy's noncentral t: checked by scipy itself to 1e-8."""
    d = np.random.default_rng(4).normal(0.7, 1.0, 12)
    low, high = effect_interval(d, 0.95)
    t = d.mean() / d.std(ddof=1) * np.sqrt(12)
    assert stats.nct.cdf(t, 11, low * np.sqrt(12)) == pytest.approx(0.975, abs=1e-8)
    assert stats.nct.cdf(t, 11, high * np.sqrt(12)) == pytest.approx(0.025, abs=1e-8)


def test_effect_interval_covers_the_true_effect_of_normal_differences():
    """2000 benchmarks of 10 normal differences (effect 0.5 sd): the interval is of the
    effect's size (|t| is inverted), exact for a known sign and conservative where the
    sign is in doubt (measured 0.98 here); the Monte Carlo standard error is 0.005, so
    0.93 allows four of them below the nominal 0.95."""
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(2000):
        low, high = effect_interval(rng.normal(0.5, 1.0, 10), 0.95)
        hits += low <= 0.5 <= high
    assert 0.93 <= hits / 2000 <= 0.99


def test_walsh_interval_estimate_counts_every_pair_once():
    """The estimate is the share of pairs i < j with d_i + d_j > 0 (a zero sum 1/2),
    counted in O(n log n): the same as the O(n^2) count, ties and zeros included."""
    rng = np.random.default_rng(4)
    for n in (2, 3, 10, 57):
        d = np.round(rng.normal(0.3, 1.0, n), 1)
        d[rng.random(n) < 0.2] = 0.0
        sums = d[:, None] + d[None, :]
        kernel = (sums > 0) + 0.5 * (sums == 0)
        upper = np.triu_indices(n, 1)
        estimate, low, high = walsh_interval(d, 0.95)
        assert estimate == pytest.approx(kernel[upper].mean(), abs=1e-12)
        assert 0.0 <= low <= estimate <= high <= 1.0


@pytest.mark.parametrize("n", [10, 30])
def test_walsh_interval_covers_p_prime_of_skewed_differences(n):
    """2000 benchmarks of lognormal differences shifted to a median of 0.2 (skewed, as
    the bench's skewed population): the interval of P(d_i + d_j > 0) holds its true
    value (from 400,000 pairs) at least 0.93 of the time (Monte Carlo SE 0.005)."""
    rng = np.random.default_rng(5)

    def draw(size):
        return rng.lognormal(0.0, 1.0, size) - 0.8

    truth = float(np.mean(draw(400_000) + draw(400_000) > 0))
    hits = 0
    for _ in range(2000):
        _, low, high = walsh_interval(draw(n), 0.95)
        hits += low <= truth <= high
    assert 0.93 <= hits / 2000 <= 0.995


def test_datasets_needed_carries_an_interval_around_it():
    d = np.random.default_rng(6).normal(0.5, 1.0, 30)
    result = pair_power(d, rng=0)
    assert result.needed_low <= result.datasets_needed
    assert result.needed_high is None or result.datasets_needed <= result.needed_high
    # a clear effect has an upper end; a null-looking one has none
    clear = pair_power(np.random.default_rng(7).normal(1.0, 0.5, 30), rng=0)
    assert clear.needed_high is not None and clear.needed_low <= clear.needed_high
    faint = pair_power(np.random.default_rng(8).normal(0.05, 1.0, 10), rng=0)
    assert faint.needed_high is None


def test_advisor_sentence_quotes_the_interval():
    rng = np.random.default_rng(2)
    scores = np.c_[rng.normal(0.5, 1, 30), np.zeros(30)]
    power = advisor_power(scores, 0, 1, ["A", "B"], alpha=0.05, seed=1)
    assert f"95 % confidence interval {power.datasets_needed_low} to" in power.sentence


def test_counts_drawn_in_blocks_are_those_of_one_draw(monkeypatch):
    """Blocks of rows (an odd number of draws each) give the counts of one call."""
    monkeypatch.setattr(power_module, "DRAW_BLOCK", 3 * 333)
    blocked = _drawn_counts(np.random.default_rng(4), 37, 50, 333)
    whole = _draw_counts(np.random.default_rng(4).integers(0, 37, size=(50, 333)), 37)
    np.testing.assert_array_equal(blocked, whole)


def test_size_search_memory_stays_bounded_when_no_size_separates(monkeypatch):
    """No difference on average at n = 300: the size search doubles far beyond n (500 x
    38,400 draws and more, over 150 MB of indices when drawn at once). In blocks the peak
    stays near the (500, n) counts, and the result is the one of whole draws."""
    d = np.random.default_rng(9).normal(0.0, 1.0, 300)
    d -= d.mean()
    tracemalloc.start()
    try:
        result = pair_power(d, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.datasets_needed is None or result.datasets_needed > 100 * d.size
    assert peak < 40 * 2**20
    monkeypatch.setattr(power_module, "DRAW_BLOCK", 10**12)
    assert pair_power(d, rng=0) == result
