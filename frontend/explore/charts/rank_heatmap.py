"""Datasets x algorithms, each cell the algorithm's rank on that dataset."""

from __future__ import annotations

from dataclasses import dataclass

from estimation.core.contract import Board, NotApplicable, RankMatrixSection
from frontend.explore.charts import compact, layout
from frontend.explore.charts.layout import BLUE, EMPTY, GRID, MUTED, Chart, escape, rect, text
from frontend.explore.charts.ordering import by_mean_rank, unknown_rank_floor

HEATMAP_MAX_DATASETS = 60
KEY = "rank-heatmap"
TITLE = "Ranks on every dataset"


# The rank-matrix section, or why it is not there (None: not loaded).
RankMatrix = RankMatrixSection | NotApplicable | None


@dataclass(frozen=True)
class RankHeatmapData:
    names: tuple[str, ...] = ()  # columns, best mean rank first, at most max_algorithms
    total_algorithms: int = 0
    datasets: tuple[str, ...] = ()  # rows shown, by name
    ranks: tuple[tuple[float, ...], ...] = ()  # ranks[row][column]
    total_datasets: int = 0
    unknown_above: float | None = None  # top-K input: ranks above this are not known
    not_applicable: str | None = None


def rank_heatmap_data(
    board: Board,
    matrix: RankMatrix,
    max_datasets: int = HEATMAP_MAX_DATASETS,
    max_algorithms: int = layout.MAX_DRAWN_ALGORITHMS,
) -> RankHeatmapData:
    if not isinstance(matrix, RankMatrixSection):
        return RankHeatmapData(
            not_applicable=matrix.reason
            if isinstance(matrix, NotApplicable)
            else "this benchmark is too large for the rank matrix to be stored with its results"
        )
    column = {a: j for j, a in enumerate(matrix.algorithms)}
    ranked = [a for a in by_mean_rank(board) if a in column]
    names = ranked[:max_algorithms]
    order = sorted(range(len(matrix.datasets)), key=lambda i: matrix.datasets[i])
    shown = order[:max_datasets]
    return RankHeatmapData(
        names=tuple(names),
        total_algorithms=len(ranked),
        datasets=tuple(matrix.datasets[i] for i in shown),
        ranks=tuple(tuple(matrix.ranks[i][column[a]] for a in names) for i in shown),
        total_datasets=len(matrix.datasets),
        unknown_above=unknown_rank_floor(board),
    )


def _cell_style(rank: float, unknown_above: float | None, worst: float) -> tuple[str, str, str]:
    """(fill, label, text colour) of a cell."""
    if unknown_above is not None and rank > unknown_above:
        return EMPTY, "–", "#1b1f24"
    t = (rank - 1) / max(worst - 1, 1)
    return layout.diverging(t), rank_label(rank), "#ffffff" if t < 0.22 else "#1b1f24"


def rank_label(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


@dataclass(frozen=True)
class _Grid:
    """Where the heatmap's cells go, and what each cell carries."""

    cell_w: float
    cell_h: float
    left: float
    top: float
    show_numbers: bool
    tooltips: bool


def _grid(data: RankHeatmapData) -> _Grid:
    m, n_shown = len(data.names), len(data.datasets)
    cell_w = max(12.0, min(44.0, 520.0 / max(m, 1)))
    cell_h = 18.0 if n_shown <= 60 else 12.0
    return _Grid(
        cell_w=cell_w,
        cell_h=cell_h,
        left=layout.label_width(data.datasets, cap=170) + 6,
        top=min(layout.label_width(data.names, cap=130), 130) + 16,
        show_numbers=cell_w >= 22 and cell_h >= 16,
        # a <title> per cell costs ~60 bytes; the table has them all
        tooltips=n_shown * m <= 600,
    )


def draw_rank_heatmap(data: RankHeatmapData) -> Chart:
    key, title = KEY, TITLE
    if data.not_applicable is not None:
        return layout.not_applicable(key, title, data.not_applicable)
    names, unknown_above = data.names, data.unknown_above
    m, n_shown = len(names), len(data.datasets)
    grid = _grid(data)
    width = max(grid.left + m * grid.cell_w + 80, 360.0)
    height = grid.top + n_shown * grid.cell_h + 56
    worst = float(unknown_above) if unknown_above is not None else float(m)
    parts = [
        layout.column_label(grid.left + (j + 0.5) * grid.cell_w + 3, grid.top - 6, name, 124)
        for j, name in enumerate(names)
    ]
    cells, rows_alt = _heatmap_cells(data, grid, worst)
    parts += cells
    parts += _heatmap_legend(grid.left, grid.top + n_shown * grid.cell_h + 14, worst, unknown_above)
    total = data.total_datasets
    note = "Columns: algorithms from best to worst mean rank; rows: datasets by name."
    if total > n_shown:
        note += (
            f" Showing the first {n_shown} of {total} datasets (by name); the table lists the same."
        )
    note += layout.capped_note(m, data.total_algorithms, "best (by mean rank)")
    description = (
        f"Heatmap of the rank (1 = best, {m} = worst) of {m} algorithms on {n_shown} datasets; "
        "dark blue is best, orange worst."
    )
    table = layout.html_table(
        f"Rank of each algorithm on each dataset (first {n_shown} of {total} datasets)",
        ["Dataset", *names],
        rows_alt,
        key=key,
    )
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


def _heatmap_cells(
    data: RankHeatmapData, grid: _Grid, worst: float
) -> tuple[list[str], list[list[str]]]:
    """The row labels and cells, and the table's rows (dataset, then each shown rank)."""
    parts = []
    rows_alt = []
    styles: dict[float, tuple[str, str, str]] = {}
    safe_names = [escape(name) for name in data.names]
    cell_w, cell_h, left = grid.cell_w, grid.cell_h, grid.left
    # Without tooltips the fills go as one path per colour (the table has every rank).
    plain_cells: list[tuple[float, float, str]] = []
    for row_index, (dataset, ranks) in enumerate(zip(data.datasets, data.ranks, strict=True)):
        y = grid.top + row_index * cell_h
        parts.append(layout.row_label(left - 6, y + cell_h / 2, dataset, left - 10, font_size=11))
        alt = [dataset]
        safe_dataset = escape(dataset)
        for j, rank in enumerate(ranks):
            style = styles.get(rank)
            if style is None:
                style = styles[rank] = _cell_style(rank, data.unknown_above, worst)
            colour, shown_rank, ink = style
            alt.append(shown_rank)
            x0 = left + j * cell_w
            if not grid.tooltips and not grid.show_numbers:
                plain_cells.append((x0, y, colour))
                continue
            cell = (
                f'<rect x="{layout.num(x0)}" y="{layout.num(y)}" width="{layout.num(cell_w - 1)}" '
                f'height="{layout.num(cell_h - 1)}" fill="{colour}"/>'
            )
            if grid.show_numbers:
                cell += (
                    f'<text x="{x0 + cell_w / 2:.1f}" y="{y + cell_h / 2 + 4:.1f}" '
                    f'text-anchor="middle" font-size="10" fill="{ink}">{shown_rank}</text>'
                )
            if grid.tooltips:
                cell = f"<g><title>{safe_dataset}, {safe_names[j]}: {shown_rank}</title>{cell}</g>"
            parts.append(cell)
        rows_alt.append(alt)
    parts.append(compact.cells_path(plain_cells, cell_w - 1, cell_h - 1))
    return parts, rows_alt


def _heatmap_legend(
    left: float, legend_y: float, worst: float, unknown_above: float | None
) -> list[str]:
    """The colour scale from 1 to the worst rank, and the unknown ranks' swatch."""
    parts = [
        f'<defs><linearGradient id="{KEY}-scale">'
        f'<stop offset="0" stop-color="{BLUE}"/><stop offset="0.5" stop-color="#f7f7f7"/>'
        f'<stop offset="1" stop-color="{layout.ORANGE}"/></linearGradient></defs>',
        rect(left, legend_y, 160, 10, fill=f"url(#{KEY}-scale)", stroke=GRID),
        text(left, legend_y + 24, "1 (best)", font_size=11, fill=MUTED),
        text(
            left + 160,
            legend_y + 24,
            f"{worst:g} (worst)" if unknown_above is None else f"{worst:g}",
            text_anchor="end",
            font_size=11,
            fill=MUTED,
        ),
    ]
    if unknown_above is not None:
        parts.append(rect(left + 190, legend_y, 14, 10, fill=EMPTY, stroke=GRID))
        parts.append(
            text(
                left + 210,
                legend_y + 9,
                f"not in the top {unknown_above:.0f}",
                font_size=11,
                fill=MUTED,
            )
        )
    return parts


def rank_heatmap_chart(
    board: Board,
    matrix: RankMatrix,
    max_datasets: int = HEATMAP_MAX_DATASETS,
    max_algorithms: int = layout.MAX_DRAWN_ALGORITHMS,
) -> Chart:
    return draw_rank_heatmap(rank_heatmap_data(board, matrix, max_datasets, max_algorithms))
