"""Facts several charts read from a snapshot payload: the order of the algorithms and
the top-K floor. Kept apart so the payload's shape is read here, not in each chart."""

from __future__ import annotations

import math
from typing import Any

ESTIMATOR_ORDER = ("loo_kl", "loo_tv", "minimax", "mle", "borda", "plackett_luce")
SHORT_LABELS = {
    "loo_kl": "LOO (log loss)",
    "loo_tv": "LOO (TV)",
    "minimax": "Minimax",
    "mle": "Win rate",
    "borda": "Borda",
    "plackett_luce": "Plackett–Luce",
}
TEST_LABELS = {"nemenyi": "Nemenyi", "wilcoxon": "Wilcoxon signed-rank"}


def check_test(test: str) -> str:
    if test not in TEST_LABELS:
        raise ValueError(f"test must be one of {list(TEST_LABELS)}, got {test!r}")
    return TEST_LABELS[test]


def by_mean_rank(payload: dict[str, Any]) -> list[str]:
    """Algorithms, best first: by mean rank when known, else by win rate."""
    names = list(payload["input"]["algorithms"])
    mean_rank = payload.get("mean_rank")
    if mean_rank:
        return sorted(names, key=lambda a: (mean_rank.get(a) or math.inf, a))
    win_rate = payload.get("win_rate") or {}
    return sorted(names, key=lambda a: (-(win_rate.get(a) or 0.0), a))


def unknown_rank_floor(payload: dict[str, Any]) -> float | None:
    """Ranks above this are placeholders for positions a top-K list does not give."""
    facts = payload["input"]
    if facts.get("kind") == "rank" and facts["known_positions"] < facts["n_algorithms_used"]:
        return float(facts["known_positions"])
    return None
