"""Friedman, Nemenyi, pairwise Wilcoxon and groups (METHODS 4) against Demšar 2006 and peers."""

import json
import warnings

import numpy as np
import pytest
from autorank._util import _critical_distance
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from estimation.core.significance import (
    adjust_pvalues,
    cd_groups,
    compact_letter_display,
    friedman,
    indistinguishable_groups,
    indistinguishable_groups_by_distance,
    nemenyi,
    signed_rank,
    wilcoxon_pairwise,
)
from estimation.core.within_dataset import fold_wilcoxon_pairwise
from tests.reference_data import PUBLISHED_DATA

DEMSAR = PUBLISHED_DATA / "demsar2006"


def _read_wide(path):
    rows = path.read_text().strip().splitlines()[1:]
    return np.array([[float(x) for x in row.split(",")[-4:]] for row in rows])


@pytest.fixture(scope="module")
def demsar_ranks():
    return _read_wide(DEMSAR / "demsar2006_table6_ranks_as_printed.csv")


@pytest.fixture(scope="module")
def demsar_auc():
    return _read_wide(DEMSAR / "demsar2006_table6_auc.csv")


def _scikit_posthocs():
    """Import scikit-posthocs 0.11.4, which still imports ``multipletests`` from the
    module statsmodels 0.15 moved it out of; restore the old name for the import."""
    import statsmodels.sandbox.stats.multicomp as multicomp

    if not hasattr(multicomp, "multipletests"):
        multicomp.multipletests = multipletests
    import scikit_posthocs

    return scikit_posthocs


def _json(result):
    return json.loads(json.dumps(result.to_dict(), allow_nan=False))


# ---------------------------------------------------------------------------- Friedman


def test_friedman_reproduces_demsar_table6_from_printed_ranks(demsar_ranks):
    result = friedman(demsar_ranks)
    np.testing.assert_allclose(result.mean_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert result.statistic_uncorrected == pytest.approx(9.28, abs=5e-3)  # as printed
    assert result.statistic_uncorrected == pytest.approx(9.279, abs=5e-4)  # PROVENANCE
    assert result.iman_davenport_uncorrected == pytest.approx(3.69, abs=5e-3)
    assert result.iman_davenport_uncorrected == pytest.approx(3.686, abs=5e-4)
    assert result.iman_davenport_df == (3, 39)
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)  # critical F, printed
    _json(result)


def test_friedman_from_auc_values_matches_provenance_and_scipy(demsar_auc):
    result = friedman(stats.rankdata(-demsar_auc, axis=1))
    assert result.statistic_uncorrected == pytest.approx(9.857, abs=5e-4)
    assert result.iman_davenport_uncorrected == pytest.approx(3.987, abs=5e-4)
    assert result.statistic == pytest.approx(10.95, abs=5e-3)
    reference = stats.friedmanchisquare(*demsar_auc.T)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(reference.pvalue, rel=1e-10)
    f_corrected = 13 * result.statistic / (14 * 3 - result.statistic)
    assert result.iman_davenport == pytest.approx(f_corrected, rel=1e-12)
    assert result.iman_davenport_pvalue == pytest.approx(stats.f.sf(f_corrected, 3, 39), rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 15), st.integers(3, 8), st.integers(0, 10_000))
def test_friedman_matches_scipy_with_ties(n, m, seed):
    scores = np.round(np.random.default_rng(seed).normal(size=(n, m)), 0)
    result = friedman(stats.rankdata(-scores, axis=1))
    if result.not_applicable is not None:
        assert np.all(scores == scores[:, :1])
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = stats.friedmanchisquare(*scores.T)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-10)
    assert result.pvalue == pytest.approx(reference.pvalue, rel=1e-8, abs=1e-300)


def test_friedman_not_applicable_reasons():
    assert "two datasets" in friedman(np.array([[1.0, 2.0, 3.0]])).not_applicable
    assert "two algorithms" in friedman(np.ones((5, 1))).not_applicable
    assert "ties all" in friedman(np.full((4, 3), 2.0)).not_applicable
    top3 = np.tile([1.0, 2.0, 3.0, 5.5, 5.5, 5.5, 5.5], (6, 1))
    result = friedman(top3, known_positions=3)
    assert "top 3" in result.not_applicable
    assert _json(result)["statistic"] is None
    assert "top 3" in nemenyi(top3, known_positions=3).not_applicable


def test_friedman_perfect_agreement_has_infinite_f():
    result = friedman(np.tile([1.0, 2.0, 3.0], (5, 1)))
    assert result.statistic == pytest.approx(10.0)  # n (m - 1)
    assert result.iman_davenport is None
    assert result.iman_davenport_pvalue is None  # was 0.0 before
    assert "identically" in result.iman_davenport_not_applicable
    assert result.exact_pvalue == pytest.approx(6.0**-4, rel=1e-15)  # (m!)^(1 - n)


def test_perfect_agreement_regression_m2_n2_exact_p_half():
    """Regression: m = 2, n = 2 in the same order: exact p 0.5, never F = inf."""
    from estimation.core.analysis import AnalysisSettings, analyze
    from estimation.core.contract import NotApplicable
    from estimation.core.table import ResultTable
    from estimation.report import render_report

    table = ResultTable(("d1", "d2"), ("A", "B"), np.array([[0.9, 0.8], [0.7, 0.6]]))
    result = friedman(np.array([[1.0, 2.0], [1.0, 2.0]]))
    assert result.exact_pvalue == 0.5 and result.iman_davenport_pvalue is None
    payload = analyze(table, AnalysisSettings(bootstrap=0)).payload
    board = payload.board
    assert isinstance(board.friedman.iman_davenport, NotApplicable)
    assert isinstance(board.friedman.iman_davenport_pvalue, NotApplicable)
    assert board.friedman.exact_pvalue == 0.5
    report = render_report(payload)
    assert "F = inf" not in report and "exact p = 0.500" in report


def test_exact_agreement_pvalue_with_ties_counts_arrangements():
    # Ranks (1.5, 1.5, 3) on three datasets: 3 arrangements each, p = 3^-2.
    result = friedman(np.tile([1.5, 1.5, 3.0], (3, 1)))
    assert result.exact_pvalue == pytest.approx(1 / 9, rel=1e-15)


# ---------------------------------------------------------------------------- Nemenyi


def test_nemenyi_reproduces_demsar_critical_differences(demsar_ranks):
    at_05 = nemenyi(demsar_ranks, alpha=0.05)
    assert at_05.q_alpha / np.sqrt(2) == pytest.approx(2.569, abs=5e-4)
    assert at_05.critical_difference == pytest.approx(1.25, abs=5e-3)
    assert not at_05.significant.any()
    at_10 = nemenyi(demsar_ranks, alpha=0.10)
    assert at_10.q_alpha / np.sqrt(2) == pytest.approx(2.291, abs=5e-4)
    assert at_10.critical_difference == pytest.approx(1.12, abs=5e-3)
    # C4.5 is significantly worse than C4.5+m and C4.5+m+cf, nothing else.
    expected = np.zeros((4, 4), dtype=bool)
    expected[0, [1, 3]] = expected[[1, 3], 0] = True
    np.testing.assert_array_equal(at_10.significant, expected)
    _json(at_10)


def test_nemenyi_matches_scikit_posthocs_and_autorank():
    scores = np.round(np.random.default_rng(8).normal(size=(30, 6)) + np.linspace(0, 1.5, 6), 1)
    ranks = stats.rankdata(-scores, axis=1)
    result = nemenyi(ranks)
    reference = _scikit_posthocs().posthoc_nemenyi_friedman(scores).to_numpy()
    # Our studentized range (own quadrature) is within 1e-6 relative of scipy; measured
    # far closer here (1e-7 relative holds).
    np.testing.assert_allclose(result.pvalues, reference, rtol=1e-7, atol=1e-13)
    # autorank interpolates q from statsmodels' tables (qsturng): agreement to 1e-3.
    assert result.critical_difference == pytest.approx(_critical_distance(0.05, 6, 30), rel=1e-3)


# ---------------------------------------------------------------------------- Wilcoxon


def _scipy_wilcoxon(*samples):
    """scipy's two-sided Wilcoxon test (its "auto" method) on the differences or the two
    paired samples: (p-value, statistic)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.wilcoxon(*samples)
    return float(result.pvalue), float(result.statistic)


def _kept_wilcoxon(peer_reference, *samples):
    """:func:`_scipy_wilcoxon`, kept between runs (tests/reference_memo.py); computed
    afresh without ``peer_reference``."""
    if peer_reference is None:
        return _scipy_wilcoxon(*samples)
    return peer_reference("scipy-wilcoxon", _scipy_wilcoxon, *samples, under_test=signed_rank)


def _scipy_pair(peer_reference, x, y):
    """scipy's test on the exact decimal differences of the pair's common results (the
    engine's rule: differences equal in decimal are ties; see
    test_differences_equal_in_decimal_are_ties): (p-value, statistic)."""
    both = ~np.isnan(x) & ~np.isnan(y)
    return _kept_wilcoxon(peer_reference, _decimal_differences(x[both], y[both]))


@pytest.mark.parametrize("n", [4, 9, 13, 14, 30, 50, 51, 120])
def test_wilcoxon_pairwise_is_identical_to_scipy(n, peer_reference):
    rng = np.random.default_rng(n)
    scores = rng.normal(size=(n, 5))
    scores[:, 1] = np.round(scores[:, 1], 1)
    scores[:, 2] = np.round(scores[:, 2] * 2) / 2  # many ties and zeros against column 3
    scores[:, 3] = np.round(scores[:, 3] * 2) / 2
    scores[rng.random(n) < 0.1, 4] = np.nan  # missing results
    result = wilcoxon_pairwise(scores)
    methods = set()
    for a in range(5):
        for b in range(a + 1, 5):
            pvalue, statistic = _scipy_pair(peer_reference, scores[:, a], scores[:, b])
            assert result.pvalues[a, b] == pvalue  # bit for bit
            assert result.statistic[a, b] == statistic
            methods.add(result.method[a][b])
    assert methods <= {"exact", "permutation", "asymptotic"}


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 60), st.integers(0, 10_000), st.sampled_from([0, 1]))
def test_wilcoxon_pairwise_matches_scipy_randomly(n, seed, decimals):
    # hypothesis draws other tables each run: references kept for them would only pile up
    scores = np.round(np.random.default_rng(seed).normal(size=(n, 3)), decimals)
    result = wilcoxon_pairwise(scores, correction="bonferroni")
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        if result.not_applicable[a][b] is not None:
            assert (scores[:, a] == scores[:, b]).all()
            continue
        assert result.pvalues[a, b] == _scipy_pair(None, scores[:, a], scores[:, b])[0]


def test_wilcoxon_corrections_match_statsmodels():
    scores = np.random.default_rng(9).normal(size=(25, 6)) + np.linspace(0, 1, 6)
    upper = np.triu_indices(6, 1)
    for correction in ("holm", "bonferroni"):
        result = wilcoxon_pairwise(scores, correction=correction)
        reference = multipletests(result.pvalues[upper], method=correction)[1]
        np.testing.assert_allclose(result.pvalues_corrected[upper], reference, rtol=1e-12)
        np.testing.assert_array_equal(result.significant[upper], reference < 0.05)
    np.testing.assert_allclose(adjust_pvalues([0.01, np.nan, 0.04]), [0.02, np.nan, 0.04])


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_pairs_identical_everywhere_stay_in_the_correction_family(correction):
    """a and b are identical on every dataset, c beats both on all four: the two tested
    pairs have the exact p = 2/16. Holm over all three pairs (the identical one with
    p = 1) gives 0.375 for both, as statsmodels does; leaving the identical pair out
    gave 0.25. Within a dataset (folds as blocks) the same."""
    a = np.array([0.1, 0.2, 0.3, 0.4])
    scores = np.column_stack([a, a, a + 1.0])
    upper = np.triu_indices(3, 1)
    for result in (
        wilcoxon_pairwise(scores, correction=correction),
        fold_wilcoxon_pairwise(scores, correction=correction),
    ):
        np.testing.assert_array_equal(result.pvalues[upper], [1.0, 0.125, 0.125])
        reference = multipletests([1.0, 0.125, 0.125], method=correction)[1]
        np.testing.assert_allclose(result.pvalues_corrected[upper], reference, rtol=1e-15)
        assert result.pvalues_corrected[0, 2] == pytest.approx(0.375, rel=1e-15)
        assert result.not_applicable[0, 1].startswith("identical on every")


def test_rank_biserial_hand_computation_and_antisymmetry():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = np.array([0.0, 0.5, 3.0, 5.0, 4.5])
    # differences 1, 1.5, 0, -1, 0.5: |d| ranks (zero dropped) 1->2.5, 1.5->4, 1->2.5, 0.5->1
    # R+ = 2.5 + 4 + 1 = 7.5, R- = 2.5 -> r = 5 / 10
    result = wilcoxon_pairwise(np.column_stack([x, y]))
    assert result.effect_size[0, 1] == pytest.approx(0.5, abs=1e-15)
    assert result.effect_size[1, 0] == pytest.approx(-0.5, abs=1e-15)
    assert result.statistic[0, 1] == 2.5


def test_wilcoxon_not_applicable_pairs_have_reasons():
    scores = np.array([[1.0, 1.0, np.nan], [2.0, 2.0, np.nan], [3.0, 3.0, 1.0]])
    scores = np.column_stack([scores, [np.nan, np.nan, np.nan]])
    result = wilcoxon_pairwise(scores)
    # Identical on every dataset gives p = 1 with a note, not a missing p-value.
    assert result.not_applicable[0][1] == (
        "identical on every dataset: all 3 paired differences are zero, p = 1"
    )
    assert result.not_applicable[0][3] == "no dataset with results for both algorithms"
    assert result.not_applicable[0][2] is None
    data = _json(result)
    assert data["pvalues"][0][1] == 1.0 and data["pvalues_corrected"][0][1] == 1.0
    assert data["effect_size"][0][1] == 0.0
    assert data["pvalues"][0][3] is None
    assert data["pvalues_corrected"][0][2] == pytest.approx(1.0)
    assert not result.significant.any()


# ---------------------------------------------------------------------------- groups


def test_cd_groups_and_letters_hand_example():
    # Mean-rank order 0 < 1 < 2 < 3; significant: 0-2, 0-3, 1-3.
    significant = np.zeros((4, 4), dtype=bool)
    for a, b in [(0, 2), (0, 3), (1, 3)]:
        significant[a, b] = significant[b, a] = True
    mean_ranks = np.array([1.0, 2.0, 3.0, 4.0])
    assert cd_groups(significant, mean_ranks) == [(0, 1), (1, 2), (2, 3)]
    assert compact_letter_display(significant, mean_ranks) == ("a", "ab", "bc", "c")
    relabel = np.array([2, 0, 3, 1])  # new index i holds old algorithm relabel[i]
    groups = indistinguishable_groups(significant[np.ix_(relabel, relabel)], mean_ranks[relabel])
    assert groups.bars == ((1, 3), (3, 0), (0, 2))
    assert groups.letters == ("bc", "a", "c", "ab")


def test_groups_non_contiguous_clique_gets_a_letter_but_no_bar():
    # 1 differs from 0 and 2, but 0 and 2 do not differ from each other.
    significant = np.zeros((3, 3), dtype=bool)
    significant[0, 1] = significant[1, 0] = significant[1, 2] = significant[2, 1] = True
    mean_ranks = np.array([1.0, 2.0, 3.0])
    assert cd_groups(significant, mean_ranks) == [(0,), (1,), (2,)]
    assert compact_letter_display(significant, mean_ranks) == ("a", "b", "a")


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.integers(0, 10_000))
def test_letters_shared_iff_not_significant(m, seed):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((m, m)) < 0.4, 1)
    significant = upper | upper.T
    mean_ranks = rng.random(m)
    letters = compact_letter_display(significant, mean_ranks)
    for a in range(m):
        for b in range(m):
            if a != b:
                assert bool(set(letters[a]) & set(letters[b])) == (not significant[a, b])
    for bar in cd_groups(significant, mean_ranks):
        assert not significant[np.ix_(bar, bar)].any()


def test_wilcoxon_pairwise_with_ties_zeros_and_gaps_matches_scipy_on_many_observations(
    peer_reference,
):
    rng = np.random.default_rng(21)
    scores = np.round(rng.normal(size=(70, 5)) + np.arange(5) * 0.2, 1)
    scores[:, 4] = scores[:, 3]
    scores[:5, 3] += 0.5
    scores[rng.random(scores.shape) < 0.1] = np.nan
    result = wilcoxon_pairwise(scores)
    for a in range(5):
        for b in range(a + 1, 5):
            pvalue, statistic = _scipy_pair(peer_reference, scores[:, a], scores[:, b])
            assert result.pvalues[a, b] == pvalue
            assert result.statistic[a, b] == statistic


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_wilcoxon_on_scores_of_both_signs_near_the_float_limit():
    """Differences of scores near +-1.7e308 overflowed to infinity (and tied there); the
    test does not depend on the scale, so it equals scipy's on the halved scores (exact)."""
    rng = np.random.default_rng(3)
    scores = rng.uniform(0.5, 1.0, size=(8, 3)) * np.array([1.7e308, -1.7e308, 1.7e308])
    result = wilcoxon_pairwise(scores)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        expected = stats.wilcoxon(scores[:, a] / 2, scores[:, b] / 2)
        assert result.pvalues[a, b] == pytest.approx(expected.pvalue, rel=1e-12)


def _decimal_differences(x, y):
    """Exact decimal differences of scores read from their shortest repr (as parsed)."""
    from fractions import Fraction

    return np.array(
        [
            float(Fraction(repr(float(a))) - Fraction(repr(float(b))))
            for a, b in zip(x, y, strict=True)
        ]
    )


def _rank_biserial(differences):
    nonzero = differences[differences != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    plus, minus = ranks[nonzero > 0].sum(), ranks[nonzero < 0].sum()
    return (plus - minus) / (plus + minus)


def test_differences_equal_in_decimal_are_ties():
    """0.70 - 0.68 and 0.52 - 0.50 are both 0.02 in decimal but 0.019999999999999907 and
    0.020000000000000018 in floats: scipy on the floats ranks them 1 and 2 (p 0.875,
    r -0.2); on the exact decimal differences they tie (p 1.0, r -0.1). Podium gives the
    decimal answer, across datasets and over the folds of one dataset."""
    a = np.array([0.70, 0.50, 0.33, 0.26])
    b = np.array([0.68, 0.52, 0.30, 0.30])
    assert stats.wilcoxon(a, b).pvalue == 0.875  # the fragility is in the floats
    exact = _decimal_differences(a, b)
    expected = stats.wilcoxon(exact)
    assert expected.pvalue == pytest.approx(1.0, abs=1e-15)
    assert _rank_biserial(exact) == pytest.approx(-0.1, abs=1e-15)
    for result in (
        wilcoxon_pairwise(np.column_stack([a, b])),
        fold_wilcoxon_pairwise(np.column_stack([a, b])),
    ):
        assert result.pvalues[0, 1] == pytest.approx(expected.pvalue, abs=1e-15)
        assert result.effect_size[0, 1] == pytest.approx(-0.1, abs=1e-15)
        assert result.statistic[0, 1] == expected.statistic


PERMUTATION_PAIRS = 8


def _scipy_permutes(differences: np.ndarray) -> bool:
    """scipy.stats.wilcoxon's "auto" method runs a permutation test for at most 13
    differences with ties or zeros (scipy/stats/_wilcoxon.py)."""
    nonzero = np.abs(differences)
    has_ties_or_zeros = len(np.unique(nonzero)) < len(nonzero) or not nonzero.all()
    return len(differences) <= 13 and has_ties_or_zeros


def test_wilcoxon_agrees_with_exact_decimal_differences_on_random_tables(peer_reference):
    """115 random tables of scores with two decimals (as accuracies are published):
    every pair's p-value and rank-biserial equal scipy's on the exact decimal
    differences (scipy on the float differences disagrees on dozens of pairs). Exact
    and permutation p-values are sums of exact counts; the normal approximation is a
    few elementary calls: 1e-12 relative is far above any rounding there. scipy's
    reference for a tied sample of at most 13 is a permutation test over 2**n sign
    flips at about 0.1 s each, so it is taken for the first PERMUTATION_PAIRS such
    pairs only (of about 40); every other pair is compared."""
    rng = np.random.default_rng(115)
    float_disagreements = permutation_pairs = 0
    for _ in range(115):
        n, m = int(rng.integers(5, 60)), int(rng.integers(2, 6))
        scores = np.round(rng.uniform(0.3, 1.0, (n, m)), 2)
        result = wilcoxon_pairwise(scores)
        for i, j in zip(*np.triu_indices(m, 1), strict=True):
            exact = _decimal_differences(scores[:, i], scores[:, j])
            if not exact.any():
                continue
            if _scipy_permutes(exact):
                permutation_pairs += 1
                if permutation_pairs > PERMUTATION_PAIRS:
                    continue
            expected = _kept_wilcoxon(peer_reference, exact)[0]
            assert result.pvalues[i, j] == pytest.approx(expected, rel=1e-12)
            assert result.effect_size[i, j] == pytest.approx(_rank_biserial(exact), abs=1e-12)
            floats = _kept_wilcoxon(peer_reference, scores[:, i], scores[:, j])[0]
            float_disagreements += floats != expected
    assert permutation_pairs > PERMUTATION_PAIRS  # the cap did bite: both paths were compared
    assert float_disagreements > 20


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 60),
    st.integers(0, 10_000),
    st.floats(0.0, 3.0),
    st.booleans(),
)
def test_groups_by_distance_equal_the_groups_of_the_whole_matrix(m, seed, threshold, ties):
    """A significance that grows with the distance of the mean ranks gives the same
    bars and letters from pairs evaluated on demand as from its m x m matrix."""
    rng = np.random.default_rng(seed)
    mean_ranks = rng.uniform(1, 1 + m / 4, m)
    if ties:
        mean_ranks = np.round(mean_ranks * 2) / 2

    def differ(first, second):
        return np.abs(np.asarray(first) - np.asarray(second)) > threshold

    significant = differ(mean_ranks[:, None], mean_ranks[None, :])
    by_distance = indistinguishable_groups_by_distance(mean_ranks, differ)
    assert by_distance == indistinguishable_groups(significant, mean_ranks)


def test_no_algorithms_make_no_groups():
    nothing, no_ranks = np.zeros((0, 0), dtype=bool), np.zeros(0)
    assert cd_groups(nothing, no_ranks) == []
    groups = indistinguishable_groups(nothing, no_ranks)
    assert groups.bars == () and groups.letters == ()
