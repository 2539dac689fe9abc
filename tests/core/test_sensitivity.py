"""Method sensitivity: Kendall's tau-b between the orders of the methods, and whether
their leaders agree (estimation/core/sensitivity.py)."""

import numpy as np
import pytest
from scipy import stats

from estimation.core.sensitivity import kendall_tau_b, method_sensitivity, sensitivity_sentence


@pytest.mark.parametrize("seed", range(5))
def test_tau_b_matches_scipy_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 6, size=(4, 25)).astype(float)  # many ties
    values[3] = rng.normal(size=25)
    tau = kendall_tau_b(values)
    for i in range(4):
        for j in range(4):
            expected = stats.kendalltau(values[i], values[j]).statistic
            assert tau[i, j] == pytest.approx(expected, abs=1e-12)


def test_tau_b_blocks_give_the_same_numbers(monkeypatch):
    from estimation.core import sensitivity

    values = np.random.default_rng(1).normal(size=(3, 60))
    whole = kendall_tau_b(values)
    monkeypatch.setattr(sensitivity, "MAX_TAU_PAIRS_PER_BLOCK", 7)
    np.testing.assert_allclose(kendall_tau_b(values), whole, atol=1e-14)


def test_float_noise_is_a_tie_and_all_tied_is_undefined():
    values = np.array([[0.1 + 0.2, 0.3, 0.5], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    tau = kendall_tau_b(values)
    # 0.1 + 0.2 and 0.3 tie: tau-b of (t, t, x) against (1, 2, 3)
    assert tau[0, 1] == pytest.approx(stats.kendalltau([0.3, 0.3, 0.5], [1, 2, 3]).statistic)
    assert np.isnan(tau[0, 2]) and np.isnan(tau[2, 2])


def test_agreement_and_sentence():
    names = ("a", "b", "c", "d")
    same = method_sensitivity(
        [("x", np.array([0.4, 0.3, 0.2, 0.1])), ("y", np.array([0.5, 0.2, 0.2, 0.1]))],
        mean_rank=np.array([1.0, 2.0, 3.0, 4.0]),
        names=names,
    )
    assert same.top1_agree and same.top3_agree
    sentence = sensitivity_sentence(same, names, {"x": "X", "y": "Y"})
    assert sentence.startswith("The winner does not depend on the method: every method puts a")

    differ = method_sensitivity(
        [
            ("x", np.array([0.4, 0.3, 0.2, 0.1])),
            ("y", np.array([0.1, 0.5, 0.2, 0.2])),
            ("z", np.array([0.2, 0.6, 0.1, 0.1])),
        ],
        mean_rank=None,
        names=names,
    )
    assert not differ.top1_agree
    assert differ.leaders == (0, 1, 1)
    assert sensitivity_sentence(differ, names, {"x": "X", "y": "Y", "z": "Z"}) == (
        "The winner depends on the method: b under Y, Z; a under X."
    )


def test_equal_leaders_break_by_mean_rank_then_name():
    result = method_sensitivity(
        [("x", np.array([0.5, 0.5, 0.0])), ("y", np.array([0.2, 0.3, 0.5]))],
        mean_rank=np.array([2.0, 1.0, 3.0]),
        names=("a", "b", "c"),
    )
    assert result.leaders[0] == 1 and result.tied_first == (True, False)


def test_the_large_table_path_gives_the_direct_counts(monkeypatch):
    from estimation.core import sensitivity

    rng = np.random.default_rng(2)
    values = rng.integers(0, 9, size=(5, 40)).astype(float)
    values[4] = 1.0  # every algorithm tied: undefined
    direct = kendall_tau_b(values)
    monkeypatch.setattr(sensitivity, "DIRECT_MAX_ALGORITHMS", 10)
    np.testing.assert_allclose(kendall_tau_b(values), direct, atol=1e-12, equal_nan=True)
