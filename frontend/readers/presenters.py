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

from estimation.core.contract import Board, BootstrapSummary, NotApplicable, WinInterval
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
    """What a leaderboard shows besides its rows: the estimators (label and meaning from
    the registry), which columns apply, the notes; and the typed board the rows are read
    from. Nothing here is built per algorithm: a page of a board of thousands costs what a
    small board does (see :func:`leaderboard_rows`)."""
    group_test, _ = _group_letters(board)
    evaluation = board.evaluation
    return {
        "typed": board,
        "recommended": board.recommended,
        # the badge only when the lowest-loss estimator beats the win rate (METHODS 7)
        "best_predictor": None
        if isinstance(evaluation, NotApplicable)
        else evaluation.predicts_best,
        "evaluation_verdict": None if isinstance(evaluation, NotApplicable) else evaluation.verdict,
        "estimators": [
            {
                "key": result.key,
                "label": estimator_get(result.key).label,
                "description": estimator_get(result.key).meaning,
            }
            for result in board.estimators
        ],
        "n_algorithms": len(board.algorithms),
        "has_mean_rank": _has_values(board.mean_rank),
        "has_significance_rank": _has_values(board.significance_rank),
        "group_test": group_test,
        "notes": reader_notes(board),
    }


def _has_values(values: tuple[float | None, ...] | NotApplicable) -> bool:
    return not isinstance(values, NotApplicable) and len(values) > 0


def _group_letters(board: Board) -> tuple[str | None, tuple[str, ...] | None]:
    """The letters the table shows (Nemenyi's, else Wilcoxon's, aligned with the board's
    algorithms) and the test's name: :meth:`Board.letters` without the per-name dict."""
    for test, summary in (("Nemenyi", board.nemenyi), ("Wilcoxon", board.wilcoxon)):
        letters = getattr(summary, "letters", None)
        if not isinstance(summary, NotApplicable) and isinstance(letters, tuple):
            return test, letters
    return None, None


@dataclass(frozen=True)
class LeaderboardRow:
    position: int
    algorithm: str
    probability: float | None
    low: float | None  # the confidence interval for the win probability (Wilson)
    high: float | None
    spread_low: float | None  # the bootstrap band of this estimate (its spread)
    spread_high: float | None
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
            "spread": f"{number_text(self.spread_low, 3)}–{number_text(self.spread_high, 3)}",
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


def leaderboard_rows(
    board: dict[str, Any], estimator: str, shown: slice | None = None
) -> tuple[list[LeaderboardRow], float]:
    """Rows for one estimator, most probable winner first, and the bars' scale.

    ``board`` is :func:`leaderboard_board`'s. ``shown`` selects the rows of one page
    (positions stay those of the whole board, the scale that of every row); only those
    rows are built.
    """
    typed: Board = board["typed"]
    names = typed.algorithms
    result = typed.estimator(estimator)
    p = result.p
    boot = result.bootstrap
    bounds = boot if isinstance(boot, BootstrapSummary) else None
    # The bar is the confidence interval for the win probability itself (Wilson, the
    # same for every estimator); the bootstrap band is the spread of the estimate.
    interval = typed.win_interval if isinstance(typed.win_interval, WinInterval) else None
    highest = max(
        [
            max((interval.upper[i] if interval else None) or 0.0, p[i] or 0.0)
            for i in range(len(names))
        ]
        or [0.0]
    )
    scale = bar_scale(highest)

    def values(column: tuple[float | None, ...] | NotApplicable) -> tuple[float | None, ...]:
        return (None,) * len(names) if isinstance(column, NotApplicable) else column

    win_rate, mean_rank = values(typed.win_rate), values(typed.mean_rank)
    significance_rank = values(typed.significance_rank)
    borda, plackett_luce = typed.estimator("borda").p, typed.estimator("plackett_luce").p
    _, letters = _group_letters(typed)
    order = sorted(range(len(names)), key=lambda i: (-(p[i] or 0.0), names[i]))
    shown = shown if shown is not None else slice(None)
    first = shown.indices(len(order))[0] + 1
    rows = []
    for position, i in enumerate(order[shown], start=first):
        low, high = (interval.lower[i], interval.upper[i]) if interval else (None, None)
        bar = None
        if low is not None and high is not None:
            bar = {
                "left": f"{low / scale * 100:.1f}",
                "width": f"{max(high - low, 0.0) / scale * 100:.1f}",
                "point": f"{min((p[i] or 0.0) / scale, 1.0) * 100:.1f}",
            }
        rows.append(
            LeaderboardRow(
                position=position,
                algorithm=names[i],
                probability=p[i],
                low=low,
                high=high,
                spread_low=bounds.lower[i] if bounds else None,
                spread_high=bounds.upper[i] if bounds else None,
                p_best=bounds.p_best[i] if bounds else None,
                win_rate=win_rate[i],
                mean_rank=mean_rank[i],
                significance_rank=significance_rank[i],
                borda=borda[i],
                plackett_luce=plackett_luce[i],
                group=letters[i] if letters else "",
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
    if isinstance(iman_davenport, NotApplicable):
        return (
            f"Friedman test: every dataset ranks the algorithms identically "
            f"(χ² = {friedman.statistic:.2f}, exact p = {friedman.exact_pvalue:.3g}); "
            "Iman–Davenport F does not apply (it would be infinite)."
        )
    return (
        f"Friedman test: the algorithms {verdict} "
        f"(χ² = {friedman.statistic:.2f}, p = {friedman.pvalue:.3g}; "
        f"Iman–Davenport F = {iman_davenport:.2f})."
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
