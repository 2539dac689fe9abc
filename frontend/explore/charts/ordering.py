"""Facts several charts read from a snapshot's board: the order of the algorithms and the
top-K floor; estimator labels come from the registry."""

from __future__ import annotations

import math

from estimation.core.contract import Board, NotApplicable
from estimation.core.registry import ESTIMATORS

ESTIMATOR_ORDER = tuple(e.key for e in ESTIMATORS)
SHORT_LABELS = {e.key: e.short_label for e in ESTIMATORS}
TEST_LABELS = {"nemenyi": "Nemenyi", "wilcoxon": "Wilcoxon signed-rank"}


def check_test(test: str) -> str:
    if test not in TEST_LABELS:
        raise ValueError(f"test must be one of {list(TEST_LABELS)}, got {test!r}")
    return TEST_LABELS[test]


def by_mean_rank(board: Board) -> list[str]:
    """Algorithms, best first: by mean rank when known, else by win rate."""
    names = list(board.algorithms)
    if not isinstance(board.mean_rank, NotApplicable):
        mean_rank = board.column(board.mean_rank)
        return sorted(names, key=lambda a: (mean_rank.get(a) or math.inf, a))
    win_rate = board.column(board.win_rate)
    return sorted(names, key=lambda a: (-(win_rate.get(a) or 0.0), a))


def unknown_rank_floor(board: Board) -> float | None:
    """Ranks above this are placeholders for positions a top-K list does not give."""
    facts = board.input
    if facts.kind == "rank" and facts.known_positions < len(facts.algorithms):
        return float(facts.known_positions)
    return None
