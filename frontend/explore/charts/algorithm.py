"""Charts of one algorithm: how often it finished in each position, and how far it is
behind each dataset's winner."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from estimation.core.contract import Board, NotApplicable, RankMatrixSection
from frontend.explore.charts import layout
from frontend.explore.charts.layout import (
    BLUE,
    GREEN,
    MUTED,
    VERMILION,
    Chart,
    rect,
    text,
)
from frontend.explore.charts.ordering import unknown_rank_floor
from frontend.explore.charts.rank_distribution import positional_counts


class Margin(Protocol):
    """A dataset-level comparison of one algorithm with the dataset's winner."""

    @property
    def dataset(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def winner(self) -> str: ...
    @property
    def best(self) -> float: ...
    @property
    def margin(self) -> float: ...


# The rank-matrix section, or why it is not there (None: not loaded).
RankMatrix = RankMatrixSection | NotApplicable | None


@dataclass(frozen=True)
class PositionBar:
    label: str  # "1", "2", … , a bin "2–51", or "below K" (unknown positions of top-K)
    datasets: float  # a tie of t counts 1/t at each position it spans


# Above this many positions, the histogram bins them: position 1 (a win) keeps its own
# bar, the others go in equal bins, so m = 2000 draws 40 bars, not 2000.
MAX_POSITION_BARS = 40


def algorithm_positions(
    board: Board, matrix: RankMatrix, algorithm: str
) -> list[tuple[str, float]]:
    """How many datasets ``algorithm`` finished in each position (a tie of t counts 1/t each).

    With top-K input the positions after K are unknown: they are counted together.
    """
    return [(bar.label, bar.datasets) for bar in rank_histogram_data(board, matrix, algorithm)]


def rank_histogram_data(
    board: Board, matrix: RankMatrix, algorithm: str
) -> tuple[PositionBar, ...]:
    if not isinstance(matrix, RankMatrixSection) or algorithm not in matrix.algorithms:
        return ()
    ranks = np.asarray(matrix.ranks, dtype=float)
    column = matrix.algorithms.index(algorithm)
    floor = unknown_rank_floor(board)
    known = int(floor) if floor is not None else ranks.shape[1]
    counts = positional_counts(ranks, known)[:, column]
    bars = _binned(counts, MAX_POSITION_BARS - (floor is not None))
    if floor is not None:
        bars.append(PositionBar(f"below {known}", float((ranks[:, column] > floor).sum())))
    return tuple(bars)


def _binned(counts: np.ndarray, max_bars: int) -> list[PositionBar]:
    """One bar per position, or position 1 then equal bins of the rest (the last may be
    shorter) when there are more than ``max_bars`` positions."""
    known = len(counts)
    if known <= max_bars:
        return [PositionBar(str(p), float(counts[p - 1])) for p in range(1, known + 1)]
    width = math.ceil((known - 1) / (max_bars - 1))
    bars = [PositionBar("1", float(counts[0]))]
    for start in range(2, known + 1, width):
        stop = min(start + width - 1, known)
        label = str(start) if stop == start else f"{start}–{stop}"
        bars.append(PositionBar(label, float(counts[start - 1 : stop].sum())))
    return bars


# Estimated width of a 10 px character of a bar label (DejaVu Sans digits are 6.4 px wide;
# the en dash of "94–97" narrower): a label's box, to keep it clear of its neighbours.
LABEL_CHAR_PX = 6.4
LABEL_GAP_PX = 4.0


def labelled_bars(labels: Sequence[str], left: float, bar_w: float) -> set[int]:
    """Indices of the bars whose label is drawn under the axis: from the left, each label
    whose box starts clear of the last one drawn (and of the y axis's labels, which end
    6 px left of ``left``: the corner); the last bar ("below K" or the last bin) always,
    the label before it giving way. Unlabelled bars keep their tooltip and table row."""

    def span(index: int) -> tuple[float, float]:
        centre = left + (index + 0.5) * bar_w
        half = len(labels[index]) * LABEL_CHAR_PX / 2
        return centre - half, centre + half

    shown: list[int] = []
    edge = left - 6 + LABEL_GAP_PX
    for index in range(len(labels)):
        start, end = span(index)
        if start >= edge:
            shown.append(index)
            edge = end + LABEL_GAP_PX
    last = len(labels) - 1
    if last >= 0 and last not in shown:
        while shown and span(shown[-1])[1] + LABEL_GAP_PX > span(last)[0]:
            shown.pop()
        shown.append(last)
    return set(shown)


def draw_rank_histogram(bars: Sequence[PositionBar], algorithm: str) -> Chart:
    key = "rank-histogram"
    title = f"{algorithm}: how often it finished in each position"
    if not bars:
        return layout.not_applicable(
            key,
            title,
            "the rank matrix is not stored for this benchmark or the algorithm is not ranked",
        )
    width = 640.0
    left, right = 44.0, width - 12
    top, plot_h = 14.0, 150.0
    height = top + plot_h + 48
    highest = max(bar.datasets for bar in bars) or 1.0
    ticks = layout.nice_ticks(0, highest, 4)
    y = layout.scale(0.0, ticks[-1], top + plot_h, top)
    bar_w = (right - left) / len(bars)
    parts = [layout.y_axis(ticks, y, left, grid_right=right, font_size=10)]
    labelled = labelled_bars([bar.label for bar in bars], left, bar_w)
    for index, bar in enumerate(bars):
        label, count = bar.label, bar.datasets
        bx = left + index * bar_w + bar_w * 0.1
        colour = GREEN if index == 0 else (MUTED if label.startswith("below") else BLUE)
        content = rect(bx, y(count), bar_w * 0.8, y(0) - y(count), fill=colour, fill_opacity="0.85")
        if index in labelled:
            content += text(
                bx + bar_w * 0.4,
                top + plot_h + 14,
                label,
                text_anchor="middle",
                font_size=10,
                fill=MUTED,
            )
        datasets = f"{count:g} dataset{'' if count == 1 else 's'}"
        parts.append(f"<g>{layout.tooltip(f'position {label}: {datasets}')}{content}</g>")
    parts.append(
        text(
            (left + right) / 2,
            top + plot_h + 34,
            "position on a dataset (1 = won)",
            text_anchor="middle",
        )
    )
    description = (
        f"Number of datasets on which {algorithm} finished in each position: "
        + ", ".join(f"{bar.label}: {bar.datasets:g}" for bar in bars)
        + "."
    )
    table = layout.html_table(
        f"Datasets per finishing position of {algorithm}",
        ["Position", "Datasets"],
        [[bar.label, f"{bar.datasets:g}"] for bar in bars],
        key=key,
    )
    note = "A tie of t algorithms counts 1/t at each of the positions it spans."
    if any("–" in bar.label for bar in bars):
        note += " Positions after the first are grouped in equal bins (one bar each)."
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


def rank_histogram_chart(board: Board, matrix: RankMatrix, algorithm: str) -> Chart:
    return draw_rank_histogram(rank_histogram_data(board, matrix, algorithm), algorithm)


def margin_chart(
    margins: Sequence[Margin],
    algorithm: str,
    metric_name: str,
    max_rows: int = layout.MAX_DRAWN_ALGORITHMS,
) -> Chart:
    """How far ``algorithm`` is behind each dataset's winner (0 where it wins).

    The rows come from the database (``frontend.explore.selectors``), not the snapshot, so
    they are this chart's data already.
    """
    key = "margin-to-winner"
    title = f"{algorithm}: distance to the winner on each dataset"
    if not margins:
        return layout.not_applicable(key, title, "no dataset-level scores to compare")
    rows = sorted(margins, key=lambda row: (-row.margin, row.dataset))
    total = len(rows)
    rows = rows[:max_rows]
    width = 640.0
    labels = [row.dataset for row in rows]
    left = layout.label_width(labels, cap=170) + 8
    right = width - 170
    row_h = 20.0
    top = 10.0
    highest = max(row.margin for row in rows)
    ticks = layout.nice_ticks(0.0, highest if highest > 0 else 1.0, 4)
    x = layout.scale(0.0, ticks[-1], left, right)
    height = top + len(rows) * row_h + 44
    parts = [
        layout.x_axis(
            ticks,
            x,
            top + len(rows) * row_h + 4,
            # A gap, >= 0 whichever way the metric points (lower-is-better too).
            label=f"{metric_name}: how far behind the winner (0 = won)",
            grid_top=top,
        )
    ]
    for index, row in enumerate(rows):
        y = top + index * row_h
        won = row.margin <= 0
        words = "won" if won else f"{row.margin:.4g} behind {row.winner}"
        parts.append(
            f"<g>{layout.tooltip(f'{row.dataset}: {words}')}"
            + layout.row_label(left - 8, y + row_h / 2, row.dataset, left - 12, font_size=11)
            + rect(
                x(0),
                y + 4,
                x(max(row.margin, 0)) - x(0),
                row_h - 8,
                fill=GREEN if won else VERMILION,
                fill_opacity="0.85",
            )
            + text(
                right + 8, y + row_h / 2 + 4, layout.truncate(words, 160), font_size=10, fill=MUTED
            )
            + "</g>"
        )
    description = (
        f"Gap between the best {metric_name} and that of {algorithm} on {len(rows)} datasets, "
        "largest gap first; zero where it won."
    )
    table = layout.html_table(
        f"Dataset-level {metric_name}: {algorithm} against the winner",
        ["Dataset", algorithm, "Winner", "Winner's score", "Gap"],
        [
            [row.dataset, f"{row.score:.4g}", row.winner, f"{row.best:.4g}", f"{row.margin:.4g}"]
            for row in rows
        ],
        key=key,
    )
    note = layout.capped_note(
        len(rows), total, "largest gaps on", "datasets", "each dataset's page has every score"
    ).strip()
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)
