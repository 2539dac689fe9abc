"""The within-dataset z-test by the source's per-cell standard errors (issue 42): its
p-values against scipy.stats.norm, its Holm family against statsmodels, its effect on the
significance-aware ranks, and no effect where there are no standard errors or folds win."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from estimation.core.analysis import analyze
from estimation.core.significance import adjust_pvalues
from estimation.core.table import ResultTable
from estimation.core.within_dataset import standard_error_aware_ranks, standard_error_tests


def test_the_z_test_is_scipys_two_sided_normal_test_within_1e_12():
    rng = np.random.default_rng(42)
    scores = rng.normal(0.7, 0.05, size=(20, 6))
    errors = rng.uniform(0.001, 0.05, size=(20, 6))
    tests = standard_error_tests(scores, errors)
    for i, a, b in [(0, 0, 1), (3, 2, 5), (19, 4, 0)]:
        z = (scores[i, a] - scores[i, b]) / np.sqrt(errors[i, a] ** 2 + errors[i, b] ** 2)
        assert tests.z[i, a, b] == pytest.approx(z, rel=1e-12)
        assert tests.pvalues[i, a, b] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    upper = np.triu_indices(6, 1)
    for i in range(20):
        holm = multipletests(tests.pvalues[i][upper], method="holm")[1]
        np.testing.assert_allclose(tests.pvalues_corrected[i][upper], holm, rtol=1e-12)


def test_holm_by_rows_is_holm_of_each_row_and_leaves_untested_pairs_out():
    rng = np.random.default_rng(7)
    pvalues = rng.uniform(0, 0.2, size=(5, 10))
    pvalues[1, [2, 5]] = np.nan
    pvalues[4] = np.nan
    rows = adjust_pvalues(pvalues)
    for i in range(5):
        np.testing.assert_array_equal(rows[i], adjust_pvalues(pvalues[i]))
    kept = ~np.isnan(pvalues[1])
    np.testing.assert_allclose(
        rows[1][kept], multipletests(pvalues[1][kept], method="holm")[1], rtol=1e-12
    )
    bonferroni = adjust_pvalues(pvalues, correction="bonferroni")
    np.testing.assert_allclose(bonferroni[1][kept], np.minimum(1, 8 * pvalues[1][kept]))


def test_a_difference_within_the_combined_uncertainty_is_not_a_win():
    # a and b differ by 0.01 with SE 0.01 each (z = 0.71); c is 0.10 behind (z = 7.1).
    scores = np.array([[0.70, 0.69, 0.60]])
    errors = np.full((1, 3), 0.01)
    np.testing.assert_array_equal(standard_error_aware_ranks(scores, errors), [[1, 1, 3]])
    # Without a standard error on b, no pair of b is tested; a still beats c.
    errors[0, 1] = np.nan
    np.testing.assert_array_equal(standard_error_aware_ranks(scores, errors), [[1, 1, 2]])
    # No two cells with an SE: no test at all.
    errors[0, 0] = np.nan
    assert np.isnan(standard_error_aware_ranks(scores, errors)).all()


def test_zero_standard_errors_decide_by_the_scores_alone():
    tests = standard_error_tests(np.array([[0.5, 0.4, 0.5]]), np.zeros((1, 3)))
    assert tests.z[0, 0, 1] == np.inf and tests.pvalues[0, 0, 1] == 0
    assert tests.z[0, 0, 2] == 0 and tests.pvalues[0, 0, 2] == 1


VALUES = np.array([[0.70, 0.69, 0.60], [0.50, 0.52, 0.30], [0.80, 0.70, 0.79]])
NAMES = (("d1", "d2", "d3"), ("a", "b", "c"))


def _payload(**extra):
    table = ResultTable(*NAMES, VALUES, **extra)
    return analyze(table, advisor=False, uncertainty=False).payload


def test_the_board_counts_only_differences_beyond_the_standard_errors():
    payload = _payload(standard_errors=np.full((3, 3), 0.01))
    within = payload.within_dataset
    d1 = within.entry("d1")
    assert d1.standard_errors is not None and d1.standard_errors.significant == (False, True, True)
    assert d1.significance_rank == (1.0, 1.0, 3.0)
    # d3: a 0.80, c 0.79 (z 0.71, not separable), b 0.70 behind both.
    assert within.entry("d3").significance_rank == (1.0, 3.0, 1.0)
    assert payload.board.significance_rank == pytest.approx((1.0, 5 / 3, 7 / 3))


def test_without_standard_errors_the_results_are_todays():
    today = _payload().to_json()
    assert today["within_dataset"] == {"not_applicable": "the results have no folds"}
    assert _payload(standard_errors=np.full((3, 3), np.nan)).to_json() == today
    assert _payload(standard_errors=np.array([[0.01, np.nan, np.nan]] * 3)).to_json() == today


def test_folds_win_over_standard_errors():
    rng = np.random.default_rng(3)
    folds = rng.normal(0.7, 0.02, size=(3, 5, 3))
    means = folds.mean(axis=1)
    table = ResultTable(*NAMES, means, fold_values=folds)
    with_errors = ResultTable(
        *NAMES, means, fold_values=folds, standard_errors=np.full((3, 3), 1.0)
    )
    plain = analyze(table, advisor=False, uncertainty=False).payload.to_json()
    both = analyze(with_errors, advisor=False, uncertainty=False).payload.to_json()
    assert both["within_dataset"] == plain["within_dataset"]
    assert both["board"]["significance_rank"] == plain["board"]["significance_rank"]


def test_the_text_report_says_which_datasets_were_tested_by_standard_errors():
    from estimation.report import _within_datasets_line

    line = _within_datasets_line(_payload(standard_errors=np.full((3, 3), 0.01)).within_dataset)
    assert "on folds: 0; z-tests by the files' standard errors, Holm per dataset: 3" in line


def test_above_the_pairwise_bound_the_standard_errors_are_not_compared_pair_by_pair(
    monkeypatch,
):
    # Holm needs every pair of a dataset at once: an m x m array, refused above the bound.
    from estimation.core import significance_sections, within_dataset
    from estimation.core.analysis import AnalysisSettings
    from estimation.core.pairwise_scope import MAX_PAIRWISE_ALGORITHMS
    from estimation.core.rankings import prepare_rankings

    def refused(*args, **kwargs):
        raise AssertionError("an m x m comparison above the pairwise bound")

    monkeypatch.setattr(within_dataset, "standard_error_aware_ranks", refused)
    m = MAX_PAIRWISE_ALGORITHMS + 1
    scores = np.random.default_rng(0).normal(0.7, 0.05, size=(2, m))
    algorithms = tuple(f"a{j}" for j in range(m))
    errors = np.full((2, m), 0.01)
    table = ResultTable(("d1", "d2"), algorithms, scores, standard_errors=errors)
    ranks, section = significance_sections.tests_within_datasets(
        prepare_rankings(table), AnalysisSettings()
    )
    assert section.reason == ranks.reason == "the results have no folds"
