"""Comparison with a control (Demšar 2006 §3.2.2; METHODS 4), checked against the paper."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from estimation.core.analysis import analyze
from estimation.core.contract import AnalysisSettings, ControlComparison, NotApplicable
from estimation.core.control import compare_with_control, control_comparison
from estimation.core.table import ResultTable
from tests.core.test_rankings import load_demsar

ALGORITHMS = ("C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf")


def _printed_mean_ranks() -> np.ndarray:
    _, algorithms, ranks = load_demsar("ranks")
    assert algorithms == ALGORITHMS
    return ranks.mean(axis=0)


def test_demsar_holm_with_c45_as_control_reproduces_section_3_2_2():
    """The paper's worked example: SE 0.488; z = 2.416 (C4.5+m+cf, p 0.016), 2.342
    (C4.5+m, p 0.019), 0.512 (C4.5+cf, p 0.607); Holm rejects the first two (alpha/i =
    0.017, 0.025, 0.050). Tolerances: the paper prints three decimals."""
    result = compare_with_control(_printed_mean_ranks(), 14, 0, alpha=0.05)
    assert result.se == pytest.approx(0.488, abs=5e-4)
    np.testing.assert_allclose(result.z[1:], [2.342, 0.512, 2.416], atol=2e-3)
    np.testing.assert_allclose(result.pvalue[1:], [0.019, 0.607, 0.016], atol=1.5e-3)
    assert result.significant_holm.tolist() == [False, True, False, True]
    # Holm: p_(1) = 0.016 < 0.05/3, p_(2) = 0.019 < 0.05/2, p_(3) = 0.607 > 0.05.
    order = np.argsort(result.pvalue[1:])
    thresholds = 0.05 / np.array([3, 2, 1])
    assert (result.pvalue[1:][order][:2] < thresholds[:2]).all()
    assert np.isnan(result.z[0]) and np.isnan(result.pvalue[0])


def test_demsar_bonferroni_dunn_critical_difference():
    """q_0.05 = 2.394 (Demšar Table 5b, m = 4); CD = 2.394 x 0.488 = 1.168 (printed 1.16):
    C4.5+m+cf is significantly better than C4.5 (1.179 > CD), C4.5+m just below (1.143)."""
    result = compare_with_control(_printed_mean_ranks(), 14, 0, alpha=0.05)
    assert result.q_alpha == pytest.approx(2.394, abs=5e-4)
    assert result.critical_difference == pytest.approx(1.168, abs=1e-3)
    assert result.significant_bonferroni_dunn.tolist() == [False, False, False, True]
    # Table 5(b) further: q_0.05 = 1.960, 2.241, 2.498, 2.576 for m = 2, 3, 5, 6.
    for m, q in ((2, 1.960), (3, 2.241), (5, 2.498), (6, 2.576)):
        assert compare_with_control(np.arange(1, m + 1), 10, 0).q_alpha == pytest.approx(
            q, abs=5e-4
        )


def test_adjusted_pvalues_against_a_hand_computation():
    ranks = np.array([1.5, 2.5, 3.0, 3.0])
    result = compare_with_control(ranks, 20, 0, alpha=0.05)
    se = np.sqrt(4 * 5 / (6 * 20))
    raw = 2 * norm.sf(np.abs((1.5 - ranks[1:]) / se))
    np.testing.assert_allclose(result.pvalue[1:], raw)
    np.testing.assert_allclose(result.pvalue_bonferroni_dunn[1:], np.minimum(1, 3 * raw))
    # Holm: sorted p (ties keep order) times 3, 2, 1, made monotone.
    holm = np.maximum.accumulate(np.sort(raw) * np.array([3, 2, 1]))
    np.testing.assert_allclose(np.sort(result.pvalue_holm[1:]), np.minimum(1, holm))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mean_ranks": [1.0], "n_datasets": 5, "control": 0}, "mean_ranks"),
        ({"mean_ranks": [1.0, np.nan], "n_datasets": 5, "control": 0}, "finite"),
        ({"mean_ranks": [1.0, 2.0], "n_datasets": 0, "control": 0}, "n_datasets"),
        ({"mean_ranks": [1.0, 2.0], "n_datasets": 5, "control": 2}, "control"),
        ({"mean_ranks": [1.0, 2.0], "n_datasets": 5, "control": -1}, "control"),
        ({"mean_ranks": [1.0, 2.0], "n_datasets": 5, "control": True}, "control"),
    ],
)
def test_hostile_inputs_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compare_with_control(**kwargs)


def test_the_section_picks_the_setting_else_the_best_mean_rank():
    ranks = tuple(_printed_mean_ranks())
    chosen = control_comparison(ALGORITHMS, ranks, 14, wanted="C4.5", alpha=0.05)
    assert isinstance(chosen, ControlComparison)
    assert chosen.control == "C4.5" and chosen.chosen_by == "setting"
    assert chosen.z[0] is None and chosen.significant_holm == (False, True, False, True)
    fallback = control_comparison(ALGORITHMS, ranks, 14, wanted="nope", alpha=0.05)
    assert fallback.control == "C4.5+m+cf" and fallback.chosen_by == "best_mean_rank"
    page = control_comparison(
        ALGORITHMS, ranks, 14, wanted="C4.5+cf", alpha=0.1, chosen_by_page=True
    )
    assert page.chosen_by == "page" and page.alpha == 0.1
    missing = control_comparison(ALGORITHMS, NotApplicable("top-K"), 14, wanted=None, alpha=0.05)
    assert isinstance(missing, NotApplicable) and "top-K" in missing.reason


def test_the_board_carries_the_default_control_from_the_settings():
    datasets, algorithms, ranks = load_demsar("ranks")
    table = ResultTable(
        datasets=datasets, algorithms=algorithms, values=ranks, kind="rank", higher_is_better=False
    )
    board = analyze(table, AnalysisSettings(bootstrap=0, control="C4.5")).payload.board
    assert isinstance(board.control, ControlComparison)
    assert board.control.control == "C4.5"
    assert board.control.significant_holm == (False, True, False, True)
    assert board.control.critical_difference == pytest.approx(1.168, abs=1e-3)
    other = analyze(table, AnalysisSettings(bootstrap=0, control="absent")).payload.board
    assert other.control.chosen_by == "best_mean_rank"
    assert any("'absent' is not among the ranked algorithms" in note for note in other.notes)


def test_a_blank_control_setting_is_refused():
    with pytest.raises(ValueError, match="control"):
        AnalysisSettings(control="  ")


def test_one_sign_for_z_in_the_code_the_contract_and_the_pages():
    """z > 0 means a better (lower) mean rank than the control, wherever z is defined:
    the computation (checked by hand: R_c - R_a over se), the contract's description,
    the control table and the methods page, which say so in the same words."""
    from pathlib import Path

    from estimation.core import control
    from estimation.core.contract import ControlComparison as Comparison

    result = compare_with_control([2.0, 1.5, 2.5], 6, 0)
    se = np.sqrt(3 * 4 / 36)
    np.testing.assert_allclose(result.z[1:], [(2.0 - 1.5) / se, (2.0 - 2.5) / se], rtol=1e-15)
    assert result.z[1] > 0 > result.z[2]
    stated = "z > 0: the algorithm has a better (lower) mean rank than the control"
    assert stated in " ".join((control.__doc__ or "").replace("``", "").split())
    description = Comparison.__dataclass_fields__["z"].metadata["meaning"]
    assert description.startswith("(R_control - R_a) / se; " + stated)
    templates = Path(__file__).resolve().parents[2] / "frontend" / "templates" / "frontend"
    methods = (templates / "explore" / "methods.html").read_text(encoding="utf-8")
    assert stated.replace(">", "&gt;") in " ".join(methods.split())
    assert "(R<sub>control</sub> − R<sub>a</sub>)" in methods
    table = (templates / "explore" / "_control.html").read_text(encoding="utf-8")
    assert "z &gt; 0: a better (lower) mean rank than the control" in table
    assert "z = (mean rank of the control − mean rank of the algorithm)" in table
