"""Head-to-head records (Wilson interval against statsmodels) and the Pareto front."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from estimation.core.pairwise import pair_record, pareto_front, wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "confidence"),
    [(9, 14, 0.95), (9.5, 14, 0.95), (0, 5, 0.95), (5, 5, 0.9), (1, 1, 0.95), (61.5, 121, 0.99)],
)
def test_wilson_interval_matches_statsmodels(successes, n, confidence):
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    expected = proportion.proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    assert wilson_interval(successes, n, confidence) == pytest.approx(expected, abs=1e-12)


def test_wilson_interval_names_bad_parameters():
    with pytest.raises(ValueError, match="n must"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(6, 5)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 5, 1.0)


def test_pair_record_counts_and_splits_ties():
    record = pair_record([1.0, 0.5, 0.0, -2.0, np.nan, 3.0])
    assert (record.wins, record.ties, record.losses, record.n) == (3, 1, 1, 5)
    assert record.share == pytest.approx(3.5 / 5)
    assert record.lower < record.share < record.upper
    assert (record.lower, record.upper) == pytest.approx(wilson_interval(3.5, 5))
    empty = pair_record([np.nan])
    assert empty.n == 0 and empty.share is None and empty.lower is None


def _front_by_loops(values, higher):
    oriented = [[v if h else -v for v, h in zip(row, higher, strict=True)] for row in values]
    front = []
    for i, row in enumerate(oriented):
        dominated = any(
            all(o >= r for o, r in zip(other, row, strict=True)) and other != row
            for j, other in enumerate(oriented)
            if j != i
        )
        front.append(not dominated)
    return front


def test_pareto_front_small_case_by_hand():
    # accuracy (higher better) and training time (lower better)
    values = np.array(
        [
            [0.90, 100.0],  # a: most accurate
            [0.85, 10.0],  # b: fast and good
            [0.80, 50.0],  # c: dominated by b
            [0.70, 1.0],  # d: fastest
            [0.85, 10.0],  # e: identical to b: both on the front
            [0.90, 120.0],  # f: as accurate as a but slower: dominated by a
        ]
    )
    front = pareto_front(values, [True, False])
    assert front.tolist() == [True, True, False, True, True, False]


def test_pareto_front_matches_brute_force_with_ties():
    rng = np.random.default_rng(3)
    for m, k in itertools.product((1, 2, 7, 40), (1, 2, 3)):
        values = rng.integers(0, 5, size=(m, k)).astype(float)  # many ties
        higher = [bool(b) for b in rng.integers(0, 2, size=k)]
        assert pareto_front(values, higher).tolist() == _front_by_loops(values.tolist(), higher)


def test_pareto_front_validates():
    with pytest.raises(ValueError, match="2-D"):
        pareto_front(np.zeros(3), [True])
    with pytest.raises(ValueError, match="one direction per column"):
        pareto_front(np.zeros((3, 2)), [True])
    with pytest.raises(ValueError, match="finite"):
        pareto_front(np.array([[np.nan, 1.0]]), [True, True])
