"""Pairwise sections above analysis.MAX_PAIRWISE_ALGORITHMS: the first algorithms' pairs
stored, any other pair computed on demand, each equal to the whole matrix's value."""

from __future__ import annotations

import dataclasses
import tracemalloc

import numpy as np
import pytest

from bench.common import result_table
from estimation.core import analysis, pairwise_scope
from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import NotApplicable, PairwiseScope, SnapshotPayload
from estimation.core.pairwise_scope import (
    FamilyCorrection,
    corrected_pvalue,
    holm_all_one,
    holm_steps,
    pair_tests,
)
from estimation.core.significance import adjust_pvalues, wilcoxon_pairwise

# A value computed for one pair goes through the same formulas as the batch: they agree
# to the last bits (the Holm look-up allows 1e-12 relative).
TOLERANCE = 1e-12
SETTINGS = AnalysisSettings(bootstrap=0)
BOUND = 12


def _whole_and_top(
    monkeypatch, m: int, n: int, holes: bool = False
) -> tuple[SnapshotPayload, SnapshotPayload]:
    table = result_table(m, n, seed=3)
    settings = SETTINGS
    if holes:  # about 8 % of results missing, ranked last on their dataset
        values = np.array(table.values)
        values[np.random.default_rng(5).random(values.shape) < 0.08] = np.nan
        table = dataclasses.replace(table, values=values)
        settings = dataclasses.replace(SETTINGS, missing="worst")
    whole = analyze(table, settings, advisor=False).payload
    monkeypatch.setattr(pairwise_scope, "MAX_PAIRWISE_ALGORITHMS", BOUND)
    top = analyze(table, settings, advisor=False).payload
    return whole, top


def _family(scope: PairwiseScope, correction: str) -> FamilyCorrection:
    assert scope.wilcoxon_family is not None
    return FamilyCorrection(
        correction=correction,
        family=scope.wilcoxon_family,
        holm_raw=scope.holm_raw,
        holm_corrected=scope.holm_corrected,
        holm_one_from=scope.holm_one_from,
    )


def _close(a: float | None, b: float | None) -> bool:
    return (a is None and b is None) or (
        a is not None and b is not None and abs(a - b) <= TOLERANCE
    )


@pytest.mark.parametrize(
    ("n", "all_one", "holes"),
    # 6 datasets: every corrected p is 1; 40: Holm's steps; with missing results, the
    # stored dataset values (None where missing) give each pair's common datasets
    [(6, True, False), (40, False, False), (40, False, True)],
)
def test_every_pair_on_demand_equals_the_whole_matrix(monkeypatch, n, all_one, holes):
    m = 30
    whole, top = _whole_and_top(monkeypatch, m, n, holes)
    scope = top.pairwise
    assert isinstance(scope, PairwiseScope) and len(scope.algorithms) == BOUND
    assert (scope.holm_one_from == 0.0) is all_one
    assert all_one or scope.holm_raw  # some corrected p-values below 1
    # The board (letters, critical difference, ...) does not move; nor do the O(m·n) parts.
    assert top.board == whole.board
    assert top.rank_matrix == whole.rank_matrix
    names = whole.board.algorithms
    ranks = np.array(whole.rank_matrix.ranks)
    scores = np.array(whole.dataset_scores.values, dtype=float)  # larger is better
    mean_rank = whole.board.mean_rank
    family = _family(scope, whole.board.settings.correction)
    covered = 0
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            got = pair_tests(
                ranks[:, [i, j]],
                scores[:, [i, j]],
                mean_ranks=(mean_rank[i], mean_rank[j]),
                m=m,
                family=family,
                alpha=whole.board.settings.alpha,
            )
            assert _close(got.share, whole.wins.wins.get(i, j, m))
            assert _close(got.nemenyi, whole.nemenyi.pvalues.get(i, j, m))
            assert _close(got.wilcoxon, whole.wilcoxon.pvalues.get(i, j, m))
            assert _close(got.wilcoxon_raw, whole.wilcoxon.pvalues_raw.get(i, j, m))
            assert _close(got.rank_biserial, whole.wilcoxon.rank_biserial.get(i, j, m))
            # and the stored top pairs are the whole matrix's, corrected for every pair
            if names[i] in scope.algorithms and names[j] in scope.algorithms:
                covered += 1
                a, b = scope.algorithms.index(names[i]), scope.algorithms.index(names[j])
                for section, field in (
                    ("wins", "wins"),
                    ("nemenyi", "pvalues"),
                    ("wilcoxon", "pvalues"),
                    ("wilcoxon", "pvalues_raw"),
                    ("wilcoxon", "rank_biserial"),
                ):
                    stored = getattr(getattr(top, section), field).get(a, b, BOUND)
                    assert _close(stored, getattr(getattr(whole, section), field).get(i, j, m))
    assert covered == BOUND * (BOUND - 1)


def test_the_top_algorithms_are_the_first_by_mean_rank(monkeypatch):
    whole, top = _whole_and_top(monkeypatch, 30, 6)
    mean_rank = dict(zip(whole.board.algorithms, whole.board.mean_rank, strict=True))
    first = sorted(whole.board.algorithms, key=lambda a: (mean_rank[a], a))[:BOUND]
    assert set(top.pairwise.algorithms) == set(first)
    for section in (top.wins, top.nemenyi, top.wilcoxon):
        assert section.algorithms == top.pairwise.algorithms
    assert "first 12 by mean rank" in top.pairwise.reason
    for section in (top.nemenyi, top.wilcoxon):  # bars index the section's algorithms
        assert all(0 <= i < BOUND for bar in section.groups for i in bar)
    assert isinstance(whole.pairwise, NotApplicable)


def test_holm_steps_give_every_corrected_pvalue():
    rng = np.random.default_rng(0)
    raw = np.concatenate([rng.uniform(0, 1e-3, 300), rng.uniform(0, 1, 300), [1e-4] * 5])
    raw = np.round(raw, 6)  # ties
    raw[7] = np.nan  # not in the family
    expected = adjust_pvalues(raw, correction="holm")
    steps = holm_steps(raw)
    family = FamilyCorrection("holm", int((~np.isnan(raw)).sum()), *steps)
    for value, want in zip(raw, expected, strict=True):
        if not np.isnan(value):
            assert corrected_pvalue(float(value), family) == pytest.approx(want, abs=TOLERANCE)


def test_no_raw_pvalue_of_six_datasets_is_below_two_to_the_minus_six():
    # the premise of holm_all_one: exact and permutation tests on n <= 13 observations
    values = np.round(result_table(200, 6, seed=1).values, 1)  # ties and zeros too
    raw = wilcoxon_pairwise(values).pvalues
    assert np.nanmin(raw) >= 2.0**-6
    assert holm_all_one(6, 200 * 199 // 2, True)
    assert not holm_all_one(6, 63, True) and not holm_all_one(14, 10**9, True)
    assert not holm_all_one(6, 10**6, False)


def test_the_bound_is_the_stated_one():
    assert analysis.MAX_PAIRWISE_ALGORITHMS == pairwise_scope.MAX_PAIRWISE_ALGORITHMS == 632
    assert 632 * 631 // 2 <= 200_000 < 633 * 632 // 2


def test_the_tests_above_the_bound_allocate_no_square_of_the_algorithms():
    """Above the pairwise bound the tests' memory does not grow with m squared: the
    board's letters come from pairs evaluated on demand, not from an m x m array."""
    from estimation.core.significance_sections import tests_across_datasets

    settings = AnalysisSettings(bootstrap=0)
    peaks = {}
    for m in (1000, 3000):
        table = result_table(m, 6, seed=3)
        prepared = analysis._prepared(table, settings)
        top = pairwise_scope.pairwise_top(prepared.algorithms, prepared.ranks)
        assert top is not None and top.size < m
        tracemalloc.start()
        try:
            tests_across_datasets(prepared, settings, top)
            peaks[m] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    # One m x m boolean more at m = 3000 would add 8 MB over m = 1000.
    assert peaks[3000] - peaks[1000] < (3000**2 - 1000**2) / 8
