"""A snapshot's board as one row per algorithm: the leaderboard table, for spreadsheets.

Pairwise tables (p-values, effect sizes, win matrix) stay in the JSON export; the CSV
keeps what a reader sorts and plots: the headline columns, then every estimator's
probability with its bootstrap interval and P(best), then the group letters.
"""

from __future__ import annotations

from typing import Any

from estimation.core.contract import (
    Board,
    BootstrapSummary,
    NemenyiSummary,
    WilcoxonSummary,
    WinInterval,
)
from leaderboard.spreadsheet import csv_text


def _per_algorithm(board: Board) -> list[tuple[str, dict[str, Any]]]:
    """(column, {algorithm: value}) in column order, for whatever the board holds."""
    column = board.column
    columns: list[tuple[str, dict[str, Any]]] = [("win_rate", column(board.win_rate))]
    for key in ("mean_rank", "significance_rank"):
        values = column(getattr(board, key))
        if values:
            columns.append((key, values))
    # The confidence interval for the win probability (Wilson; Goodman simultaneous), and
    # per estimator the bootstrap band: the spread of the estimate, not an interval for p.
    interval = board.win_interval
    if isinstance(interval, WinInterval):
        columns += [
            ("win_ci_low", column(interval.lower)),
            ("win_ci_high", column(interval.upper)),
            ("win_ci_simultaneous_low", column(interval.simultaneous_lower)),
            ("win_ci_simultaneous_high", column(interval.simultaneous_upper)),
        ]
    for result in board.estimators:
        boot = result.bootstrap
        columns.append((result.key, column(result.p)))
        if isinstance(boot, BootstrapSummary):
            columns += [
                (f"{result.key}_spread_low", column(boot.lower)),
                (f"{result.key}_spread_high", column(boot.upper)),
                (f"{result.key}_p_best", column(boot.p_best)),
            ]
        else:
            columns += [
                (f"{result.key}_{end}", {}) for end in ("spread_low", "spread_high", "p_best")
            ]
    for test, summary in (("nemenyi", board.nemenyi), ("wilcoxon", board.wilcoxon)):
        if isinstance(summary, (NemenyiSummary, WilcoxonSummary)):
            columns.append((f"{test}_group", column(summary.letters)))
    return columns


def snapshot_rows(board: Board) -> tuple[list[str], list[dict[str, Any]]]:
    """``(columns, rows)``: each row maps ``algorithm`` and every column to a value."""
    columns = _per_algorithm(board)
    rows = [
        {"algorithm": algorithm, **{name: values.get(algorithm) for name, values in columns}}
        for algorithm in board.algorithms
    ]
    return ["algorithm", *(name for name, _ in columns)], rows


def rows_as_csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    """The rows as CSV; names that a spreadsheet would run as formulas are defused."""
    return csv_text(columns, rows)
