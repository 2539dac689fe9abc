"""Scores to rankings (METHODS 1): ties, missing results, coverage, positional counts."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import rankdata

from estimation.core.rankings import (
    cumulative_positions,
    positional_counts,
    prepare_rankings,
    rank_scores,
    tie_groups,
)
from estimation.core.table import ResultTable
from tests.reference_data import PUBLISHED_DATA as REAL


def _require(path: Path) -> Path:
    assert path.exists(), f"reference data not found: {path}"
    return path


def load_demsar(kind: str) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray]:
    name = (
        "demsar2006_table6_auc.csv" if kind == "auc" else "demsar2006_table6_ranks_as_printed.csv"
    )
    with _require(REAL / "demsar2006" / name).open() as handle:
        rows = list(csv.reader(handle))
    algorithms = tuple(rows[0][1:])
    datasets = tuple(r[0] for r in rows[1:])
    values = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    return datasets, algorithms, values


def load_tabzilla_top3() -> ResultTable:
    path = _require(REAL / "tabzilla_top3" / "tabzilla_table4_top3.csv")
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    columns = ("first", "second", "third")
    algorithms = tuple(sorted({r[c] for r in rows for c in columns}))
    values = np.full((len(rows), len(algorithms)), np.nan)
    for i, row in enumerate(rows):
        for position, column in enumerate(columns, start=1):
            values[i, algorithms.index(row[column])] = position
    return ResultTable(tuple(r["dataset"] for r in rows), algorithms, values, kind="rank")


# ---------------------------------------------------------------------------
# rank_scores


def test_average_ranks_with_ties_and_missing():
    scores = np.array(
        [
            [0.9, 0.8, 0.8, 0.1],
            [np.nan, 0.5, np.nan, 0.7],
            [np.nan, np.nan, np.nan, np.nan],
        ]
    )
    ranks = rank_scores(scores)
    np.testing.assert_array_equal(ranks[0], [1, 2.5, 2.5, 4])
    # Missing results rank last, tied with each other.
    np.testing.assert_array_equal(ranks[1], [3.5, 2, 3.5, 1])
    np.testing.assert_array_equal(ranks[2], [2.5, 2.5, 2.5, 2.5])


def test_tie_tolerance_is_greedy_from_the_best():
    # 0.3 and 0.2 tie with the best (0.3); 0.1 is 0.2 away from the group start.
    ranks = rank_scores(np.array([[0.1, 0.3, 0.2]]), tie_tol=0.1)
    np.testing.assert_array_equal(ranks, [[3, 1.5, 1.5]])
    # A chain 0.0, 0.1, 0.2, 0.3 with tol 0.1: {0.3, 0.2}, {0.1, 0.0}.
    ranks = rank_scores(np.array([[0.0, 0.1, 0.2, 0.3]]), tie_tol=0.1)
    np.testing.assert_array_equal(ranks, [[3.5, 3.5, 1.5, 1.5]])


def test_tie_tolerance_absorbs_decimal_rounding():
    # 1.1 - 1.0 is 0.10000000000000009 in binary; as decimals they differ by 0.1.
    np.testing.assert_array_equal(rank_scores(np.array([[1.1, 1.0]]), tie_tol=0.1), [[1.5, 1.5]])
    np.testing.assert_array_equal(rank_scores(np.array([[85.3, 85.2]]), tie_tol=0.1), [[1.5, 1.5]])
    np.testing.assert_array_equal(rank_scores(np.array([[85.3, 85.19]]), tie_tol=0.1), [[1, 2]])
    # tie_tol = 0 means exact equality.
    np.testing.assert_array_equal(rank_scores(np.array([[1.0, 1.0 - 1e-15]])), [[1, 2]])


def test_tie_tolerance_with_missing_values():
    ranks = rank_scores(np.array([[np.nan, 0.5, 0.45, np.nan, 0.2]]), tie_tol=0.05)
    np.testing.assert_array_equal(ranks, [[4.5, 1.5, 1.5, 4.5, 3]])


@pytest.mark.parametrize("bad", [-0.1, np.inf, np.nan])
def test_tie_tol_validation(bad):
    with pytest.raises(ValueError, match="tie_tol"):
        rank_scores(np.ones((2, 3)), tie_tol=bad)


def test_rank_scores_rejects_bad_shapes():
    with pytest.raises(ValueError, match="2-D"):
        rank_scores(np.ones(3))


@settings(max_examples=80, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 7)), elements=st.integers(0, 4))
)
def test_matches_scipy_rankdata_without_tolerance(scores):
    expected = rankdata(-scores, axis=1, method="average")
    np.testing.assert_array_equal(rank_scores(scores), expected)


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 6), st.integers(1, 7)), elements=st.integers(0, 20)
    ),
    st.sampled_from([0.0, 1.0, 2.5]),
    st.randoms(use_true_random=False),
)
def test_rows_are_ranked_independently_and_labels_permute(scores, tie_tol, random):
    scores = scores / 4.0
    ranks = rank_scores(scores, tie_tol=tie_tol)
    for i in range(len(scores)):
        np.testing.assert_array_equal(rank_scores(scores[i : i + 1], tie_tol=tie_tol)[0], ranks[i])
    perm = list(range(scores.shape[1]))
    random.shuffle(perm)
    np.testing.assert_array_equal(rank_scores(scores[:, perm], tie_tol=tie_tol), ranks[:, perm])
    m = scores.shape[1]
    np.testing.assert_allclose(ranks.sum(axis=1), m * (m + 1) / 2)


# ---------------------------------------------------------------------------
# Demšar 2006, Table 6


def test_demsar_average_ranks_from_auc_values():
    _, algorithms, auc = load_demsar("auc")
    assert algorithms == ("C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf")
    ranks = rank_scores(auc)
    np.testing.assert_allclose(ranks.mean(axis=0), [3.143, 2.000, 2.929, 1.929], atol=5e-4)


def test_demsar_average_ranks_from_printed_ranks():
    datasets, algorithms, printed = load_demsar("ranks")
    table = ResultTable(datasets, algorithms, printed, kind="rank")
    prepared = prepare_rankings(table)
    # Full rankings: every position is known and the printed ranks come back unchanged.
    assert prepared.known_positions == 4
    np.testing.assert_array_equal(prepared.ranks, printed)
    np.testing.assert_allclose(prepared.mean_ranks(), [3.143, 2.000, 2.893, 1.964], atol=5e-4)


# ---------------------------------------------------------------------------
# positions


def test_tie_groups_recover_start_and_size():
    ranks = np.array([[1.5, 1.5, 3, 5, 5, 5]])
    start, size = tie_groups(ranks)
    np.testing.assert_array_equal(start, [[1, 1, 3, 4, 4, 4]])
    np.testing.assert_array_equal(size, [[2, 2, 1, 3, 3, 3]])


@pytest.mark.parametrize("bad", [[[1, 1, 3]], [[0, 2, 3]], [[1, 2, 2]], [[1.25, 1.75, 3]]])
def test_tie_groups_reject_non_average_ranks(bad):
    with pytest.raises(ValueError, match="average ranks"):
        tie_groups(np.array(bad, dtype=float))


def test_cumulative_positions_closed_form():
    # A tie of three at positions 2..4 gives each member 1/3 of each of those positions.
    ranks = np.array([[1, 3, 3, 3, 5]], dtype=float)
    C = cumulative_positions(ranks, 5)
    third = 1 / 3
    np.testing.assert_allclose(C[0, :, 0], [1, 1, 1, 1, 1])
    np.testing.assert_allclose(C[0, :, 1], [0, third, 2 * third, 1, 1])
    np.testing.assert_allclose(C[0, :, 4], [0, 0, 0, 0, 1])
    np.testing.assert_allclose(C.sum(axis=2)[0], [1, 2, 3, 4, 5])


def test_positional_counts_with_ties():
    ranks = np.array([[1.5, 1.5, 3], [1, 2.5, 2.5], [2, 2, 2]], dtype=float)
    r = positional_counts(ranks)
    third = 1 / 3
    np.testing.assert_allclose(
        r,
        [
            [1.5 + third, 0.5 + third, third],
            [0.5 + third, 1 + third, 0.5 + third],
            [third, 0.5 + third, 1.5 + third],
        ],
    )
    np.testing.assert_allclose(positional_counts(ranks, 1), r[:1])


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(2, 7)), elements=st.integers(0, 3))
)
def test_positional_counts_are_doubly_stochastic(scores):
    ranks = rank_scores(scores)
    n, m = ranks.shape
    r = positional_counts(ranks)
    np.testing.assert_allclose(r.sum(axis=0), n)
    np.testing.assert_allclose(r.sum(axis=1), n)
    C = cumulative_positions(ranks, m)
    np.testing.assert_allclose(np.diff(C.sum(axis=0), axis=0, prepend=0), r, atol=1e-12)


def test_K_validation():
    ranks = np.array([[1, 2, 3]], dtype=float)
    for bad in (0, 4, 1.5, True):
        with pytest.raises(ValueError, match="K must be"):
            cumulative_positions(ranks, bad)


# ---------------------------------------------------------------------------
# prepare_rankings


def _table(values, algorithms=("a", "b", "c", "d"), **kwargs):
    values = np.asarray(values, dtype=float)
    datasets = tuple(f"d{i}" for i in range(len(values)))
    return ResultTable(datasets, tuple(algorithms), values, **kwargs)


def test_complete_policy_drops_datasets_and_names_the_cause():
    nan = np.nan
    table = _table(
        [
            [0.9, 0.8, 0.7, nan],
            [0.5, nan, 0.7, nan],
            [0.4, 0.6, 0.7, nan],
            [0.3, 0.2, 0.1, 0.5],
            [0.9, 0.8, 0.7, 0.6],
        ]
    )
    prepared = prepare_rankings(table)
    # d has results on 2 of 5 datasets (40 % < 50 %): insufficient coverage.
    assert prepared.excluded_algorithms == ("d",)
    assert prepared.coverage == {"a": 1.0, "b": 0.8, "c": 1.0, "d": 0.4}
    assert prepared.algorithms == ("a", "b", "c")
    assert prepared.dropped_datasets == ("d1",)
    assert prepared.dropped_by == {"b": 1}
    assert prepared.datasets == ("d0", "d2", "d3", "d4")
    assert prepared.known_positions == 3
    np.testing.assert_array_equal(prepared.ranks[0], [1, 2, 3])
    np.testing.assert_array_equal(prepared.scores[1], [0.4, 0.6, 0.7])
    facts = prepared.to_dict()
    assert facts["excluded_algorithms"] == [{"algorithm": "d", "coverage": 0.4}]
    assert facts["n_datasets_total"] == 5 and facts["n_datasets_used"] == 4
    assert facts["dropped_by"] == {"b": 1}


def test_worst_policy_ranks_missing_last():
    nan = np.nan
    table = _table([[0.9, nan, 0.7, 0.1], [nan, nan, nan, nan], [0.4, 0.6, nan, nan]])
    prepared = prepare_rankings(table, missing="worst", min_coverage=0.0)
    assert prepared.datasets == ("d0", "d2")
    assert prepared.dropped_datasets == ("d1",)
    np.testing.assert_array_equal(prepared.ranks, [[1, 4, 2, 3], [2, 1, 3.5, 3.5]])
    assert np.isnan(prepared.scores[0, 1])


def test_lower_is_better_is_oriented_and_folds_follow():
    folds = np.array([[[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], [[0.5, 0.4, 0.6], [0.5, 0.6, 0.4]]])
    table = ResultTable(
        ("x", "y"), ("a", "b", "c"), folds.mean(axis=1), higher_is_better=False, fold_values=folds
    )
    prepared = prepare_rankings(table)
    np.testing.assert_array_equal(prepared.ranks, [[2, 2, 2], [2, 2, 2]])
    np.testing.assert_array_equal(prepared.fold_scores, -folds)
    table = ResultTable(("x",), ("a", "b"), np.array([[0.1, 0.2]]), higher_is_better=False)
    np.testing.assert_array_equal(prepare_rankings(table).ranks, [[1, 2]])


def test_tie_tolerance_reaches_the_rankings():
    table = _table([[85.3, 85.2, 80.0, 70.0]])
    np.testing.assert_array_equal(prepare_rankings(table, tie_tol=0.1).ranks, [[1.5, 1.5, 3, 4]])


def test_one_algorithm_is_a_clear_error():
    table = _table([[0.5], [0.6]], algorithms=("only",))
    with pytest.raises(ValueError, match="at least 2 algorithms"):
        prepare_rankings(table)
    nan = np.nan
    table = _table([[0.5, nan], [0.6, nan], [0.7, 0.1]], algorithms=("a", "b"))
    with pytest.raises(ValueError, match=r"at least 2 algorithms.*'b'"):
        prepare_rankings(table)


def test_no_complete_dataset_is_a_clear_error():
    nan = np.nan
    table = _table([[0.5, nan, 0.1], [nan, 0.6, 0.2]], algorithms=("a", "b", "c"))
    with pytest.raises(ValueError, match="no dataset remains"):
        prepare_rankings(table, min_coverage=0.5)


def test_one_dataset_is_fine():
    prepared = prepare_rankings(_table([[0.1, 0.4, 0.4, 0.2]]))
    np.testing.assert_array_equal(prepared.ranks, [[4, 1.5, 1.5, 3]])


def test_policy_validation():
    table = _table([[0.1, 0.2, 0.3, 0.4]])
    with pytest.raises(ValueError, match="missing must be"):
        prepare_rankings(table, missing="drop")
    with pytest.raises(ValueError, match="min_coverage"):
        prepare_rankings(table, min_coverage=1.5)


def test_prepared_arrays_are_read_only():
    prepared = prepare_rankings(_table([[0.1, 0.2, 0.3, 0.4]]))
    with pytest.raises(ValueError):
        prepared.ranks[0, 0] = 9


# ---------------------------------------------------------------------------
# rank tables, top-K only


def test_tabzilla_top3_rank_table():
    table = load_tabzilla_top3()
    assert table.n_datasets == 36 and table.n_algorithms == 18
    prepared = prepare_rankings(table)
    # Neither coverage nor the missing policy applies to "not listed".
    assert prepared.excluded_algorithms == () and prepared.dropped_datasets == ()
    assert prepared.known_positions == 3
    assert prepared.scores is None
    # Unlisted algorithms tie at the mean of positions 4..18.
    np.testing.assert_array_equal(np.unique(prepared.ranks), [1, 2, 3, 11])
    r = prepared.positional_counts()
    assert r.shape == (3, 18)
    np.testing.assert_array_equal(r.sum(axis=1), [36, 36, 36])
    first = dict(zip(prepared.algorithms, r[0], strict=True))
    assert first["CatBoost"] == 8 and first["XGBoost"] == 8 and first["LightGBM"] == 7


def test_rank_table_with_ties_and_short_listings():
    nan = np.nan
    table = _table([[1, 1, 3, nan], [1, nan, nan, 2], [2, 1, 4, 3]], kind="rank")
    prepared = prepare_rankings(table)
    np.testing.assert_array_equal(
        prepared.ranks, [[1.5, 1.5, 3, 4], [1, 3.5, 3.5, 2], [2, 1, 4, 3]]
    )
    # Row 0 lists 3 of 4 (the last is then determined); row 1 lists 2.
    assert prepared.known_positions == 2


def test_rank_table_validation():
    with pytest.raises(ValueError, match="positions >= 1"):
        prepare_rankings(_table([[0, 1, 2, 3]], kind="rank"))
    nan = np.nan
    with pytest.raises(ValueError, match="at least its winner"):
        prepare_rankings(_table([[1, 2, nan, nan], [nan, nan, nan, nan]], kind="rank"))
