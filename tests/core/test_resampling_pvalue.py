"""The evaluation's small-sample Wilcoxon p-value is scipy's, bit for bit, and fast.

Where ``scipy.stats.wilcoxon`` runs its exact permutation test (at most 13 paired
differences with ties or zeros), ``resampling._small_sample_p_value`` computes the same
p-value with the vectorised signed-rank tests of ``significance`` instead of 2**n
Python-level statistic calls.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy.stats import wilcoxon

from estimation.core.resampling import _paired_p_value, _small_sample_p_value


def cases():
    rng = np.random.default_rng(11)
    for n in SIZES:
        # scipy's own path takes about a second at n = 13: few samples there.
        for _ in range(12 if n <= 8 else 2):
            # Small integers: many ties and zeros; halves too.
            yield rng.integers(-4, 5, size=n).astype(float) / rng.choice([1.0, 2.0])
        yield [*np.zeros(n - 1).tolist(), 1.0]  # one non-zero
        yield np.ones(n)  # all tied


SIZES = (2, 3, 5, 8, 11, 13)


@pytest.mark.parametrize("n", SIZES)
def test_equal_to_scipy_bit_for_bit(n):
    checked = 0
    for d in cases():
        d = np.asarray(d, dtype=float)
        if d.size != n or not d.any():
            continue
        ours = _small_sample_p_value(d.copy())
        theirs = float(wilcoxon(d).pvalue)
        if ours is None:  # no ties and no zeros: scipy's exact path is used as is
            assert np.unique(np.abs(d)).size == n and (d != 0).all()
            continue
        assert ours == theirs, (d.tolist(), ours, theirs)
        checked += 1
    assert checked > 0


def test_larger_or_untied_samples_are_left_to_scipy():
    assert _small_sample_p_value(np.arange(1.0, 15.0)) is None  # 14 differences
    assert _small_sample_p_value(np.array([0.5, -1.5, 2.5, 3.0])) is None  # no ties
    assert _small_sample_p_value(np.array([1.0, np.nan, 1.0])) is None


def test_a_tied_sample_of_twelve_takes_milliseconds():
    losses = np.array([0.3, 0.3, 0.2, 0.5, 0.1, 0.3, 0.2, 0.4, 0.1, 0.3, 0.2, 0.25])
    best = np.array([0.2, 0.3, 0.1, 0.4, 0.1, 0.2, 0.2, 0.3, 0.0, 0.1, 0.1, 0.05])
    started = time.perf_counter()
    ours = _paired_p_value(losses.copy(), best)
    assert time.perf_counter() - started < 0.5
    assert ours == float(wilcoxon(losses - best).pvalue)
