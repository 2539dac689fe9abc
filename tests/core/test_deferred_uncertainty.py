"""A board served before its bootstrap and evaluation, then completed, is the one-shot board."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from estimation.core.analysis import (
    UNCERTAINTY_DEFERRED,
    UncertaintyStopped,
    analyze,
    analyze_uncertainty,
    uncertainty_deferrable,
    uncertainty_deferred,
)
from estimation.core.contract import NotApplicable, section_from_json, to_json
from estimation.core.table import ResultTable
from tests.core.demo_tables import (
    DEMO_SETTINGS,
    SETTINGS,
    demo_analysis,
    demsar_table,
    simulated_table,
)


def _bytes(board) -> str:
    return json.dumps(to_json(board), separators=(",", ":"), allow_nan=False)


def _top_k_table() -> ResultTable:
    """Rankings that list only the top 3 of 6 algorithms (NaN below)."""
    rng = np.random.default_rng(3)
    values = np.full((30, 6), np.nan)
    for row in values:
        row[rng.permutation(6)[:3]] = [1.0, 2.0, 3.0]
    return ResultTable(
        datasets=tuple(f"d{i}" for i in range(30)),
        algorithms=tuple("abcdef"),
        values=values,
        kind="rank",
        higher_is_better=False,
    )


@pytest.mark.parametrize(
    "name, table",
    [("demsar", demsar_table), ("simulated", simulated_table), ("top-k", _top_k_table)],
)
def test_the_completed_board_is_the_one_shot_board_byte_for_byte(name, table):
    settings = DEMO_SETTINGS.get(name, SETTINGS)  # the simulated demo has a rope
    whole = demo_analysis(name).payload if name != "top-k" else analyze(table(), SETTINGS).payload
    quick = analyze(table(), settings, uncertainty=False).payload
    assert uncertainty_deferred(quick.board)
    assert quick.board.evaluation == NotApplicable(UNCERTAINTY_DEFERRED)
    assert all(r.bootstrap == NotApplicable(UNCERTAINTY_DEFERRED) for r in quick.board.estimators)
    # every other section is the one-shot one already
    for section in (
        "wins",
        "nemenyi",
        "wilcoxon",
        "rank_matrix",
        "within_dataset",
        "advisor",
        "practical",
    ):
        assert to_json(getattr(quick, section)) == to_json(getattr(whole, section))
    # the service completes the board it read back from its stored JSON
    stored = section_from_json("board", json.loads(_bytes(quick.board)))
    completed = analyze_uncertainty(table(), settings, stored)
    assert _bytes(completed.board) == _bytes(whole.board)
    assert not uncertainty_deferred(completed.board)
    assert set(completed.timings) >= {"bootstrap", "evaluation"}


def test_the_default_analysis_defers_nothing_and_a_complete_board_is_returned_as_it_is():
    whole = demo_analysis("demsar").payload.board
    assert not uncertainty_deferred(whole)
    assert analyze_uncertainty(demsar_table(), SETTINGS, whole).board is whole


def test_without_the_wilson_interval_the_bootstrap_is_the_band_and_is_not_deferred():
    board = demo_analysis("demsar").payload.board
    assert uncertainty_deferrable(board.win_interval)
    assert not uncertainty_deferrable(NotApplicable("no interval"))
    # the win rate's band falls back to its own bootstrap there: a deferred board would
    # lack even that one
    from estimation.core.verdict import win_band

    fallback = replace(board, win_interval=NotApplicable("no interval"))
    mle_boot = board.estimator("mle").bootstrap
    assert win_band(board, "mle").label == board.win_interval.label == "95 % confidence interval"
    assert win_band(fallback, "mle").lower == mle_boot.lower
    assert win_band(fallback, "mle").label == mle_boot.label == "95 % bootstrap spread"


def test_a_stop_request_gives_way_before_the_bootstrap():
    quick = analyze(demsar_table(), SETTINGS, uncertainty=False).payload.board
    with pytest.raises(UncertaintyStopped):
        analyze_uncertainty(demsar_table(), SETTINGS, quick, stop=lambda: True)


def test_a_board_that_gave_way_is_still_completable_but_not_pending():
    """A version superseded before its completion says the spread is not coming (not
    "being computed"), and a run that finds its input current again still completes it
    to the one-shot bytes."""
    from estimation.core.analysis import (
        UNCERTAINTY_GAVE_WAY,
        uncertainty_failed,
        uncertainty_pending,
    )

    whole = demo_analysis("demsar").payload.board
    quick = analyze(demsar_table(), SETTINGS, uncertainty=False).payload.board
    assert uncertainty_pending(quick)
    gave_way = uncertainty_failed(quick, UNCERTAINTY_GAVE_WAY)
    assert uncertainty_deferred(gave_way) and not uncertainty_pending(gave_way)
    completed = analyze_uncertainty(demsar_table(), SETTINGS, gave_way)
    assert _bytes(completed.board) == _bytes(whole)
    assert not uncertainty_pending(whole)
