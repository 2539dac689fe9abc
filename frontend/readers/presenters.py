"""Turn a snapshot's board into what a page shows: rows in reading order, plain sentences.

``leaderboard_board`` is the one description of a leaderboard, read from the typed board
section (estimation/core/contract.py; estimator names and meanings come from the registry,
estimation/core/registry.py): the template ``readers/_leaderboard.html`` renders it on the
server, for the page and for the fragment that ``static/frontend/readers/leaderboard.js``
swaps in when a new version lands or the reader picks another estimator (the script
itself knows no columns and no estimators).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from estimation.core.contract import Board, BootstrapSummary, NotApplicable
from estimation.core.registry import estimator_get


def estimator_order(board: Board) -> list[str]:
    return list(board.estimator_keys)


def selected_estimator(board: Board, requested: str | None) -> str:
    """``requested`` when the board has it, else the benchmark's recommended one."""
    available = estimator_order(board)
    if requested in available:
        return requested
    return board.recommended if board.recommended in available else available[0]


def leaderboard_board(board: Board) -> dict[str, Any]:
    """Every estimator's numbers and the per-algorithm columns, JSON-ready."""
    group_test, letters = board.letters()
    column = board.column
    evaluation = board.evaluation
    estimators = []
    for result in board.estimators:
        entry = estimator_get(result.key)
        boot = result.bootstrap
        estimators.append(
            {
                "key": result.key,
                "label": entry.label,
                "description": entry.meaning,
                "p": column(result.p),
                "ci": {
                    a: [lo, hi]
                    for a, lo, hi in zip(board.algorithms, boot.lower, boot.upper, strict=True)
                }
                if isinstance(boot, BootstrapSummary)
                else None,
                "p_best": column(boot.p_best) if isinstance(boot, BootstrapSummary) else None,
            }
        )
    win_rate = column(board.win_rate)
    mean_rank = column(board.mean_rank)
    significance_rank = column(board.significance_rank)
    borda = column(board.estimator("borda").p)
    plackett_luce = column(board.estimator("plackett_luce").p)
    return {
        "recommended": board.recommended,
        "best_predictor": None if isinstance(evaluation, NotApplicable) else evaluation.best,
        "estimators": estimators,
        "algorithms": [
            {
                "name": name,
                "win_rate": win_rate.get(name),
                "mean_rank": mean_rank.get(name),
                "significance_rank": significance_rank.get(name),
                "borda": borda.get(name),
                "plackett_luce": plackett_luce.get(name),
                "group": letters.get(name, ""),
            }
            for name in board.algorithms
        ],
        "has_mean_rank": bool(mean_rank),
        "has_significance_rank": bool(significance_rank),
        "group_test": group_test,
        "notes": reader_notes(board),
    }


@dataclass(frozen=True)
class LeaderboardRow:
    position: int
    algorithm: str
    probability: float | None
    low: float | None
    high: float | None
    p_best: float | None
    win_rate: float | None
    mean_rank: float | None
    significance_rank: float | None
    borda: float | None
    plackett_luce: float | None
    group: str
    bar: dict[str, str] | None

    # Formatted once here: Django's floatformat costs ~20 µs a cell, 30 ms at m = 100.
    @property
    def text(self) -> dict[str, str]:
        return {
            "probability": number_text(self.probability, 3),
            "interval": f"{number_text(self.low, 3)}–{number_text(self.high, 3)}",
            "p_best": number_text(self.p_best, 2),
            "win_rate": number_text(self.win_rate, 3),
            "mean_rank": number_text(self.mean_rank, 2),
            "significance_rank": number_text(self.significance_rank, 2),
            "borda": number_text(self.borda, 3),
            "plackett_luce": number_text(self.plackett_luce, 3),
        }


def number_text(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def bar_scale(highest: float) -> float:
    """The right end of the interval bars: a round number at or above ``highest``."""
    for end in (0.05, 0.1, 0.2, 0.25, 0.5):
        if highest <= end:
            return end
    return 1.0


def _ordered(probabilities: dict[str, float | None], names: list[str]) -> list[str]:
    return sorted(names, key=lambda name: (-(probabilities.get(name) or 0.0), name))


def leaderboard_rows(board: dict[str, Any], estimator: str) -> tuple[list[LeaderboardRow], float]:
    """Rows for one estimator, most probable winner first, and the bars' scale."""
    chosen = next(e for e in board["estimators"] if e["key"] == estimator)
    p, intervals, p_best = chosen["p"], chosen["ci"] or {}, chosen["p_best"] or {}
    by_name = {row["name"]: row for row in board["algorithms"]}
    highest = max(
        [
            max((intervals.get(name) or [None, None])[1] or 0.0, p.get(name) or 0.0)
            for name in by_name
        ]
        or [0.0]
    )
    scale = bar_scale(highest)
    rows = []
    for position, name in enumerate(_ordered(p, list(by_name)), start=1):
        low, high = intervals.get(name) or (None, None)
        bar = None
        if low is not None and high is not None:
            bar = {
                "left": f"{low / scale * 100:.1f}",
                "width": f"{max(high - low, 0.0) / scale * 100:.1f}",
                "point": f"{min((p.get(name) or 0.0) / scale, 1.0) * 100:.1f}",
            }
        algorithm = by_name[name]
        rows.append(
            LeaderboardRow(
                position=position,
                algorithm=name,
                probability=p.get(name),
                low=low,
                high=high,
                p_best=p_best.get(name),
                win_rate=algorithm["win_rate"],
                mean_rank=algorithm["mean_rank"],
                significance_rank=algorithm["significance_rank"],
                borda=algorithm["borda"],
                plackett_luce=algorithm["plackett_luce"],
                group=algorithm["group"],
                bar=bar,
            )
        )
    return rows, scale


def reader_notes(board: Board) -> list[str]:
    """The engine's coverage notes, plus what does not apply, in plain words."""
    notes = list(board.notes)
    if isinstance(board.nemenyi, NotApplicable):
        notes.append(
            f"Groups of algorithms that cannot be told apart are not shown: {board.nemenyi.reason}."
        )
    if isinstance(board.mean_rank, NotApplicable):
        notes.append("Mean ranks need complete rankings, so they are not shown.")
    return notes


def friedman_summary(board: Board) -> str:
    friedman = board.friedman
    if isinstance(friedman, NotApplicable):
        return f"Friedman test: not applicable ({friedman.reason})."
    verdict = "differ" if friedman.pvalue < board.settings.alpha else "do not clearly differ"
    iman_davenport = friedman.iman_davenport
    return (
        f"Friedman test: the algorithms {verdict} "
        f"(χ² = {friedman.statistic:.2f}, p = {friedman.pvalue:.3g}; "
        f"Iman–Davenport F = {iman_davenport if iman_davenport is not None else float('inf'):.2f})."
    )


# --- history --------------------------------------------------------------------------


def competition_ranks(probabilities: dict[str, float | None]) -> dict[str, int]:
    """Position of each algorithm by probability, ties sharing the best position (1224)."""
    ranks: dict[str, int] = {}
    previous = None
    for index, name in enumerate(_ordered(probabilities, list(probabilities)), start=1):
        value = probabilities.get(name) or 0.0
        if previous is None or value != previous[1]:
            previous = (index, value)
        ranks[name] = previous[0]
    return ranks


@dataclass(frozen=True)
class Move:
    algorithm: str
    before: int
    after: int


@dataclass(frozen=True)
class RankChanges:
    """What changed from one ready version to the next one."""

    previous_version: int
    up: list[Move]
    down: list[Move]
    new: list[str]
    gone: list[str]
    estimator_changed: bool

    @property
    def is_empty(self) -> bool:
        return not (self.up or self.down or self.new or self.gone)


def rank_changes(
    *,
    previous_version: int,
    before: dict[str, float | None],
    after: dict[str, float | None],
    estimator_changed: bool = False,
) -> RankChanges:
    old, new = competition_ranks(before), competition_ranks(after)
    moves = [Move(name, old[name], new[name]) for name in new if name in old]
    return RankChanges(
        previous_version=previous_version,
        up=sorted((m for m in moves if m.after < m.before), key=lambda m: (m.after, m.algorithm)),
        down=sorted((m for m in moves if m.after > m.before), key=lambda m: (m.after, m.algorithm)),
        new=sorted((name for name in new if name not in old), key=lambda name: new[name]),
        gone=sorted(name for name in old if name not in new),
        estimator_changed=estimator_changed,
    )


@dataclass(frozen=True)
class HistoryRow:
    entry: Any
    leader: str | None
    changes: RankChanges | None


def history_rows(entries: list) -> list[HistoryRow]:
    """Newest first; each ready version compared with the ready version before it."""
    rows = []
    ready = [e for e in entries if e.probabilities is not None]
    older_ready = {newer.version: older for newer, older in pairwise(ready)}
    for entry in entries:
        leader = changes = None
        if entry.probabilities is not None:
            ranks = competition_ranks(entry.probabilities)
            leader = min(ranks, key=lambda name: (ranks[name], name)) if ranks else None
            older = older_ready.get(entry.version)
            if older is not None:
                changes = rank_changes(
                    previous_version=older.version,
                    before=older.probabilities,
                    after=entry.probabilities,
                    estimator_changed=older.estimator != entry.estimator,
                )
        rows.append(HistoryRow(entry=entry, leader=leader, changes=changes))
    return rows
