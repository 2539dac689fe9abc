"""A readable terminal report of an analysis (what ``manage.py analyze`` prints)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from estimation.core.contract import (
    Board,
    BootstrapSummary,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    SnapshotPayload,
    WilcoxonSection,
    WilcoxonSummary,
    WinInterval,
)
from estimation.core.registry import estimator_get
from estimation.core.verdict import board_order, shared_positions

MAX_MATRIX_ALGORITHMS = 12


def _number(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}"


def _pvalue(value: Any) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """A plain text table; ``align`` has one of '<' or '>' per column."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{cell:{a}{w}}" for cell, a, w in zip(cells, align, widths, strict=True)
        ).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(row) for row in rows)]


def _position_labels(board: Board, estimator: str, order: Sequence[int]) -> list[str]:
    """Each row's position as the leaderboard shows it: ``=4`` when rows share it."""
    positions = shared_positions(board, estimator, order)
    counts = Counter(positions)
    return [f"={p}" if counts[p] > 1 else str(p) for p in positions]


def render_report(payload: SnapshotPayload, *, source: str = "") -> str:
    board = payload.board
    facts = board.input
    algorithms = board.algorithms
    head = board.estimator(board.recommended)
    lines = [f"Podium analysis{f' of {source}' if source else ''}", ""]
    direction = {"higher": "higher is better", "lower": "lower is better", "rank": "rankings"}
    lines.append(
        f"{facts.n_datasets_used} of {facts.n_datasets} datasets used, "
        f"{len(algorithms)} algorithms, {direction[facts.direction]}, "
        f"{'with' if facts.has_folds else 'no'} folds."
    )
    lines.extend(f"Note: {note}" for note in board.notes)
    lines.append("")

    weights = head.weights
    weight_text = f", weights {' '.join(f'{w:.3f}' for w in weights)}" if weights else ""
    lines.append(
        f"Probability of winning a new dataset: {estimator_get(head.key).label}{weight_text}"
    )
    _, letters = board.letters()
    p = board.column(head.p)
    boot = head.bootstrap if isinstance(head.bootstrap, BootstrapSummary) else None
    lower, upper = (
        board.column(boot.lower) if boot else {},
        board.column(boot.upper) if boot else {},
    )
    p_best = board.column(boot.p_best) if boot else {}
    wilson = board.win_interval if isinstance(board.win_interval, WinInterval) else None
    ci_lower = board.column(wilson.lower) if wilson else {}
    ci_upper = board.column(wilson.upper) if wilson else {}
    win_rate, mean_rank = board.column(board.win_rate), board.column(board.mean_rank)
    significance_rank = board.column(board.significance_rank)
    # The site's order and numbering (equal P(win) share "=4"), from the one rule.
    indices = board_order(board, head.key)
    order = [algorithms[i] for i in indices]
    rows = []
    for position, name in zip(_position_labels(board, head.key, indices), order, strict=True):
        rows.append(
            [
                position,
                name,
                _number(p[name]),
                f"[{_number(ci_lower[name])}, {_number(ci_upper[name])}]" if wilson else "n/a",
                f"[{_number(lower[name])}, {_number(upper[name])}]" if boot else "n/a",
                _number(p_best.get(name)),
                _number(win_rate[name]),
                _number(mean_rank.get(name), 2),
                _number(significance_rank.get(name), 2),
                letters.get(name, ""),
            ]
        )
    lines += _table(
        [
            "#",
            "algorithm",
            "P(win)",
            "95% CI (Wilson)",
            "spread (bootstrap)",
            "P(best)",
            "win rate",
            "mean rank",
            "signif. rank",
            "group",
        ],
        rows,
        "><>>>>>>><",
    )
    lines.append("")

    lines.append("All estimators (probability of winning)")
    columns = {result.key: board.column(result.p) for result in board.estimators}
    rows = [[name, *(_number(columns[s][name]) for s in columns)] for name in order]
    lines += _table(["algorithm", *columns], rows, "<" + ">" * len(columns))
    minimax = board.estimator("minimax")
    if minimax.bound is not None:
        lines.append(f"Minimax worst-case TV bound: {_number(minimax.bound)}")
    lines.append("")

    lines += _tests_section(payload)
    lines += _evaluation_section(payload)
    return "\n".join(lines).rstrip() + "\n"


def _tests_section(payload: SnapshotPayload) -> list[str]:
    board = payload.board
    algorithms = board.algorithms
    lines = ["Tests across datasets"]
    friedman = board.friedman
    if isinstance(friedman, NotApplicable):
        lines.append(f"  Friedman: not applicable ({friedman.reason})")
    elif isinstance(friedman.iman_davenport, NotApplicable):
        lines.append(
            f"  Friedman chi2 = {_number(friedman.statistic)} (uncorrected "
            f"{_number(friedman.statistic_uncorrected)}), p = {_pvalue(friedman.pvalue)}, "
            f"exact p = {_pvalue(friedman.exact_pvalue)}; Iman-Davenport F: not applicable "
            f"({friedman.iman_davenport.reason})"
        )
    else:
        assert not isinstance(friedman.iman_davenport_pvalue, NotApplicable)
        lines.append(
            f"  Friedman chi2 = {_number(friedman.statistic)} (uncorrected "
            f"{_number(friedman.statistic_uncorrected)}), p = {_pvalue(friedman.pvalue)}; "
            f"Iman-Davenport F = {_number(friedman.iman_davenport)}, "
            f"p = {_pvalue(friedman.iman_davenport_pvalue)}"
        )
    nemenyi, nemenyi_pairs = board.nemenyi, payload.nemenyi
    if isinstance(nemenyi, NotApplicable):
        lines.append(f"  Nemenyi: not applicable ({nemenyi.reason})")
    elif isinstance(nemenyi, NemenyiSummary) and isinstance(nemenyi_pairs, NemenyiSection):
        if isinstance(nemenyi_pairs.groups, NotApplicable):
            groups = f"not shown ({nemenyi_pairs.groups.reason})"
        else:
            groups = (
                "; ".join(
                    ", ".join(algorithms[i] for i in group)
                    for group in nemenyi_pairs.groups
                    if len(group) > 1
                )
                or "none"
            )
        lines.append(
            f"  Nemenyi critical difference {_number(nemenyi.critical_difference)} "
            f"(alpha {nemenyi.alpha}); indistinguishable groups: {groups}"
        )
    wilcoxon, wilcoxon_pairs = board.wilcoxon, payload.wilcoxon
    if isinstance(wilcoxon, NotApplicable):
        lines.append(f"  Wilcoxon: not applicable ({wilcoxon.reason})")
    elif (
        isinstance(wilcoxon, WilcoxonSummary)
        and isinstance(wilcoxon_pairs, WilcoxonSection)
        and len(algorithms) <= MAX_MATRIX_ALGORITHMS
    ):
        m = len(algorithms)
        lines.append(f"  Wilcoxon signed-rank, {wilcoxon.correction}-corrected p-values:")
        rows = [
            [
                a,
                *(
                    "-" if i == j else _pvalue(wilcoxon_pairs.pvalues.get(i, j, m))
                    for j in range(m)
                ),
            ]
            for i, a in enumerate(algorithms)
        ]
        lines += [
            "    " + row for row in _table(["", *algorithms], rows, "<" + ">" * len(algorithms))
        ]
    elif isinstance(wilcoxon, WilcoxonSummary):
        lines.append(
            f"  Wilcoxon signed-rank ({wilcoxon.correction}): {len(algorithms)} algorithms; "
            "see --json for the pairwise p-values."
        )
    within = payload.within_dataset
    if isinstance(within, NotApplicable):
        lines.append(f"  Within datasets: not applicable ({within.reason})")
    else:
        lines.append(
            "  Within datasets (repeated-measures Tukey on folds): significance-aware mean "
            "rank shown above."
        )
    lines.append("")
    return lines


def _evaluation_section(payload: SnapshotPayload) -> list[str]:
    evaluation = payload.board.evaluation
    if isinstance(evaluation, NotApplicable):
        return [f"Which estimator predicts best: not applicable ({evaluation.reason})"]
    folds = (
        "leave-one-out"
        if evaluation.leave_one_out
        else f"{evaluation.n_folds}-fold x {evaluation.n_repeats}"
    )
    lines = [f"Which estimator predicts best here ({folds} over datasets; lower is better)"]
    log_loss = evaluation.log_loss
    schemes = sorted(log_loss, key=lambda s: _sort_key(log_loss[s]))
    rows = [
        [
            s,
            _number(log_loss[s]),
            _number(evaluation.brier.get(s)),
            _number(evaluation.tv.get(s)),
            _number(evaluation.win_share.get(s), 2),
            "reference" if s == "mle" else _pvalue(evaluation.pvalue_vs_mle.get(s)),
        ]
        for s in schemes
    ]
    lines += _table(
        ["scheme", "log loss", "Brier", "TV (improper)", "splits won", "p vs win rate"],
        rows,
        "<>>>>>",
    )
    lines.append(f"  Verdict: {evaluation.verdict} (Nadeau-Bengio corrected t-test on log loss).")
    return lines


def _sort_key(value: Any) -> float:
    return float("inf") if value is None else value
