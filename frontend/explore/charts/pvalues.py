"""Corrected pairwise p-values as a colour-coded grid (darker: more significant)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from estimation.core.contract import (
    Board,
    NemenyiSection,
    NotApplicable,
    WilcoxonSection,
    WilcoxonSummary,
)
from estimation.core.wording import counted
from frontend.explore.charts import layout
from frontend.explore.charts.layout import (
    BLUE,
    EMPTY,
    GRID,
    INK,
    SKY,
    Chart,
    escape,
    fmt_p,
    num,
    rect,
)
from frontend.explore.charts.ordering import by_mean_rank, check_test

PVALUE_MAX_ALGORITHMS = 15  # 210 linked cells a grid: the page stays < 300 kB at m = 130
LIGHT_BLUE = "#bfe0f3"


@dataclass(frozen=True)
class UntestedPair:
    a: str
    b: str
    reason: str


@dataclass(frozen=True)
class PValueMatrixData:
    key: str
    title: str
    test_label: str
    names: tuple[str, ...] = ()  # the best ``max_algorithms`` by mean rank
    pvalues: tuple[tuple[float | None, ...], ...] = ()  # pvalues[i][j]; None off the test
    alpha: float = 0.05
    total: int = 0  # algorithms in the test, before the cap
    untested: tuple[UntestedPair, ...] = ()
    not_applicable: str | None = None


def pvalue_matrix_data(
    board: Board,
    section: NemenyiSection | WilcoxonSection | NotApplicable | None,
    test: str,
    max_algorithms: int = PVALUE_MAX_ALGORITHMS,
) -> PValueMatrixData:
    """``section`` is the test's pairwise section; None when not stored."""
    label = check_test(test)
    key = f"pvalues-{test}"
    summary = board.nemenyi if test == "nemenyi" else board.wilcoxon
    correction = summary.correction if isinstance(summary, WilcoxonSummary) else None
    title = f"Pairwise p-values ({label}" + (
        f", {correction.title()}-corrected)" if correction else ")"
    )
    if isinstance(summary, NotApplicable):
        return PValueMatrixData(key, title, label, not_applicable=summary.reason)
    if isinstance(section, NotApplicable):
        return PValueMatrixData(key, title, label, not_applicable=section.reason)
    if section is None:
        return PValueMatrixData(key, title, label, not_applicable="not stored with the snapshot")
    index = {name: i for i, name in enumerate(section.algorithms)}
    m = len(section.algorithms)
    ranked = [a for a in by_mean_rank(board) if a in index]
    names = ranked[:max_algorithms]
    untested = section.not_applicable_pairs if isinstance(section, WilcoxonSection) else ()
    return PValueMatrixData(
        key,
        title,
        label,
        names=tuple(names),
        pvalues=tuple(
            tuple(None if a == b else section.pvalues.get(index[a], index[b], m) for b in names)
            for a in names
        ),
        alpha=summary.alpha,
        # A slice of the section (the drawn algorithms only) still counts them all.
        total=len(board.algorithms) if m < len(board.algorithms) else len(ranked),
        untested=tuple(
            UntestedPair(section.algorithms[pair.a], section.algorithms[pair.b], pair.reason)
            for pair in untested
        ),
    )


def _p_colour(p: float | None, alpha: float) -> tuple[str, str]:
    if p is None:
        return "#ffffff", "#1b1f24"
    if p < 0.001:
        return BLUE, "#ffffff"
    if p < 0.01:
        return SKY, "#1b1f24"
    if p < alpha:
        return LIGHT_BLUE, "#1b1f24"
    return EMPTY, "#1b1f24"


def _short_p(p: float | None) -> str:
    if p is None:
        return "n/a"
    if p < 0.001:
        return "<.001"
    return f"{p:.2f}".lstrip("0") if p < 1 else "1"


def draw_pvalue_matrix(
    data: PValueMatrixData, pair_href: Callable[[str, str], str] | None = None
) -> Chart:
    """The grid; with ``pair_href``, each cell links to that pair's head-to-head page."""
    key, title, label = data.key, data.title, data.test_label
    if data.not_applicable is not None:
        return layout.not_applicable(key, title, data.not_applicable)
    names, alpha = data.names, data.alpha
    m = len(names)
    cell = max(16.0, min(46.0, 480.0 / max(m, 1)))
    left = layout.label_width(names, cap=150) + 6
    top = min(layout.label_width(names, cap=120), 120) + 16
    width = max(left + m * cell + 70, 380.0)
    height = top + m * cell + 40
    show_numbers = cell >= 30
    safe = [escape(name) for name in names]
    parts = [
        layout.column_label(left + (j + 0.5) * cell + 3, top - 6, name, 114)
        for j, name in enumerate(names)
    ]
    rows_alt = []
    cells: list[str] = []
    for i, (a, row) in enumerate(zip(names, data.pvalues, strict=True)):
        y = top + i * cell
        parts.append(layout.row_label(left - 6, y + cell / 2, a, left - 10, font_size=11))
        alt = [a]
        for j, p in enumerate(row):
            cx = left + j * cell
            if i == j:
                cells.append(rect(cx, y, cell - 1, cell - 1, fill="#ffffff", stroke=GRID))
                alt.append("—")
                continue
            shown = fmt_p(p)
            alt.append(shown)
            href = pair_href(a, names[j]) if pair_href is not None else None
            tip = f"{safe[i]} vs {safe[j]}: p = {escape(shown)}"
            cells.append(_pvalue_cell(p, cx, y, cell, alpha, show_numbers, tip, href))
        rows_alt.append(alt)
    parts.append(f'<g text-anchor="middle" font-size="10">{"".join(cells)}</g>')
    legend = [
        (BLUE, "p < 0.001"),
        (SKY, "p < 0.01"),
        (LIGHT_BLUE, f"p < {alpha:g}"),
        (EMPTY, "not significant"),
    ]
    parts.append(
        layout.swatch_legend(legend, 8.0, top + m * cell + 14, lambda words: 24 + len(words) * 6.2)
    )
    description = (
        f"Grid of {label} p-values for every pair of {m} algorithms; a darker cell is a more "
        f"significant difference; light grey cells are not significant at alpha {alpha:g}."
    )
    note = _pvalue_note(data, m, linked=pair_href is not None)
    table = layout.html_table(
        f"{title}: p-value for each pair", ["Algorithm", *names], rows_alt, key=key
    )
    return layout.figure(
        key, title, description, width, height, "".join(parts), table, note, links=bool(pair_href)
    )


def _pvalue_cell(
    p: float | None,
    cx: float,
    y: float,
    cell: float,
    alpha: float,
    show_numbers: bool,
    tip: str,
    href: str | None,
) -> str:
    """One pair's cell: its colour, its p-value when cells are large enough, the
    (escaped) ``tip`` as its title, a link to ``href`` when given."""
    fill, ink = _p_colour(p, alpha)
    content = (
        f'<rect x="{num(cx)}" y="{num(y)}" width="{num(cell - 1)}" '
        f'height="{num(cell - 1)}" fill="{fill}"/>'
    )
    if show_numbers:
        # Anchor and size come from the cells' group; the dark ink is the default.
        ink_attr = "" if ink == INK else f' fill="{ink}"'
        content += (
            f'<text x="{cx + cell / 2:.1f}" y="{y + cell / 2 + 4:.1f}"{ink_attr}>'
            f"{escape(_short_p(p))}</text>"
        )
    # A link is itself the group its <title> names (no <g> inside it).
    if href is not None:
        return f'<a href="{escape(href)}"><title>{tip}</title>{content}</a>'
    return f"<g><title>{tip}</title>{content}</g>"


def _pvalue_note(data: PValueMatrixData, m: int, *, linked: bool) -> str:
    note = "Rows and columns: algorithms from best to worst mean rank." + (
        " Select a cell to compare the two algorithms head to head." if linked else ""
    )
    if data.total > m:
        note += f" Showing the best {m} of {data.total} algorithms."
    if data.untested:
        untested = counted(len(data.untested), "pair")
        note += f" {untested} could not be tested (n/a): " + "; ".join(
            f"{pair.a} vs {pair.b}: {pair.reason}" for pair in data.untested[:5]
        )
    return note


def pvalue_matrix_chart(
    board: Board,
    section: NemenyiSection | WilcoxonSection | NotApplicable | None,
    test: str = "wilcoxon",
    max_algorithms: int = PVALUE_MAX_ALGORITHMS,
    pair_href: Callable[[str, str], str] | None = None,
) -> Chart:
    return draw_pvalue_matrix(pvalue_matrix_data(board, section, test, max_algorithms), pair_href)
