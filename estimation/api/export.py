"""A snapshot's board as one row per algorithm: the leaderboard table, for spreadsheets.

Pairwise tables (p-values, effect sizes, win matrix) stay in the JSON export; the CSV
keeps what a reader sorts and plots: the position, the rank interval and whether the
algorithm is a plausible winner, the metric's mean and SD, the headline columns, then
every estimator's number with its interval (``<key>_low``, ``<key>_high`` and its label
in ``<key>_interval``: :func:`estimation.core.verdict.win_band`, the exact interval of the
true P(win) beside every estimate of P(win)), its own bootstrap spread
(``<key>_spread_low``, ``<key>_spread_high``) and P(best), then the group letters. Rows come in the page's order
(:func:`estimation.core.verdict.board_order`), and ``position_by`` names (by its display
name) the estimator that order follows; a CSV rounds its numbers (:func:`rounded_rows`),
JSON keeps full precision. The estimator columns are keyed as in the API
(:func:`estimator_column_keys` says which key is which estimator; the API's reference
shows it): the keys are the machine-stable form (the API's CSV and every JSON), and
:func:`column_label` the reader's words (the header of the page's CSV download).
"""

from __future__ import annotations

from typing import Any

from estimation.core.contract import (
    Board,
    BootstrapSummary,
    NemenyiSummary,
    RankIntervals,
    ScoreSummary,
    WilcoxonSummary,
    WinInterval,
)
from estimation.core.registry import ESTIMATORS, estimator_get
from estimation.core.verdict import board_order, shared_positions, win_band
from leaderboard.spreadsheet import csv_text


def estimator_column_keys() -> str:
    """The estimator keys of the export's columns with their display names, for the
    export's documentation ("loo_kl: Leave-one-out weights (log loss); ...")."""
    return "; ".join(f"{e.key}: {e.label}" for e in ESTIMATORS)


# Decimals a CSV keeps: probabilities and shares to 4, ranks to 3, scores to 6 significant.
PROBABILITY_DECIMALS = 4
RANK_DECIMALS = 3
SCORE_SIGNIFICANT = 6


def _per_algorithm(board: Board) -> list[tuple[str, dict[str, Any]]]:
    """(column, {algorithm: value}) in column order, for whatever the board holds."""
    column = board.column
    names = board.algorithms
    ranks = board.ranks if isinstance(board.ranks, RankIntervals) else None
    # present (empty) while the ranks are being computed: one header for every version
    columns: list[tuple[str, dict[str, Any]]] = [
        ("rank_low", column(ranks.lower) if ranks else {}),
        ("rank_high", column(ranks.upper) if ranks else {}),
        (
            "plausible_winner",
            {name: name in ranks.plausible_winners for name in names} if ranks else {},
        ),
        # which question the rank interval and the set of the best answer, in words
        ("rank_question", dict.fromkeys(names, ranks.question_words) if ranks else {}),
    ]
    if isinstance(board.scores, ScoreSummary):
        columns += [
            ("mean_score", column(board.scores.mean)),
            ("sd_score", column(board.scores.sd)),
        ]
    # The win rate is the ``mle`` estimator's point (with its intervals, below): one column.
    if "mle" not in board.estimator_keys:
        columns.append(("win_rate", column(board.win_rate)))
    for key in ("mean_rank", "significance_rank"):
        values = column(getattr(board, key))
        if values:
            columns.append((key, values))
    # Each estimator's point with its interval and that interval's label (one rule:
    # win_band: beside an estimate of P(win), the exact interval of the true P(win)), then
    # the estimate's own bootstrap spread; the win rate's also has Goodman's simultaneous
    # interval.
    for result in board.estimators:
        band = win_band(board, result.key)
        boot = result.bootstrap
        spread = boot if isinstance(boot, BootstrapSummary) else None
        columns += [
            (result.key, column(result.p)),
            (f"{result.key}_low", column(band.lower) if band else {}),
            (f"{result.key}_high", column(band.upper) if band else {}),
            (f"{result.key}_interval", dict.fromkeys(names, band.label) if band else {}),
            (f"{result.key}_spread_low", column(spread.lower) if spread else {}),
            (f"{result.key}_spread_high", column(spread.upper) if spread else {}),
            (
                f"{result.key}_p_best",
                column(boot.p_best) if isinstance(boot, BootstrapSummary) else {},
            ),
        ]
        if result.key == "mle" and isinstance(board.win_interval, WinInterval):
            columns += [
                ("mle_simultaneous_low", column(board.win_interval.simultaneous_lower)),
                ("mle_simultaneous_high", column(board.win_interval.simultaneous_upper)),
            ]
    for test, summary in (("nemenyi", board.nemenyi), ("wilcoxon", board.wilcoxon)):
        if isinstance(summary, (NemenyiSummary, WilcoxonSummary)):
            columns.append((f"{test}_group", column(summary.letters)))
    return columns


def snapshot_rows(
    board: Board, estimator: str | None = None
) -> tuple[list[str], list[dict[str, Any]]]:
    """``(columns, rows)``: each row maps ``position``, ``algorithm`` and every column to a
    value, in the page's order for ``estimator`` (default: the recommended one); equal
    P(win) share a position."""
    key = estimator if estimator in board.estimator_keys else board.recommended
    columns = _per_algorithm(board)
    order = board_order(board, key)
    positions = shared_positions(board, key, order)
    names = board.algorithms
    position_by = estimator_get(key).label
    rows = [
        {
            "position": position,
            "algorithm": names[i],
            "position_by": position_by,
            **{name: values.get(names[i]) for name, values in columns},
        }
        for position, i in zip(positions, order, strict=True)
    ]
    return ["position", "algorithm", "position_by", *(name for name, _ in columns)], rows


def _round(column: str, value: Any) -> Any:
    if not isinstance(value, float):
        return value
    if column in ("mean_score", "sd_score"):
        return float(f"{value:.{SCORE_SIGNIFICANT}g}")
    if column.endswith("rank"):
        return round(value, RANK_DECIMALS)
    return round(value, PROBABILITY_DECIMALS)


def rounded_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with their numbers rounded for reading (JSON keeps them whole)."""
    return [{name: _round(name, value) for name, value in row.items()} for row in rows]


def rows_as_csv(columns: list[str], rows: list[dict[str, Any]], *, readable: bool = False) -> str:
    """The rows as CSV, rounded; names that a spreadsheet would run as formulas are defused.
    ``readable``: the header says each column in words (:func:`column_label`) instead of
    its key; the columns and their order are the same."""
    rounded = rounded_rows(rows)
    if not readable:
        return csv_text(columns, rounded)
    labels = [column_label(name) for name in columns]
    relabelled = [
        {label: row.get(name) for name, label in zip(columns, labels, strict=True)}
        for row in rounded
    ]
    return csv_text(labels, relabelled)


# The words of the columns that are not an estimator's (their keys: :func:`snapshot_rows`).
_COLUMN_WORDS = {
    "position": "Position",
    "algorithm": "Algorithm",
    "position_by": "Ordered by",
    "rank_low": "Rank, best plausible",
    "rank_high": "Rank, worst plausible",
    "plausible_winner": "Plausible winner",
    "rank_question": "Question the rank interval answers",
    "mean_score": "Mean score",
    "sd_score": "SD of the score",
    "win_rate": "Win rate",
    "mean_rank": "Mean rank",
    "significance_rank": "Significance-aware rank",
    "nemenyi_group": "Group (Nemenyi)",
    "wilcoxon_group": "Group (Wilcoxon)",
    "mle_simultaneous_low": "Win rate: simultaneous interval low",
    "mle_simultaneous_high": "Win rate: simultaneous interval high",
}
# An estimator's columns after its key, in words after its name.
_ESTIMATOR_SUFFIXES = {
    "_low": "interval low",
    "_high": "interval high",
    "_interval": "interval",
    "_p_best": "P(best)",
}


def column_label(key: str) -> str:
    """A CSV column in a reader's words: an estimator's by its display name
    ("Leave-one-out weights (log loss): interval low"); the win rate's point is "Win
    rate". One name per key, so a readable header is as unique as the keys."""
    if key in _COLUMN_WORDS:
        return _COLUMN_WORDS[key]
    for estimator in ESTIMATORS:
        if key == estimator.key:
            return estimator.label if key == "mle" else f"P(win): {estimator.label}"
        suffix = key.removeprefix(estimator.key)
        if suffix != key and suffix in _ESTIMATOR_SUFFIXES:
            return f"{estimator.label}: {_ESTIMATOR_SUFFIXES[suffix]}"
    return key
