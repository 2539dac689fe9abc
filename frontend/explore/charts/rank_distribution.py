"""How each algorithm's rank varies across datasets: box plots, or with top-K input the
number of datasets on which it took each known position."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimation.core.contract import Board, NotApplicable, RankMatrixSection
from frontend.explore.charts import compact, layout
from frontend.explore.charts.layout import (
    BLACK,
    BLUE,
    EMPTY,
    GREEN,
    MUTED,
    SKY,
    VERMILION,
    Chart,
    escape,
    line,
    rect,
    text,
)
from frontend.explore.charts.ordering import by_mean_rank, unknown_rank_floor

STRIP_MAX_POINTS = 3000
KEY = "rank-distribution"
POSITION_COLOURS = (BLUE, SKY, GREEN, layout.PINK, layout.ORANGE, VERMILION, layout.YELLOW)


# The rank-matrix section, or why it is not there (None: not loaded).
RankMatrix = RankMatrixSection | NotApplicable | None


@dataclass(frozen=True)
class RankSpread:
    """One algorithm's ranks over the datasets (in the section's dataset order)."""

    name: str
    ranks: tuple[float, ...]
    quartiles: tuple[float, float, float, float, float]  # best, Q1, median, Q3, worst
    mean: float
    worst_on: tuple[str, ...]  # datasets where it had its worst rank


@dataclass(frozen=True)
class PositionCounts:
    """Top-K input: datasets on which one algorithm took each known position."""

    name: str
    counts: tuple[float, ...]  # a tie of t counts 1/t at each position it spans
    rest: float  # datasets where it is not in the top K


@dataclass(frozen=True)
class RankDistributionData:
    total: int = 0  # algorithms ranked; the rows below are the best MAX_DRAWN_ALGORITHMS
    n_datasets: int = 0
    spreads: tuple[RankSpread, ...] = ()  # complete rankings, best mean rank first
    known_positions: int | None = None  # set for top-K input
    positions: tuple[PositionCounts, ...] = ()  # top-K input, best mean rank first
    not_applicable: str | None = None


def positional_counts(ranks: np.ndarray, positions: int) -> np.ndarray:
    """(positions, m): datasets finishing in each position; a tie of t counts 1/t at each."""
    tied = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
    first = ranks - (tied - 1) / 2
    last = first + tied - 1
    steps = np.arange(1, positions + 1)[:, None, None]
    inside = (first[None] <= steps + 1e-9) & (steps - 1e-9 <= last[None])
    return (inside / tied[None]).sum(axis=1)


def rank_distribution_data(
    board: Board, matrix: RankMatrix, max_rows: int = layout.MAX_DRAWN_ALGORITHMS
) -> RankDistributionData:
    if not isinstance(matrix, RankMatrixSection):
        return RankDistributionData(
            not_applicable=matrix.reason
            if isinstance(matrix, NotApplicable)
            else "the rank matrix is not stored for a benchmark this large"
        )
    ranked = [a for a in by_mean_rank(board) if a in matrix.algorithms]
    names = ranked[:max_rows]
    ranks = np.asarray(matrix.ranks, dtype=float)
    column = {a: j for j, a in enumerate(matrix.algorithms)}
    n = ranks.shape[0]
    floor = unknown_rank_floor(board)
    if floor is not None:
        known = int(floor)
        counts = positional_counts(ranks, known)
        rows = []
        for name in names:
            shares = tuple(float(counts[p, column[name]]) for p in range(known))
            placed = 0.0
            for share in shares:
                placed += share
            rows.append(PositionCounts(name, shares, n - placed))
        return RankDistributionData(len(ranked), n, known_positions=known, positions=tuple(rows))
    quartiles = np.percentile(ranks, [0, 25, 50, 75, 100], axis=0)
    spreads = []
    for name in names:
        values = ranks[:, column[name]]
        q0, q1, q2, q3, q4 = (float(q) for q in quartiles[:, column[name]])
        spreads.append(
            RankSpread(
                name,
                tuple(values.tolist()),
                (q0, q1, q2, q3, q4),
                float(values.mean()),
                tuple(matrix.datasets[i] for i in np.flatnonzero(values == q4)),
            )
        )
    return RankDistributionData(len(ranked), n, spreads=tuple(spreads))


def draw_rank_distribution(data: RankDistributionData) -> Chart:
    if data.not_applicable is not None:
        return layout.not_applicable(
            KEY, "How each algorithm's rank varies across datasets", data.not_applicable
        )
    if data.known_positions is not None:
        return _draw_top_k(data)
    key, title = KEY, "How each algorithm's rank varies across datasets"
    n, m = data.n_datasets, len(data.spreads)
    names = [spread.name for spread in data.spreads]
    width = 640.0
    left = layout.label_width(names, cap=170) + 8
    right = width - 24
    row_h = 22.0
    top = 14.0
    x = layout.scale(1, max(m, 2), left, right)
    height = top + m * row_h + 44
    ticks = layout.nice_ticks(1, m, count=min(m - 1, 8) or 1)
    ticks = [t for t in ticks if 1 <= t <= m] or [1, m]
    parts = [
        layout.x_axis(
            ticks,
            x,
            top + m * row_h + 4,
            label="rank on a dataset (1 = best)",
            grid_top=top,
            formatter=lambda t: f"{t:g}",
        )
    ]
    draw_points = n * m <= STRIP_MAX_POINTS
    jitter = ((np.arange(n) % 5 - 2) * 1.6).tolist()
    rows_alt = []
    for index, spread in enumerate(data.spreads):
        y = top + index * row_h + row_h / 2
        parts.append(_spread_row(spread, y, left, x, jitter if draw_points else None))
        rows_alt.append(_spread_table_row(spread))
    note = (
        "Box: middle half of the ranks; black line: median; orange diamond: mean; whiskers: "
        "best and worst rank; dots: one per dataset."
        if draw_points
        else "Box: middle half of the ranks; black line: median; orange diamond: mean; "
        "whiskers: best and worst rank."
    ) + layout.capped_note(m, data.total, "best (by mean rank)")
    description = (
        f"Box plots of the ranks of {m} algorithms over {n} datasets, best mean rank first."
    )
    table = layout.html_table(
        f"Rank of each algorithm over {n} datasets",
        ["Algorithm", "Best", "Q1", "Median", "Q3", "Worst", "Mean", "Worst on"],
        rows_alt,
        key=key,
    )
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


def _spread_row(spread: RankSpread, y: float, left: float, x, jitter: list[float] | None) -> str:
    """One algorithm's box plot (and its dots, given their ``jitter``), name and mean."""
    name, mean = spread.name, spread.mean
    q0, q1, q2, q3, q4 = spread.quartiles
    row = [
        layout.tooltip(
            f"{name}: best {q0:g}, quartiles {q1:g} / {q2:g} / {q3:g}, worst {q4:g}, "
            f"mean {mean:.2f}"
        ),
        text(left - 8, y + 4, layout.truncate(name, left - 12), text_anchor="end"),
        line(x(q0), y, x(q4), y, stroke=MUTED),
        line(x(q0), y - 4, x(q0), y + 4, stroke=MUTED),
        line(x(q4), y - 4, x(q4), y + 4, stroke=MUTED),
        rect(
            x(q1),
            y - 6,
            max(x(q3) - x(q1), 1.5),
            12,
            fill=SKY,
            fill_opacity="0.55",
            stroke=BLUE,
        ),
        line(x(q2), y - 6, x(q2), y + 6, stroke=BLACK, stroke_width=2),
    ]
    if jitter is not None:
        # One path for the row's dots (m x n of them: the page's weight).
        row.append(
            compact.dots_path(
                ((x(v), y + dy) for v, dy in zip(spread.ranks, jitter, strict=True)),
                1.8,
                BLACK,
                "0.4",
            )
        )
    row.append(layout.diamond(x(mean), y - 5, 4, 5, VERMILION))
    return f'<g data-algorithm="{escape(name)}">{"".join(row)}</g>'


def _spread_table_row(spread: RankSpread) -> list[str]:
    q0, q1, q2, q3, q4 = spread.quartiles
    worst = spread.worst_on
    return [
        spread.name,
        f"{q0:g}",
        f"{q1:g}",
        f"{q2:g}",
        f"{q3:g}",
        f"{q4:g}",
        f"{spread.mean:.2f}",
        ", ".join(worst[:3]) + (" …" if len(worst) > 3 else ""),
    ]


def ordinal(position: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(position if position < 20 else position % 10, "th")
    return f"{position}{suffix}"


def _draw_top_k(data: RankDistributionData) -> Chart:
    """Per algorithm, datasets in each known position and the rest, as stacked bars."""
    known = data.known_positions or 0
    key = KEY
    title = f"How often each algorithm made the top {known}"
    n, rows = data.n_datasets, data.positions
    names = [row.name for row in rows]
    width = 640.0
    left = layout.label_width(names, cap=170) + 8
    right = width - 24
    row_h = 22.0
    top = 30.0
    x = layout.scale(0.0, float(n), left, right)
    height = top + len(rows) * row_h + 44
    ticks = [t for t in layout.nice_ticks(0, n, 5) if t <= n]
    colours = [POSITION_COLOURS[p % len(POSITION_COLOURS)] for p in range(known)]
    parts = [
        layout.x_axis(
            ticks,
            x,
            top + len(rows) * row_h + 4,
            label="datasets",
            grid_top=top,
            formatter=lambda t: f"{t:g}",
        ),
        layout.swatch_legend(
            [(colour, ordinal(p + 1)) for p, colour in enumerate(colours)],
            left,
            6,
            lambda _: 64,
            stroke=None,
        ),
        layout.swatch_legend([(EMPTY, f"not in the top {known}")], left + 64 * known, 6, len),
    ]
    rows_alt = []
    for index, row in enumerate(rows):
        y = top + index * row_h
        start = 0.0
        bars = [
            text(
                left - 8, y + row_h / 2 + 4, layout.truncate(row.name, left - 12), text_anchor="end"
            )
        ]
        for count, colour in zip(row.counts, colours, strict=True):
            bars.append(rect(x(start), y + 4, x(start + count) - x(start), row_h - 8, fill=colour))
            start += count
        bars.append(rect(x(start), y + 4, x(n) - x(start), row_h - 8, fill=EMPTY))
        words = ", ".join(f"{ordinal(p + 1)} {count:g}" for p, count in enumerate(row.counts))
        parts.append(
            f'<g data-algorithm="{escape(row.name)}">'
            f"{layout.tooltip(f'{row.name}: {words}')}{''.join(bars)}</g>"
        )
        rows_alt.append([row.name, *[f"{count:g}" for count in row.counts], f"{row.rest:g}"])
    description = (
        f"Stacked bars: on how many of {n} datasets each of {len(rows)} algorithms finished "
        f"in each of the top {known} positions."
    )
    table = layout.html_table(
        f"Datasets on which each algorithm finished in each of the top {known} positions",
        ["Algorithm", *[ordinal(p + 1) for p in range(known)], f"Not in the top {known}"],
        rows_alt,
        key=key,
    )
    note = (
        f"Only the top {known} positions are known on each dataset, so the spread of the "
        "other ranks cannot be shown. A tie of t counts 1/t at each position it spans."
    ) + layout.capped_note(len(rows), data.total, "best")
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


def rank_distribution_chart(
    board: Board, matrix: RankMatrix, max_rows: int = layout.MAX_DRAWN_ALGORITHMS
) -> Chart:
    """Box plot of each algorithm's ranks over datasets, with every dataset as a dot."""
    return draw_rank_distribution(rank_distribution_data(board, matrix, max_rows))
