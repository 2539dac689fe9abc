"""The rule for an algorithm with empty cells (leaderboard/incomplete.py), pure."""

import numpy as np
import pytest

from leaderboard.incomplete import incomplete_decide, incomplete_outcome, incomplete_sentence

FULL = np.ones((14, 4), dtype=bool)


def with_newcomer(column):
    return np.column_stack([FULL, column])


def test_one_blank_cell_holds_the_newcomer_back_and_keeps_every_dataset():
    newcomer = np.ones(14, dtype=bool)
    newcomer[7] = False
    decision = incomplete_decide(with_newcomer(newcomer), policy="exclude", min_coverage=0.5)
    assert decision.board.all() and decision.n_board == 14
    assert decision.held_back.tolist() == [False] * 4 + [True]
    assert decision.n_have[4] == 13


def test_rank_on_what_it_has_marks_it_short_but_holds_nothing_back():
    newcomer = np.ones(14, dtype=bool)
    newcomer[:2] = False
    decision = incomplete_decide(
        with_newcomer(newcomer), policy="rank_on_what_it_has", min_coverage=0.5
    )
    assert decision.short.tolist() == [False] * 4 + [True] and not decision.held_back.any()


def test_drop_datasets_is_the_old_behaviour_nobody_is_short():
    newcomer = np.ones(14, dtype=bool)
    newcomer[0] = False
    decision = incomplete_decide(with_newcomer(newcomer), policy="drop_datasets", min_coverage=0.5)
    assert not decision.short.any() and not decision.held_back.any()


def test_a_dataset_only_the_newcomer_brings_is_not_on_the_board_and_nobody_is_short():
    present = np.vstack([with_newcomer(np.ones(14, dtype=bool)), [False] * 4 + [True]])
    decision = incomplete_decide(present, policy="exclude", min_coverage=0.5)
    assert decision.n_board == 14 and not decision.board[14] and not decision.held_back.any()


def test_two_newcomers_missing_the_same_dataset_cannot_outvote_the_board():
    column = np.ones(14, dtype=bool)
    column[3] = False
    present = np.column_stack([FULL, column, column])
    decision = incomplete_decide(present, policy="exclude", min_coverage=0.5)
    assert decision.board[3] and decision.held_back.tolist() == [False] * 4 + [True, True]


def test_algorithms_below_min_coverage_do_not_vote():
    sparse = np.zeros(14, dtype=bool)
    sparse[0] = True
    present = np.column_stack([FULL, *[sparse] * 5])  # 5 voters would outvote 4
    decision = incomplete_decide(present, policy="exclude", min_coverage=0.5)
    assert decision.board.all() and not decision.held_back.any()


def test_nobody_is_held_back_when_fewer_than_two_would_remain():
    present = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
    decision = incomplete_decide(present, policy="exclude", min_coverage=0.5)
    assert not decision.held_back.any()


def test_rank_tables_have_no_empty_cells_only_unlisted_positions():
    newcomer = np.ones(14, dtype=bool)
    newcomer[0] = False
    decision = incomplete_decide(
        with_newcomer(newcomer), policy="exclude", min_coverage=0.5, ranks=True
    )
    assert not decision.held_back.any()


def test_an_unknown_policy_is_named():
    with pytest.raises(ValueError, match="policy must be one of exclude, rank_on_what_it_has"):
        incomplete_decide(FULL, policy="ignore", min_coverage=0.5)


@pytest.mark.parametrize(
    ("policy", "missing", "sentence"),
    [
        (
            "exclude",
            "complete",
            "2 empty cells: under this benchmark's policy your algorithm will not be ranked "
            "until it has results on all 14 datasets.",
        ),
        (
            "rank_on_what_it_has",
            "complete",
            "2 empty cells: under this benchmark's policy your algorithm will be ranked last "
            "on those datasets.",
        ),
        (
            "drop_datasets",
            "complete",
            "2 empty cells: under this benchmark's policy those datasets will be left out of "
            "the analysis for every algorithm.",
        ),
        (
            "drop_datasets",
            "worst",
            "2 empty cells: under this benchmark's policy your algorithm will be ranked last "
            "on those datasets.",
        ),
    ],
)
def test_the_sentence_says_what_the_policy_does(policy, missing, sentence):
    outcome = incomplete_outcome(policy=policy, missing_policy=missing)
    assert incomplete_sentence(n_empty=2, n_board=14, outcome=outcome) == sentence


def test_no_empty_cell_no_sentence():
    assert incomplete_sentence(n_empty=0, n_board=14, outcome="not_ranked") is None
