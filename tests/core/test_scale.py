"""The scale work (large boards): the same numbers as before, no refusal, bounded memory.

The reference (``tests/core/data/scale_reference.json`` and ``.npz``) holds the numbers
of the engine of commit 0bf631f, before this work; see :mod:`tests.core.scale_reference`.
Floats are compared within the tolerances of :mod:`tests.core.references`, so the tests
hold on any CPU.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from estimation.core import significance
from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import NotApplicable, to_json
from estimation.core.significance import (
    MAX_CD_ALGORITHMS,
    MAX_LETTERS_PER_ALGORITHM,
    cd_groups,
    compact_letter_display,
    indistinguishable_groups,
    wilcoxon_pairwise,
)
from estimation.core.table import ResultTable
from tests.core import scale_reference
from tests.core.references import (
    CLOSED_FORM,
    ITERATIVE,
    STUDENTIZED_RANGE,
    assert_close_arrays,
    reference_mismatches,
)

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "scale_reference.json").read_text(encoding="utf-8"))
with np.load(DATA / "scale_reference.npz") as _floats:
    REFERENCE_FLOATS = {key: _floats[key] for key in _floats.files}


@pytest.fixture(scope="module")
def results():
    return scale_reference.reference_results()


def test_tests_and_groups_are_those_of_before(results):
    """Every p-value, statistic, effect, reason, bar and letter as before, up to 200
    algorithms, with ties, zero differences and missing values; the one deliberate
    change is that letters an algorithm would carry more of than the alphabet has are
    now not applicable. Exact results are compared by digest, floats within
    :data:`~tests.core.references.CLOSED_FORM`, the Nemenyi p-values within
    :data:`~tests.core.references.STUDENTIZED_RANGE` (one interpolant for every
    batch size)."""
    expected, got = REFERENCE["digests"], results["digests"]
    assert got.keys() == expected.keys()
    changed = []
    for key, digest in expected.items():
        if key.endswith("/letters") and expected[key.replace("/letters", "/most_letters")] > (
            MAX_LETTERS_PER_ALGORITHM
        ):
            assert got[key.replace("/letters", "/most_letters")] is None, key
            changed.append(key)
            continue
        if key.endswith("/most_letters") and digest > MAX_LETTERS_PER_ALGORITHM:
            continue
        assert got[key] == digest, key
    # The reference holds both kinds: labels short enough (kept) and too long (dropped).
    assert changed == ["asymptotic_200/nemenyi/letters", "asymptotic_200/wilcoxon/letters"]
    assert results["floats"].keys() == REFERENCE_FLOATS.keys()
    for key, values in REFERENCE_FLOATS.items():
        tolerance = STUDENTIZED_RANGE if key.endswith("/nemenyi/pvalues") else CLOSED_FORM
        assert_close_arrays(results["floats"][key], values, tolerance, key)


def test_refreshed_corrections_are_holm_and_bonferroni_over_every_pair():
    """The two arrays rewritten when identical pairs joined the family are
    statsmodels' corrections of the reference's own raw p-values over all pairs, the
    identical pair at p = 1 (before, that pair was left out: 0.756836 where all pairs
    give 0.757812)."""
    from statsmodels.stats.multitest import multipletests

    raw = REFERENCE_FLOATS["integers/wilcoxon/pvalues"]
    upper = np.triu_indices(raw.shape[0], 1)
    identical = np.isnan(raw[upper])
    assert identical.sum() == 1
    family = np.where(identical, 1.0, raw[upper])
    for key, method in zip(
        scale_reference.REFRESHED_FOR_THE_WHOLE_FAMILY, ("holm", "bonferroni"), strict=True
    ):
        expected = multipletests(family, method=method)[1]
        stored = REFERENCE_FLOATS[key][upper]
        assert np.isnan(stored[identical]).all()
        np.testing.assert_allclose(stored[~identical], expected[~identical], rtol=1e-12)


def _decimal_differences(x, y):
    from fractions import Fraction

    return np.array(
        [
            float(Fraction(repr(float(a))) - Fraction(repr(float(b))))
            for a, b in zip(x, y, strict=True)
        ]
    )


def _scipy_wilcoxon(differences):
    """scipy's two-sided Wilcoxon test (its "auto" method) on the differences: p-value."""
    return float(stats.wilcoxon(differences).pvalue)


@pytest.mark.parametrize("name", ["rounded_gaps", "rounded_many"])
def test_refreshed_wilcoxon_entries_are_scipy_on_the_exact_decimal_differences(
    name, peer_reference
):
    """The entries rewritten when differences equal in decimal became ties
    are scipy's Wilcoxon p-values and the rank-biserial of the exact decimal differences
    (scores rounded to 1 or 2 decimals); 1e-12 relative as in test_significance."""
    scores = scale_reference.score_tables()[name]
    pvalues = REFERENCE_FLOATS[f"{name}/wilcoxon/pvalues"]
    effects = REFERENCE_FLOATS[f"{name}/wilcoxon/effect_size"]
    m = scores.shape[1]
    for i, j in zip(*np.triu_indices(m, 1), strict=True):
        both = np.isfinite(scores[:, i]) & np.isfinite(scores[:, j])
        exact = _decimal_differences(scores[both, i], scores[both, j])
        if not exact.any():
            continue
        expected = peer_reference(
            "scipy-wilcoxon", _scipy_wilcoxon, exact, under_test=significance.signed_rank
        )
        assert pvalues[i, j] == pytest.approx(expected, rel=1e-12)
        nonzero = exact[exact != 0]
        ranks = stats.rankdata(np.abs(nonzero))
        plus, minus = ranks[nonzero > 0].sum(), ranks[nonzero < 0].sum()
        assert effects[i, j] == pytest.approx((plus - minus) / (plus + minus), abs=1e-12)


def test_significance_flags_are_not_decided_by_the_last_bits():
    """The flags and groups are compared exactly: that holds on any CPU only if no
    reference p-value lies within the float tolerance of the level it is tested at."""
    for key, values in REFERENCE_FLOATS.items():
        if key.endswith("/pvalues_corrected") or key.endswith("/wilcoxon_bonferroni"):
            finite = values[np.isfinite(values)]
            margin = np.abs(finite - 0.05).min()
            assert margin > 1e3 * CLOSED_FORM.rtol * 0.05, (key, margin)


def test_fits_and_resampling_are_those_of_before(results):
    expected, got = REFERENCE["values"], results["values"]
    # The evaluation no longer has its Wilcoxon p-values against a data-selected best
    # and the best by TV; every number it kept is compared.
    evaluation = json.loads(json.dumps(expected["evaluation"]))
    del evaluation["log_loss"]["p_value_vs_best"]
    del evaluation["tv_loss"]["p_value_vs_best"], evaluation["tv_loss"]["best"]
    expected = {**expected, "evaluation": evaluation}
    got = json.loads(json.dumps(got))
    assert reference_mismatches(got, expected, ITERATIVE) == []


@pytest.mark.parametrize("chunk", [1, 7, 10**9])
def test_pairwise_tests_do_not_depend_on_the_batch_size(monkeypatch, chunk):
    scores = scale_reference.score_tables()["rounded_gaps"]
    reference = wilcoxon_pairwise(scores)
    monkeypatch.setattr(significance.signed_rank, "_PAIR_CHUNK_ELEMENTS", chunk)
    batched = wilcoxon_pairwise(scores)
    for field in ("pvalues", "pvalues_corrected", "statistic", "effect_size", "n_common"):
        np.testing.assert_array_equal(getattr(batched, field), getattr(reference, field))
    assert batched.not_applicable.tolist() == reference.not_applicable.tolist()
    assert batched.method.tolist() == reference.method.tolist()


def test_cd_groups_agree_with_the_definition_on_random_patterns():
    rng = np.random.default_rng(5)
    for _ in range(200):
        m = int(rng.integers(1, 25))
        upper = np.triu(rng.random((m, m)) < rng.random(), 1)
        significant = upper | upper.T
        mean_ranks = rng.integers(0, 6, m).astype(float)  # with ties
        expected = _cd_groups_by_definition(significant, mean_ranks)
        assert cd_groups(significant, mean_ranks) == expected


def _cd_groups_by_definition(significant, mean_ranks):
    order = np.argsort(mean_ranks, kind="stable")
    inside = significant[np.ix_(order, order)]
    runs, furthest, m = [], -1, len(order)
    for start in range(m):
        end = start
        while end + 1 < m and not inside[start : end + 1, end + 1].any():
            end += 1
        if end > furthest:
            runs.append(tuple(int(x) for x in order[start : end + 1]))
            furthest = end
    return runs


def test_monotone_patterns_take_the_bars_as_letters():
    """Nemenyi-like patterns (significant beyond a distance) skip the clique search; the
    letters are those the search finds."""
    rng = np.random.default_rng(8)
    for _ in range(50):
        m = int(rng.integers(2, 40))
        mean_ranks = np.sort(rng.random(m) * 10)[rng.permutation(m)]
        significant = np.abs(mean_ranks[:, None] - mean_ranks[None, :]) > rng.random() * 5
        adjacent = ~significant
        np.fill_diagonal(adjacent, False)
        cliques, reason = significance._maximal_cliques(adjacent, max_groups=10_000)
        assert reason is None
        position = np.empty(m, dtype=int)
        position[np.argsort(mean_ranks, kind="stable")] = np.arange(m)
        cliques.sort(key=lambda c: (min(position[v] for v in c), max(position[v] for v in c)))
        labels = [""] * m
        for index, clique in enumerate(cliques):
            for vertex in sorted(clique):
                labels[vertex] += significance._letter(index)
        assert compact_letter_display(significant, mean_ranks) == tuple(labels)


def test_unreadable_groups_are_not_applicable_with_a_reason():
    m = MAX_CD_ALGORITHMS + 1
    mean_ranks = np.arange(m, dtype=float)
    # Significant beyond a distance of 40: every algorithm is in about 40 bars.
    significant = np.abs(mean_ranks[:, None] - mean_ranks[None, :]) > 40
    groups = indistinguishable_groups(significant, mean_ranks)
    assert groups.bars is None and "201 algorithms" in groups.bars_not_applicable
    assert groups.letters is None
    assert "more than 26 groups" in groups.letters_not_applicable
    # Nothing significant: one group, readable at any size.
    none = indistinguishable_groups(np.zeros((2000, 2000), dtype=bool), np.arange(2000.0))
    assert none.letters == ("a",) * 2000 and none.letters_not_applicable is None
    assert none.bars is None


def test_the_embedding_benchmark_shape_is_analysed_not_refused():
    """300 algorithms x 56 datasets used to fail with "more than 10000 groups"."""
    from bench.common import result_table

    table = result_table(300, 56, seed=0)
    payload = analyze(table, AnalysisSettings(bootstrap=100, evaluation_repeats=1)).payload
    for summary, section in (
        (payload.board.nemenyi, payload.nemenyi),
        (payload.board.wilcoxon, payload.wilcoxon),
    ):
        assert isinstance(section.groups, NotApplicable)
        assert "300 algorithms would not be readable" in section.groups.reason
        assert isinstance(summary.letters, NotApplicable)
        assert "would not be readable" in summary.letters.reason
    assert payload.board.letters() == (None, {})
    assert len(payload.wilcoxon.pvalues.upper) == 300 * 299 // 2
    assert all(not isinstance(e.bootstrap, NotApplicable) for e in payload.board.estimators)
    text = json.dumps(to_json(payload), allow_nan=False)
    assert '"not_applicable": "an algorithm belongs to more than 26 groups' in text


def test_small_tables_keep_their_groups():
    values = np.array([[0.9, 0.8, 0.7], [0.85, 0.8, 0.6], [0.95, 0.7, 0.65], [0.9, 0.75, 0.7]])
    table = ResultTable(
        datasets=("d1", "d2", "d3", "d4"), algorithms=("a", "b", "c"), values=values
    )
    payload = analyze(table, AnalysisSettings(bootstrap=20)).payload
    assert payload.nemenyi.groups and payload.board.nemenyi.letters
    assert payload.board.letters()[0] == "Nemenyi"
