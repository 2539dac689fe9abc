"""The text report's board: the site's order and numbering, the starred candidates for
best and the footnote that explains them (or says why there are none)."""

from __future__ import annotations

from dataclasses import replace

from estimation.core.contract import NotApplicable, RankIntervals, SnapshotPayload
from estimation.core.contract.codec import from_json
from estimation.core.verdict import board_order
from estimation.report import _rank_intervals_note, render_report
from tests.core.golden import load_reference


def stored_payload(demo: str) -> SnapshotPayload:
    return from_json(SnapshotPayload, load_reference(demo))


def test_the_board_table_lists_the_site_order_and_stars_the_candidates():
    payload = stored_payload("demsar")
    board = payload.board
    assert isinstance(board.ranks, RankIntervals)
    lines = render_report(payload, source="demsar").splitlines()
    assert lines[0] == "Podium analysis of demsar"
    header = next(i for i, line in enumerate(lines) if line.startswith("#  rank (95 %)"))
    rows = [line.split() for line in lines[header + 2 : header + 2 + len(board.algorithms)]]
    order = board_order(board, board.recommended)
    assert [row[2].rstrip("*") for row in rows] == [board.algorithms[i] for i in order]
    assert {row[2].rstrip("*") for row in rows if row[2].endswith("*")} == set(
        board.ranks.plausible_winners
    )
    assert lines[header + 2 + len(board.algorithms)].startswith(
        "* candidate for best: in the 95 % confidence set of the best"
    )


def test_the_rank_footnote_says_why_there_are_no_intervals():
    board = stored_payload("demsar").board
    assert _rank_intervals_note(replace(board, ranks=NotApplicable("too few replicates"))) == [
        "Rank intervals: not applicable (too few replicates)"
    ]
    (note,) = _rank_intervals_note(board)
    assert note.startswith("* candidate for best")
