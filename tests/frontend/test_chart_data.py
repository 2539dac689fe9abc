"""The chart data functions alone: typed snapshot sections in, small frozen dataclass out.

Hand-made sections with numbers that can be checked by eye; no database, no SVG.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from estimation.core.contract import (
    SCHEMA_VERSION,
    AnalysisSettings,
    Board,
    BootstrapSummary,
    EstimatorResult,
    Evaluation,
    InputFacts,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    PairNote,
    PairwiseMatrix,
    RankMatrixSection,
    WilcoxonSection,
    WilcoxonSummary,
    WinInterval,
)
from estimation.core.intervals import WIN_INTERVAL_METHOD
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
RANKS = ((2.0, 1.0, 3.0), (1.0, 2.0, 3.0), (2.5, 1.0, 2.5), (3.0, 1.0, 2.0))
NAMES = ("A", "B", "C")
NA = NotApplicable


def board(**changes) -> Board:
    facts = InputFacts(
        kind="score",
        direction="higher",
        algorithms=NAMES,
        datasets=("d4", "d1", "d3", "d2"),
        n_datasets=4,
        n_datasets_used=4,
        known_positions=3,
        has_folds=False,
        n_tied_first=0,
        excluded_algorithms=(),
        dropped_datasets=(),
        dropped_by={},
    )
    base = Board(
        schema_version=SCHEMA_VERSION,
        engine_version="test",
        input=changes.pop("input", facts),
        settings=AnalysisSettings(default_estimator="mle"),
        k_used=2,
        recommended="mle",
        estimators=(
            EstimatorResult(
                key="loo_kl",
                p=(0.3, 0.6, 0.1),
                bootstrap=NA("the bootstrap is switched off (0 replicates)"),
                K=2,
                weights=(0.7, 0.3),
                loss=0.9,
                loss_mle=1.1,
            ),
            EstimatorResult(
                key="mle",
                p=(0.25, 0.75, 0.0),
                bootstrap=BootstrapSummary(
                    lower=(0.0, 0.5, 0.0), upper=(0.5, 1.0, 0.0), p_best=(0.1, 0.9, 0.0)
                ),
                K=1,
                weights=(1.0,),
            ),
        ),
        win_interval=WinInterval(
            level=0.95,
            lower=(0.05, 0.4, 0.0),
            upper=(0.6, 0.95, 0.3),
            simultaneous_lower=(0.03, 0.3, 0.0),
            simultaneous_upper=(0.7, 0.97, 0.4),
            method=WIN_INTERVAL_METHOD,
        ),
        mean_rank=(2.125, 1.25, 2.625),
        significance_rank=NA("the results have no folds"),
        friedman=NA("not needed here"),
        nemenyi=NemenyiSummary(
            alpha=0.05, q_alpha=2.343, critical_difference=1.66, letters=("ab", "a", "b")
        ),
        wilcoxon=NA("scores not given"),
        evaluation=Evaluation(
            log_loss={"mle": 1.2, "loo_kl": 0.9},
            brier={"mle": 0.7, "loo_kl": 0.6},
            tv={"mle": 0.4, "loo_kl": 0.45},
            best="loo_kl",
            win_share={"mle": 0.25, "loo_kl": 0.75},
            difference_vs_mle={"mle": None, "loo_kl": -0.3},
            pvalue_vs_mle={"mle": None, "loo_kl": 0.03},
            predicts_best="loo_kl",
            verdict="loo_kl predicts best here",
            alpha=0.05,
            test_train_ratio=1 / 3,
            n_folds=4,
            n_repeats=2,
            leave_one_out=False,
        ),
        notes=(),
    )
    return dataclasses.replace(base, **changes)


def nemenyi() -> NemenyiSection:
    square = np.array([[np.nan, 0.2, 0.5], [0.2, np.nan, 0.0004], [0.5, 0.0004, np.nan]])
    return NemenyiSection(
        algorithms=NAMES,
        pvalues=PairwiseMatrix.from_square(square),
        groups=((1, 0), (0, 2), (2,)),
    )


MATRIX = RankMatrixSection(algorithms=NAMES, datasets=("d4", "d1", "d3", "d2"), ranks=RANKS)


def test_data_are_frozen():
    data = critical_difference_data(board(), nemenyi(), "nemenyi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.alpha = 0.1  # type: ignore[misc]


def test_critical_difference_data_orders_by_mean_rank_and_keeps_real_groups():
    data = critical_difference_data(board(), nemenyi(), "nemenyi")
    assert data.names == ("B", "A", "C")
    assert data.mean_rank == (1.25, 2.125, 2.625)
    assert data.groups == (("B", "A"), ("A", "C"))  # a group of one joins nothing
    assert data.letters == ("a", "ab", "b")
    assert data.critical_difference == 1.66 and data.not_applicable is None


def test_critical_difference_data_passes_reasons_on():
    refused = board(wilcoxon=NA("too few datasets"))
    assert critical_difference_data(refused, None, "wilcoxon").not_applicable == "too few datasets"
    no_ranks = board(mean_rank=NA("top-K"))
    assert (
        "complete rankings"
        in critical_difference_data(no_ranks, nemenyi(), "nemenyi").not_applicable
    )
    with pytest.raises(ValueError, match="test must be one of"):
        critical_difference_data(board(), nemenyi(), "t-test")
    crowded = dataclasses.replace(nemenyi(), groups=NA("a diagram of 300 algorithms ..."))
    assert "300 algorithms" in critical_difference_data(board(), crowded, "nemenyi").not_applicable


def test_rank_heatmap_data_columns_by_mean_rank_rows_by_name_capped():
    data = rank_heatmap_data(board(), MATRIX, max_datasets=3)
    assert data.names == ("B", "A", "C")
    assert data.datasets == ("d1", "d2", "d3")
    # d1 is the matrix's second row [1, 2, 3] in A, B, C order -> B, A, C: 2, 1, 3.
    assert data.ranks == ((2.0, 1.0, 3.0), (1.0, 3.0, 2.0), (1.0, 2.5, 2.5))
    assert data.total_datasets == 4 and data.unknown_above is None
    assert rank_heatmap_data(board(), None).not_applicable
    assert rank_heatmap_data(board(), NA("too large")).not_applicable == "too large"


def test_rank_distribution_data_quartiles_and_worst_datasets():
    data = rank_distribution_data(board(), MATRIX)
    assert [s.name for s in data.spreads] == ["B", "A", "C"]
    a = data.spreads[1]
    expected = np.percentile([2.0, 1.0, 2.5, 3.0], [0, 25, 50, 75, 100])
    assert a.quartiles == pytest.approx(tuple(expected))
    assert a.mean == pytest.approx(2.125)
    assert a.worst_on == ("d2",)  # worst rank 3 on the fourth row, named "d2"
    assert data.n_datasets == 4 and data.known_positions is None


def test_top_k_input_counts_positions_with_shared_ties():
    top2 = board()
    top2 = board(input=dataclasses.replace(top2.input, kind="rank", known_positions=2))
    data = rank_distribution_data(top2, MATRIX)
    assert data.known_positions == 2 and data.spreads == ()
    counts = {row.name: row for row in data.positions}
    # A: 2nd, 1st, tied 2.5 (covers positions 2-3: 1/2 at 2nd), 3rd.
    assert counts["A"].counts == pytest.approx((1.0, 1.5))
    assert counts["A"].rest == pytest.approx(1.5)
    assert counts["B"].counts == pytest.approx((3.0, 1.0)) and counts["B"].rest == 0
    bars = rank_histogram_data(top2, MATRIX, "C")
    assert [bar.label for bar in bars] == ["1", "2", "below 2"]
    assert [bar.datasets for bar in bars] == pytest.approx([0.0, 1.5, 3.0])


def test_rank_histogram_bins_positions_of_many_algorithms():
    from frontend.explore.charts.algorithm import MAX_POSITION_BARS, _binned

    counts = np.arange(1, 2001, dtype=float)  # 2000 positions
    bars = _binned(counts, MAX_POSITION_BARS)
    assert len(bars) <= MAX_POSITION_BARS
    assert bars[0].label == "1" and bars[0].datasets == 1.0
    assert bars[1].label == "2–53" and bars[-1].label.endswith("–2000")
    assert sum(bar.datasets for bar in bars) == pytest.approx(counts.sum())
    few = _binned(np.ones(40), MAX_POSITION_BARS)
    assert [bar.label for bar in few] == [str(p) for p in range(1, 41)]


def test_pvalue_matrix_data_is_square_in_rank_order_and_capped():
    data = pvalue_matrix_data(board(), nemenyi(), "nemenyi", max_algorithms=2)
    assert data.names == ("B", "A") and data.total == 3
    assert data.pvalues == ((None, 0.2), (0.2, None))
    section = nemenyi()
    wilcoxon = WilcoxonSection(
        algorithms=NAMES,
        pvalues=section.pvalues,
        pvalues_raw=section.pvalues,
        rank_biserial=section.pvalues,
        groups=section.groups,
        not_applicable_pairs=(PairNote(a=0, b=2, reason="all ties"),),
    )
    summary = WilcoxonSummary(alpha=0.05, correction="holm", letters=("a", "a", "b"))
    pair = pvalue_matrix_data(board(wilcoxon=summary), wilcoxon, "wilcoxon").untested[0]
    assert (pair.a, pair.b, pair.reason) == ("A", "C", "all ties")
    assert "not stored" in pvalue_matrix_data(board(), None, "nemenyi").not_applicable


def test_win_probability_data_sorted_with_intervals():
    data = win_probability_data(board())
    assert data.estimator_label == "Win rate"
    assert [bar.label for bar in data.bars] == ["B", "A", "C"]
    # the win rate's own interval: the exact one on its win count (estimation.core.verdict.win_band)
    assert data.bars[0].interval == (0.4, 0.95) and data.bars[0].p_best == 0.9
    assert data.interval_label == data.bars[0].interval_label == board().win_interval.label
    # an estimate of P(win) without its own spread: beside the true P(win)'s interval still
    loo = win_probability_data(board(), "loo_kl")
    assert loo.has_intervals and loo.bars[0].interval == (0.4, 0.95)
    assert loo.interval_label == f"{board().win_interval.label} of the true P(win)"
    no_ci = win_probability_data(board(win_interval=NA("no win count")), "loo_kl")
    assert not no_ci.has_intervals and no_ci.bars[0].interval == (None, None)
    assert no_ci.interval_note == "the bootstrap is switched off (0 replicates)"
    with pytest.raises(ValueError, match="estimator must be one of"):
        win_probability_data(board(), "nope")


def test_algorithm_estimates_data_in_registry_order():
    data = algorithm_estimates_data(board(), "A")
    assert [bar.label for bar in data.bars] == ["LOO (log loss)", "Win rate"]
    assert [bar.value for bar in data.bars] == [0.3, 0.25]
    assert data.full_labels == ("Leave-one-out weights (log loss)", "Win rate")
    assert data.recommended == "Win rate"


def test_estimator_evaluation_and_weights_data():
    data = estimator_evaluation_data(board())
    assert data.labels == ("LOO (log loss)", "Win rate")
    log_loss, brier = data.panels
    assert log_loss.losses == (0.9, 1.2) and log_loss.best == 0
    assert data.pvalues_vs_mle == (0.03, None) and data.reference == 1
    assert brier.losses == (0.6, 0.7) and data.tv == (0.45, 0.4)
    assert data.predicts_best == 0 and data.win_share == (0.75, 0.25)
    assert data.folds == "4-fold cross-validation over datasets, repeated 2 times"
    refused = board(evaluation=NA("fewer than 4 datasets"))
    assert estimator_evaluation_data(refused).not_applicable == "fewer than 4 datasets"
    (weights,) = estimator_weights_data(board())
    assert weights.weights == (0.7, 0.3)
    assert weights.fit == ("LOO loss 0.900 (win rate 1.100)",)


def wide(m: int) -> tuple[Board, RankMatrixSection]:
    """``m`` algorithms on three datasets: algorithm j is ranked j + 1 everywhere."""
    names = tuple(f"alg-{j:04d}" for j in range(m))
    facts = dataclasses.replace(
        board().input, algorithms=names, known_positions=m, datasets=("x", "y", "z")
    )
    p = tuple((m - j) / (m * (m + 1) / 2) for j in range(m))
    wide_board = board(
        input=facts,
        estimators=(
            EstimatorResult(
                key="mle", p=p, bootstrap=NA("the bootstrap is switched off"), K=1, weights=(1.0,)
            ),
        ),
        mean_rank=tuple(float(j + 1) for j in range(m)),
        nemenyi=NemenyiSummary(
            alpha=0.05, q_alpha=3.0, critical_difference=3.0, letters=("a",) * m
        ),
        win_interval=NA("not needed here"),  # the base board's is for three algorithms
    )
    ranks = tuple(tuple(float(j + 1) for j in range(m)) for _ in range(3))
    return wide_board, RankMatrixSection(algorithms=names, datasets=("x", "y", "z"), ranks=ranks)


def test_charts_of_thousands_of_algorithms_say_why_or_draw_the_best():
    from frontend.explore import charts

    big, matrix = wide(2000)
    cd = charts.critical_difference_chart(big, None, "nemenyi")
    assert cd.not_applicable.startswith("not shown at this size")
    assert "2000 algorithms" in cd.not_applicable and cd.svg == ""
    win = win_probability_data(big)
    assert win.total == 2000 and len(win.bars) == 60 and win.bars[0].label == "alg-0000"
    assert "Showing the most probable 60 of 2000" in charts.win_probability_chart(big).note
    heatmap = rank_heatmap_data(big, matrix)
    assert heatmap.total_algorithms == 2000 and len(heatmap.names) == 60
    assert all(len(row) == 60 for row in heatmap.ranks)
    spread = rank_distribution_data(big, matrix)
    assert spread.total == 2000 and [s.name for s in spread.spreads][-1] == "alg-0059"
    for chart in (
        charts.rank_heatmap_chart(big, matrix),
        charts.rank_distribution_chart(big, matrix),
    ):
        assert "of 2000 algorithms" in chart.note and chart.svg.count("alg-0060") == 0
        assert len(chart.svg) + len(chart.table) < 200_000
    # at the limit everything is drawn, with no note about it
    limit, _ = wide(60)
    assert charts.critical_difference_chart(limit, None, "nemenyi").not_applicable is None
    assert "Showing" not in charts.win_probability_chart(limit).note


def test_one_dataset_and_one_algorithm_charts_draw_the_first_60_rows():
    from collections import namedtuple

    from frontend.explore import charts

    scores = namedtuple("scores", "algorithm mean minimum maximum folds")
    rows = [scores(f"a{j:03d}", 1 - j / 1000, 0.5, 1.0, [0.5, 1.0]) for j in range(200)]
    chart = charts.dataset_scores_chart(rows, "d", "accuracy")
    assert chart.svg.count("data-algorithm=") == 60 and "a060" not in chart.svg
    assert "Showing the best 60 of 200 algorithms" in chart.note
    assert "Showing" not in charts.dataset_scores_chart(rows[:60], "d", "accuracy").note

    margin = namedtuple("margin", "dataset margin winner score best")
    gaps = [margin(f"d{i:03d}", i / 1000, "w", 0.5, 0.5 + i / 1000) for i in range(150)]
    chart = charts.margin_chart(gaps, "x", "accuracy")
    assert "d149" in chart.svg and "d089" not in chart.svg  # the largest gaps first
    assert chart.note.startswith("Showing the largest gaps on 60 of 150 datasets")
    assert charts.margin_chart(gaps[:60], "x", "accuracy").note == ""


def test_the_distance_to_the_winner_has_the_sign_of_its_caption():
    """The bars and the axis are gaps (>= 0); the row labels said −gap."""
    from frontend.explore import charts
    from frontend.explore.presenters import algorithm_margins

    scores = {"d1": {"x": 0.7, "w": 0.9}, "d2": {"x": 0.8, "w": 0.6}}
    gaps = algorithm_margins(scores=scores, algorithm="x", higher_is_better=True)
    chart = charts.margin_chart(gaps, "x", "accuracy")
    assert "0.2 behind w" in chart.svg and "−" not in chart.svg
    assert "how far behind the winner (0 = won)" in chart.svg
    assert "won" in chart.svg
    # lower is better: still a gap >= 0, told the same way
    lower = algorithm_margins(scores=scores, algorithm="x", higher_is_better=False)
    assert all(m.margin >= 0 for m in lower)
    assert "0.2 behind w" in charts.margin_chart(lower, "x", "seconds").svg
