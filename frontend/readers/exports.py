"""A leaderboard as a file to keep: CSV, JSON or a LaTeX (booktabs) table.

Every file names the snapshot version and carries a citation line: the benchmark's own
citation, then "Podium snapshot vN, <permalink>". CSV and JSON use the API export's
columns (``estimation.api.export.snapshot_rows``); LaTeX is the page's table.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.core.serializers.json import DjangoJSONEncoder

from estimation.api.export import column_label, rows_as_csv, snapshot_rows
from estimation.core.contract import Board, NotApplicable, RankIntervals, to_json
from estimation.core.registry import estimator_get
from estimation.core.verdict import board_verdict
from frontend.readers.board_view import BoardView
from frontend.readers.presenters import (
    LeaderboardRow,
    TableLegend,
    leaderboard_board,
    leaderboard_rows,
    table_legend,
)

FORMATS = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "tex": "application/x-tex; charset=utf-8",
}


@dataclass(frozen=True)
class ExportSource:
    """What an export says about where its numbers come from."""

    benchmark_title: str
    benchmark_citation: str
    metric: str
    version: int
    finished_at: Any
    permalink: str

    @property
    def citation_line(self) -> str:
        return f"{citation_prefix(self.benchmark_citation)}Podium snapshot v{self.version}, {self.permalink}"


def citation_prefix(citation: str) -> str:
    """The benchmark's own citation on one line, ready to be followed by Podium's."""
    own = _one_line(citation)
    if not own:
        return ""
    return f"{own} " if own[-1] in ".!?" else f"{own}; "


def export_csv(
    board: Board, source: ExportSource, estimator: str | None = None, *, readable: bool = True
) -> str:
    """The API's CSV, as ``pandas.read_csv`` reads it with no options: a header line and a
    row per algorithm in the page's order. The header is in words for a reader
    (``readable``), or the API's keys, byte for byte the API's file. The version and
    citation travel in the JSON export and in the response's headers
    (:func:`export_headers`)."""
    columns, rows = snapshot_rows(board, estimator)
    return rows_as_csv(columns, rows, readable=readable)


def export_headers(source: ExportSource) -> dict[str, str]:
    """HTTP headers that carry what a CSV has no room for: version, permalink, citation
    (percent-encoded UTF-8, since header values are Latin-1)."""
    return {
        "X-Podium-Snapshot-Version": str(source.version),
        "Link": f'<{source.permalink}>; rel="cite-as"',
        "X-Podium-Citation": quote(source.citation_line, safe=" ,.;:/()'&?=-_~"),
    }


def export_json(board: Board, source: ExportSource, estimator: str | None = None) -> str:
    columns, rows = snapshot_rows(board, estimator)
    verdict = board_verdict(board, estimator)
    body = {
        "benchmark": source.benchmark_title,
        "metric": source.metric,
        "version": source.version,
        "finished_at": source.finished_at,
        "permalink": source.permalink,
        "citation": source.citation_line,
        "recommended_estimator": board.recommended,
        "recommended_by": board.recommended_by,
        "estimator": estimator if estimator in board.estimator_keys else board.recommended,
        "verdict": None if isinstance(verdict, NotApplicable) else to_json(verdict),
        "plausible_winners": list(ranks.plausible_winners)
        if isinstance(ranks := board.ranks, RankIntervals)
        else None,
        "columns": columns,
        # the header of the page's CSV, column by column
        "column_labels": [column_label(name) for name in columns],
        "rows": rows,
        # everything else, each interval with its label, method and kind: the contract
        "board": to_json(board),
    }
    return json.dumps(body, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False)


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
_LATEX_PATTERN = re.compile("|".join(re.escape(char) for char in _LATEX_SPECIALS))


def latex_escape(text: str) -> str:
    """Text that LaTeX prints as is (one pass, so escapes are never escaped again)."""
    return _LATEX_PATTERN.sub(lambda match: _LATEX_SPECIALS[match.group()], _one_line(text))


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _number(value: float | None, digits: int = 3) -> str:
    return "--" if value is None else f"{value:.{digits}f}"


def export_latex(board: Board, source: ExportSource, estimator: str) -> str:
    """A booktabs table (needs ``\\usepackage{booktabs}`` and ``\\usepackage{url}``)."""
    table = leaderboard_board(board)
    legend = table_legend(board, estimator)
    rows, _ = leaderboard_rows(table, estimator)
    columns = _latex_columns(table, legend, source)
    lines = [
        f"% {latex_escape(source.benchmark_title)}: Podium snapshot v{source.version}",
        f"% Cite: {latex_escape(source.citation_line)}",
        "% Needs \\usepackage{booktabs} and \\usepackage{url} (or hyperref).",
        "\\begin{table}[ht]",
        "\\centering",
        f"\\begin{{tabular}}{{rcl{'r' * (len(columns) - 3)}}}",
        "\\toprule",
        " & ".join(columns) + " \\\\",
        "\\midrule",
        *(" & ".join(_latex_cells(row, table)) + " \\\\" for row in rows),
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{{_latex_caption(table, legend, source, estimator)}}}",
        "\\end{table}",
        "",
    ]
    return "\n".join(lines)


def _latex_columns(table: BoardView, legend: TableLegend, source: ExportSource) -> list[str]:
    columns = ["\\#", latex_escape(legend.ranks_label), "Algorithm", "$P(\\mathrm{win})$"]
    columns += [latex_escape(legend.interval_label), "$P(\\mathrm{best})$", "Win rate"]
    if table.has_scores:
        columns.append(f"Mean {latex_escape(source.metric)} (SD)")
    if table.has_mean_rank:
        columns.append("Mean rank")
    if table.has_significance_rank:
        columns.append("Signif.\\ rank")
    columns += ["Borda", "Plackett--Luce"]
    if table.group_test:
        columns.append("Group")
    return columns


def _latex_cells(row: LeaderboardRow, table: BoardView) -> list[str]:
    """One algorithm's cells, in the order of :func:`_latex_columns`."""
    interval = f"[{_number(row.low)}, {_number(row.high)}]" if row.low is not None else "--"
    position = f"={row.position}" if row.tied else str(row.position)
    star = "$^\\star$" if row.plausible else ""
    cells = [
        position,
        row.rank_text.replace("–", "--").replace("…", "--"),
        latex_escape(row.algorithm) + star,
        _number(row.probability),
        interval,
        _number(row.p_best, 2),
        _number(row.win_rate),
    ]
    if table.has_scores:
        cells.append(row.text["mean_score"].replace("–", "--"))
    if table.has_mean_rank:
        cells.append(_number(row.mean_rank, 2))
    if table.has_significance_rank:
        cells.append(_number(row.significance_rank, 2))
    cells += [_number(row.borda), _number(row.plackett_luce)]
    if table.group_test:
        cells.append(latex_escape(row.group) or "--")
    return cells


def _latex_caption(
    table: BoardView, legend: TableLegend, source: ExportSource, estimator: str
) -> str:
    label = estimator_get(estimator).label
    permalink = source.permalink.replace("%", "\\%").replace("#", "\\#")
    prefix = citation_prefix(source.benchmark_citation)
    cite = f"{latex_escape(prefix)} " if prefix else ""
    caption = (
        f"{latex_escape(source.benchmark_title)}, metric {latex_escape(source.metric)}: "
        f"probability that each algorithm wins a new dataset, {latex_escape(label)}, "
        f"with its {latex_escape(legend.interval_label)}"
    )
    if legend.ranks is not None:
        of = (
            f" of {latex_escape(estimator_get(legend.ranks.estimator).label)}"
            if legend.ranks_of_another_estimator
            else ""
        )
        caption += (
            f"; {latex_escape(legend.ranks_label)}{of} (1 = best, simultaneous); "
            f"$^\\star$: a plausible winner (its rank interval starts at 1)"
        )
    if table.group_test:
        caption += (
            f"; algorithms sharing a letter are not significantly different ({table.group_test})"
        )
    return caption + f". Source: {cite}Podium snapshot v{source.version}, \\url{{{permalink}}}."
