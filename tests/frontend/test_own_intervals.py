"""What a reader sees: every P(win) beside its own estimator's interval (with
the engine's label), the rank intervals and the plausible winners in the table, the
badge and the exports (no database)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import pytest

from estimation.core.contract import BootstrapSummary, NotApplicable, RankIntervals
from frontend.readers.presenters import (
    board_columns,
    leaderboard_board,
    leaderboard_rows,
    table_legend,
)
from tests.frontend.test_chart_data import board

# loo_kl's own interval: different from the win rate's exact one on every algorithm, and holding its p
LOO_OWN = BootstrapSummary(
    lower=(0.2, 0.45, 0.02),
    upper=(0.41, 0.7, 0.2),
    p_best=(0.2, 0.75, 0.05),
    level=0.95,
    method="bias-corrected percentile bootstrap over datasets",
    kind="spread",
    label="95 % bootstrap spread",
)
RANKS = RankIntervals(
    estimator="loo_kl",
    target="probability of winning a new dataset",
    method="pairwise max-t stepdown",
    level=0.95,
    lower=(1, 1, 2),
    upper=(2, 2, 3),
    plausible_winners=("B", "A"),
)


def own_board(**changes):
    """The chart tests' board with loo_kl (the default) carrying its own interval, the
    aggregate estimators, rank intervals and the default's rule."""
    from estimation.core.contract import EstimatorResult

    base = board()
    loo = dataclasses.replace(base.estimator("loo_kl"), bootstrap=LOO_OWN)
    off = NotApplicable("the bootstrap is switched off (0 replicates)")
    aggregates = tuple(
        EstimatorResult(key=key, p=(0.3, 0.5, 0.2), bootstrap=off, K=None, weights=None)
        for key in ("borda", "plackett_luce")
    )
    estimators = tuple(loo if e.key == "loo_kl" else e for e in base.estimators) + aggregates
    fields = {
        "estimators": estimators,
        "recommended": "loo_kl",
        "ranks": RANKS,
        "recommended_by": "Leave-one-out (log loss) is the default: Podium's default.",
        **changes,
    }
    return dataclasses.replace(base, **fields)


def test_each_estimate_of_p_win_sits_beside_the_true_p_win_interval_its_spread_secondary():
    """No estimator's bootstrap band is a confidence interval, so beside every estimate of
    P(win) stands the exact interval of the true P(win); the estimate's own spread is
    kept, secondary, in the row (its title)."""
    typed = own_board()
    table = leaderboard_board(typed)
    loo_rows, _ = leaderboard_rows(table, "loo_kl")
    by_name = {row.algorithm: row for row in loo_rows}
    exact = typed.win_interval
    for i, name in enumerate(typed.algorithms):
        row = by_name[name]
        assert (row.low, row.high) == (exact.lower[i], exact.upper[i])
        spread = f"{LOO_OWN.label} of the estimate {LOO_OWN.lower[i]:.3f}–{LOO_OWN.upper[i]:.3f}"
        assert row.spread == spread
        columns = board_columns(table, "acc", table_legend(typed, "loo_kl"))
        assert f'title="{spread}"' in row.html(columns, "/a/")
    mle_rows, _ = leaderboard_rows(table, "mle")
    wilson = {
        name: (typed.win_interval.lower[i], typed.win_interval.upper[i])
        for i, name in enumerate(typed.algorithms)
    }
    assert all((row.low, row.high) == wilson[row.algorithm] for row in mle_rows)


def test_the_interval_column_is_named_by_the_engines_label():
    typed = own_board()
    table = leaderboard_board(typed)
    loo = {c.key: c for c in board_columns(table, "acc", table_legend(typed, "loo_kl"))}
    assert loo["interval"].label == f"{typed.win_interval.label} of the true P(win)"
    assert "Clopper-Pearson" in loo["interval"].title and "secondary" in loo["interval"].title
    mle = {c.key: c for c in board_columns(table, "acc", table_legend(typed, "mle"))}
    assert mle["interval"].label == typed.win_interval.label
    assert "Clopper-Pearson" in mle["interval"].title
    assert loo["ranks"].label == "95 % rank interval"


def test_rows_show_rank_intervals_and_mark_the_plausible_winners():
    typed = own_board()
    rows, _ = leaderboard_rows(leaderboard_board(typed), "loo_kl")
    columns = board_columns(leaderboard_board(typed), "acc", table_legend(typed, "loo_kl"))
    by_name = {row.algorithm: row for row in rows}
    assert by_name["B"].text["ranks"] == "1–2" and by_name["C"].text["ranks"] == "2–3"
    assert [r.algorithm for r in rows if r.plausible] == ["B", "A"]
    html = by_name["A"].html(columns, "/a/")
    assert 'data-plausible="1"' in html and 'data-testid="plausible-winner"' in html
    assert "data-plausible" not in by_name["C"].html(columns, "/c/")
    assert 'data-testid="cell-ranks">1–2</td>' in html


def test_pending_ranks_say_so_and_show_no_winner_marker():
    pending = NotApplicable("being computed: the rank intervals are added in a moment")
    typed = own_board(ranks=pending)
    typed = dataclasses.replace(typed, evaluation=_deferred())
    legend = table_legend(typed, "loo_kl")
    assert legend.ranks is None and legend.ranks_pending
    assert "being computed" in legend.ranks_label
    rows, _ = leaderboard_rows(leaderboard_board(typed), "loo_kl")
    assert {row.text["ranks"] for row in rows} == {"…"}
    assert not any(row.plausible for row in rows)


def _deferred():
    from estimation.core.analysis import UNCERTAINTY_DEFERRED

    return NotApplicable(UNCERTAINTY_DEFERRED)


def test_chart_whiskers_are_the_true_p_win_interval_and_say_which():
    from frontend.explore.charts.win_probability import (
        algorithm_estimates_chart,
        win_probability_chart,
        win_probability_data,
    )

    typed = own_board()
    data = win_probability_data(typed, "loo_kl")
    b = typed.algorithms.index("B")
    assert data.bars[0].label == "B"
    exact = typed.win_interval
    label = f"{exact.label} of the true P(win)"
    assert data.bars[0].interval == (exact.lower[b], exact.upper[b])
    assert data.interval_label == label
    chart = win_probability_chart(typed, "loo_kl")
    assert f"Whiskers: {label}" in chart.note and label in chart.description
    each = algorithm_estimates_chart(typed, "B")
    assert label in each.note and typed.win_interval.label in each.note


# --- the badge ---------------------------------------------------------------------------


def _badge(typed, algorithm):
    from frontend.embeds.badges import badge_facts

    return badge_facts(
        board=typed, algorithm=algorithm, algorithm_version="", benchmark="b", results_version=3
    )


def test_the_badge_shows_the_rank_interval_never_a_lone_first_place():
    typed = own_board()
    leader = _badge(typed, "B")
    assert leader.value_text.startswith("#1–2 of 3")
    assert "#1 " not in leader.value_text
    single = dataclasses.replace(
        typed,
        ranks=dataclasses.replace(
            RANKS, lower=(2, 1, 3), upper=(2, 1, 3), plausible_winners=("B",)
        ),
    )
    assert _badge(single, "B").value_text.startswith("#1 of 3")


def test_the_badge_keeps_working_while_the_ranks_are_pending():
    typed = dataclasses.replace(
        own_board(ranks=NotApplicable("being computed")), evaluation=_deferred()
    )
    text = _badge(typed, "B").value_text
    assert "#" not in text and "rank being computed" in text and "v3" in text


# --- exports -----------------------------------------------------------------------------


def _source():
    from frontend.readers.exports import ExportSource

    return ExportSource(
        benchmark_title="T",
        benchmark_citation="",
        metric="acc",
        version=3,
        finished_at=None,
        permalink="http://x/b/t/v3/",
    )


def test_the_csv_carries_each_interval_its_label_the_spread_ranks_and_winners():
    from frontend.readers.exports import export_csv

    typed = own_board()
    rows = list(csv.DictReader(io.StringIO(export_csv(typed, _source(), "loo_kl", readable=False))))
    by_name = {row["algorithm"]: row for row in rows}
    for i, name in enumerate(typed.algorithms):
        row = by_name[name]
        assert float(row["loo_kl_low"]) == typed.win_interval.lower[i]
        assert float(row["loo_kl_high"]) == typed.win_interval.upper[i]
        assert row["loo_kl_interval"] == f"{typed.win_interval.label} of the true P(win)"
        assert float(row["loo_kl_spread_low"]) == LOO_OWN.lower[i]
        assert float(row["loo_kl_spread_high"]) == LOO_OWN.upper[i]
        assert float(row["mle_low"]) == typed.win_interval.lower[i]
        assert row["mle_interval"] == typed.win_interval.label
        assert (int(row["rank_low"]), int(row["rank_high"])) == (RANKS.lower[i], RANKS.upper[i])
        assert row["plausible_winner"] == str(name in RANKS.plausible_winners)
    assert not any(c.startswith("win_ci") for c in rows[0])


def test_the_json_export_carries_the_whole_board():
    from estimation.core.contract import Board, from_json
    from frontend.readers.exports import export_json

    typed = own_board()
    body = json.loads(export_json(typed, _source(), "loo_kl"))
    assert from_json(Board, body["board"]) == typed
    assert body["plausible_winners"] == ["B", "A"]
    assert body["recommended_by"] == typed.recommended_by


def test_the_latex_table_names_its_interval_and_its_rank_interval():
    from frontend.readers.exports import export_latex

    text = export_latex(own_board(), _source(), "loo_kl")
    assert "confidence interval of the true P(win)" in text and "95 \\% rank interval" in text
    assert "Clopper-Pearson" not in text
    b_line = next(line for line in text.splitlines() if line.startswith("1 & 1--2 & B"))
    b = own_board().algorithms.index("B")
    exact = own_board().win_interval
    assert f"[{exact.lower[b]:.3f}, {exact.upper[b]:.3f}]" in b_line and "$^\\star$" in b_line


# --- pages, while the ranks are being computed --------------------------------------------


@pytest.mark.django_db
def test_a_board_served_before_its_bootstrap_shows_its_rank_intervals_at_once(client):
    """Whole rankings: the rank intervals and the ★ set need no bootstrap, so the first
    render shows them; only the bootstrap bands and the evaluation are said to be coming."""
    import numpy as np

    from estimation.core.analysis import AnalysisSettings, analyze
    from estimation.core.table import ResultTable
    from tests.factories import make_benchmark
    from tests.frontend.test_readers_support import store_snapshot

    rng = np.random.default_rng(3)
    table = ResultTable(
        datasets=tuple(f"d{i}" for i in range(12)),
        algorithms=("a", "b", "c"),
        values=rng.normal(size=(12, 3)) + np.array([0.5, 0.2, 0.0]),
    )
    payload = analyze(table, AnalysisSettings(bootstrap=100), uncertainty=False).payload
    assert isinstance(payload.board.ranks, RankIntervals)
    store_snapshot(make_benchmark("pending"), payload)
    page = client.get("/b/pending/").content.decode()
    note = page[page.index('data-testid="uncertainty-pending"') :]
    note = note[: note.index("</p>")]
    assert "P(best)" in note and "rank intervals" not in note
    assert "Rank interval (being computed)" not in page
    assert page.count('data-testid="cell-ranks">…</td>') == 0
    assert 'data-testid="plausible-winner"' in page
    # the default's P(win) stands beside the exact interval of the true P(win) at once
    assert "confidence interval of the true P(win)" in page
    # the badge of a served board shows the rank interval already
    text = _badge(payload.board, "a").value_text
    assert text.startswith("#") and "being computed" not in text


AVERAGE_RANKS = dataclasses.replace(
    RANKS,
    estimator="borda",
    target="the rank (1 = best) of each algorithm's expected rank on a new dataset",
    question="best_on_average",
    question_words="best on average across datasets",
)


def test_the_rank_column_and_the_star_name_the_question_they_answer():
    """Where the rank intervals are of expected ranks, the caption, the ★ legend
    and the column's title say "best on average across datasets", never "of the default
    estimator"."""
    typed = own_board(ranks=AVERAGE_RANKS)
    legend = table_legend(typed, "loo_kl")
    assert legend.ranks_question == "best on average across datasets"
    assert not legend.ranks_of_another_estimator
    assert "the best on average is one of the 2 marked" in legend.plausible_sentence
    columns = {c.key: c for c in board_columns(leaderboard_board(typed), "acc", legend)}
    assert "(best on average across datasets)" in columns["ranks"].title


@pytest.mark.parametrize(
    ("estimator", "quantity"), [("borda", "Borda score"), ("plackett_luce", "PL worth share")]
)
def test_a_score_that_is_no_win_probability_is_named_as_what_it_is(estimator, quantity):
    typed = own_board()
    legend = table_legend(typed, estimator)
    columns = {c.key: c for c in board_columns(leaderboard_board(typed), "acc", legend)}
    assert columns["probability"].label == quantity
    assert "P(win)" not in columns["probability"].label + columns["probability"].title
    loo = {
        c.key: c
        for c in board_columns(leaderboard_board(typed), "acc", table_legend(typed, "loo_kl"))
    }
    assert loo["probability"].label == "P(win)"


@pytest.mark.parametrize(
    "low, high, text",
    [
        (1e-7, 3e-7, "0.0000001–0.0000003"),
        (0.1231, 0.1233, "0.1231–0.1233"),
        (0.1234, 0.1236, "0.123–0.124"),
        (0.2, 0.6, "0.200–0.600"),
        (0.5, 0.5, "0.500–0.500"),  # ends that are equal are not padded
        (None, 0.4, "––0.400"),
    ],
)
def test_an_interval_whose_ends_differ_never_reads_as_a_point(low, high, text):
    from frontend.readers.presenters import interval_text

    assert interval_text(low, high, 3) == text
