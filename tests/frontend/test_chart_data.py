"""The chart data functions alone: snapshot payload in, small frozen dataclass out.

Hand-made payloads with numbers that can be checked by eye; no database, no SVG.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from frontend.explore.charts.algorithm import rank_histogram_data
from frontend.explore.charts.critical_difference import critical_difference_data
from frontend.explore.charts.estimators import estimator_evaluation_data, estimator_weights_data
from frontend.explore.charts.pvalues import pvalue_matrix_data
from frontend.explore.charts.rank_distribution import rank_distribution_data
from frontend.explore.charts.rank_heatmap import rank_heatmap_data
from frontend.explore.charts.win_probability import (
    algorithm_estimates_data,
    win_probability_data,
)

# Four datasets, three algorithms; B is best, then A, then C (one tie on "d3").
RANKS = [[2.0, 1.0, 3.0], [1.0, 2.0, 3.0], [2.5, 1.0, 2.5], [3.0, 1.0, 2.0]]


def payload(**changes):
    base = {
        "input": {
            "kind": "score",
            "algorithms": ["A", "B", "C"],
            "known_positions": 3,
            "n_algorithms_used": 3,
        },
        "params": {"alpha": 0.05},
        "mean_rank": {"A": 2.125, "B": 1.25, "C": 2.625},
        "win_rate": {"A": 0.25, "B": 0.75, "C": 0.0},
        "rank_matrix": {"algorithms": ["A", "B", "C"], "datasets": ["d4", "d1", "d3", "d2"]}
        | {"ranks": RANKS},
        "nemenyi": {
            "alpha": 0.05,
            "critical_difference": 1.66,
            "groups": [["B", "A"], ["A", "C"], ["C"]],
            "letters": {"A": "ab", "B": "a", "C": "b"},
            "pvalues": {
                "A": {"B": 0.2, "C": 0.5},
                "B": {"A": 0.2, "C": 0.0004},
                "C": {"A": 0.5, "B": 0.0004},
            },
        },
        "recommended": "mle",
        "estimators": {
            "mle": {
                "label": "Win rate (MLE)",
                "p": {"A": 0.25, "B": 0.75, "C": 0.0},
                "ci": {"A": [0.0, 0.5], "B": [0.5, 1.0], "C": [0.0, 0.0]},
                "p_best": {"A": 0.1, "B": 0.9, "C": 0.0},
            },
            "loo_kl": {
                "label": "Leave-one-out (log loss)",
                "p": {"A": 0.3, "B": 0.6, "C": 0.1},
                "weights": [0.7, 0.3],
                "loss": 0.9,
                "loss_mle": 1.1,
            },
        },
        "evaluation": {
            "leave_one_out": False,
            "n_folds": 4,
            "n_repeats": 2,
            "log_loss": {"mle": 1.2, "loo_kl": 0.9},
            "tv": {"mle": 0.4, "loo_kl": 0.45},
            "best": "loo_kl",
            "best_tv": "mle",
            "pvalue_vs_best": {"mle": 0.03},
            "pvalue_vs_best_tv": {"loo_kl": 0.6},
        },
    }
    base.update(changes)
    return base


def test_data_are_frozen():
    data = critical_difference_data(payload(), "nemenyi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.alpha = 0.1  # type: ignore[misc]


def test_critical_difference_data_orders_by_mean_rank_and_keeps_real_groups():
    data = critical_difference_data(payload(), "nemenyi")
    assert data.names == ("B", "A", "C")
    assert data.mean_rank == (1.25, 2.125, 2.625)
    assert data.groups == (("B", "A"), ("A", "C"))  # a group of one joins nothing
    assert data.letters == ("a", "ab", "b")
    assert data.critical_difference == 1.66 and data.not_applicable is None


def test_critical_difference_data_passes_reasons_on():
    refused = payload(wilcoxon={"not_applicable": "too few datasets"})
    assert critical_difference_data(refused, "wilcoxon").not_applicable == "too few datasets"
    no_ranks = payload(mean_rank=None)
    assert "complete rankings" in critical_difference_data(no_ranks, "nemenyi").not_applicable
    with pytest.raises(ValueError, match="test must be one of"):
        critical_difference_data(payload(), "t-test")


def test_rank_heatmap_data_columns_by_mean_rank_rows_by_name_capped():
    data = rank_heatmap_data(payload(), max_datasets=3)
    assert data.names == ("B", "A", "C")
    assert data.datasets == ("d1", "d2", "d3")
    # d1 is the payload's second row [1, 2, 3] in A, B, C order -> B, A, C: 2, 1, 3.
    assert data.ranks == ((2.0, 1.0, 3.0), (1.0, 3.0, 2.0), (1.0, 2.5, 2.5))
    assert data.total_datasets == 4 and data.unknown_above is None
    assert rank_heatmap_data(payload(rank_matrix=None)).not_applicable


def test_rank_distribution_data_quartiles_and_worst_datasets():
    data = rank_distribution_data(payload())
    assert [s.name for s in data.spreads] == ["B", "A", "C"]
    a = data.spreads[1]
    expected = np.percentile([2.0, 1.0, 2.5, 3.0], [0, 25, 50, 75, 100])
    assert a.quartiles == pytest.approx(tuple(expected))
    assert a.mean == pytest.approx(2.125)
    assert a.worst_on == ("d2",)  # worst rank 3 on the fourth row, named "d2"
    assert data.n_datasets == 4 and data.known_positions is None


def test_top_k_input_counts_positions_with_shared_ties():
    top2 = payload(
        input={"kind": "rank", "algorithms": ["A", "B", "C"], "known_positions": 2}
        | {"n_algorithms_used": 3}
    )
    data = rank_distribution_data(top2)
    assert data.known_positions == 2 and data.spreads == ()
    counts = {row.name: row for row in data.positions}
    # A: 2nd, 1st, tied 2.5 (covers positions 2-3: 1/2 at 2nd), 3rd.
    assert counts["A"].counts == pytest.approx((1.0, 1.5))
    assert counts["A"].rest == pytest.approx(1.5)
    assert counts["B"].counts == pytest.approx((3.0, 1.0)) and counts["B"].rest == 0
    bars = rank_histogram_data(top2, "C")
    assert [bar.label for bar in bars] == ["1", "2", "below 2"]
    assert [bar.datasets for bar in bars] == pytest.approx([0.0, 1.5, 3.0])


def test_pvalue_matrix_data_is_square_in_rank_order_and_capped():
    data = pvalue_matrix_data(payload(), "nemenyi", max_algorithms=2)
    assert data.names == ("B", "A") and data.total == 3
    assert data.pvalues == ((None, 0.2), (0.2, None))
    untested = payload()
    untested["nemenyi"]["not_applicable_pairs"] = [{"a": "A", "b": "C", "reason": "all ties"}]
    pair = pvalue_matrix_data(untested, "nemenyi").untested[0]
    assert (pair.a, pair.b, pair.reason) == ("A", "C", "all ties")


def test_win_probability_data_sorted_with_intervals():
    data = win_probability_data(payload())
    assert data.estimator_label == "Win rate (MLE)"
    assert [bar.label for bar in data.bars] == ["B", "A", "C"]
    assert data.bars[0].interval == (0.5, 1.0) and data.bars[0].p_best == 0.9
    no_ci = win_probability_data(payload(), "loo_kl")
    assert not no_ci.has_intervals and no_ci.bars[0].interval == (None, None)
    with pytest.raises(ValueError, match="estimator must be one of"):
        win_probability_data(payload(), "nope")


def test_algorithm_estimates_data_in_registry_order():
    data = algorithm_estimates_data(payload(), "A")
    assert [bar.label for bar in data.bars] == ["LOO (log loss)", "Win rate"]
    assert [bar.value for bar in data.bars] == [0.3, 0.25]
    assert data.full_labels == ("Leave-one-out (log loss)", "Win rate (MLE)")
    assert data.recommended == "Win rate"


def test_estimator_evaluation_and_weights_data():
    data = estimator_evaluation_data(payload())
    assert data.labels == ("LOO (log loss)", "Win rate")
    log_loss, tv = data.panels
    assert log_loss.losses == (0.9, 1.2) and log_loss.best == 0 and log_loss.pvalues[1] == 0.03
    assert tv.best == 1 and tv.pvalues[0] == 0.6
    assert data.folds == "4-fold cross-validation over datasets, repeated 2 times"
    refused = payload(evaluation={"not_applicable": "fewer than 4 datasets"})
    assert estimator_evaluation_data(refused).not_applicable == "fewer than 4 datasets"
    (weights,) = estimator_weights_data(payload())
    assert weights.weights == (0.7, 0.3)
    assert weights.fit == ("LOO loss 0.900 (win rate 1.100)",)
