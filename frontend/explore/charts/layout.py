"""The shared layout of the charts: palette, text escaping, scales, axes, legends, the
root ``<svg>`` and the HTML table that is each chart's text alternative.

Every string that comes from data goes through :func:`escape`, so an algorithm called
``<script>`` is drawn as text. The output is plain XML (it parses with ``xml.etree``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape as _html_escape

# Okabe and Ito (2008): distinguishable by readers with any common colour-vision deficiency.
BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
PINK = "#CC79A7"
SKY = "#56B4E9"
VERMILION = "#D55E00"
YELLOW = "#F0E442"
BLACK = "#000000"
INK = "#1b1f24"
MUTED = "#5b6470"
GRID = "#d8dde3"
EMPTY = "#eceff2"
FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif'
CHAR_WIDTH = 7.0  # average width of a 12 px sans-serif character, for layout


@dataclass(frozen=True)
class Chart:
    """One drawn chart: ``svg`` and ``table`` are ready-to-insert markup (already escaped).

    ``not_applicable`` holds the reason, in plain words, when the chart is not drawn.
    """

    key: str
    title: str
    description: str
    svg: str = ""
    table: str = ""
    note: str = ""
    not_applicable: str | None = None


# Charts with a row or a column per algorithm draw at most this many (the best ones);
# the leaderboard table lists every algorithm.
MAX_DRAWN_ALGORITHMS = 60


def capped_note(
    shown: int,
    total: int,
    order: str,
    things: str = "algorithms",
    where: str = "the leaderboard table lists every one",
) -> str:
    """The sentence a chart adds when it draws only the first ``shown`` of ``total``."""
    if total <= shown:
        return ""
    return f" Showing the {order} {shown} of {total} {things}; {where}."


def not_applicable(key: str, title: str, reason: str) -> Chart:
    return Chart(
        key=key, title=title, description=f"Not applicable: {reason}", not_applicable=reason
    )


def figure(
    key: str,
    title: str,
    description: str,
    width: float,
    height: float,
    body: str,
    table: str,
    note: str = "",
    *,
    links: bool = False,
) -> Chart:
    """A :class:`Chart` whose SVG is ``body`` in the accessible root element (a group
    when it holds ``links``)."""
    svg = document(key, title, description, width, height, body, links=links)
    return Chart(key, title, description, svg, table, note)


Scale = Callable[[float], float]


def scale(low: float, high: float, start: float, end: float) -> Scale:
    """Linear map of ``[low, high]`` onto ``[start, end]`` (a zero span maps as span 1)."""
    span = (high - low) or 1.0
    return lambda value: start + (value - low) / span * (end - start)


def escape(value: object) -> str:
    return _html_escape(str(value), quote=True)


def attributes(attrs: dict[str, object]) -> str:
    """``{"font_size": 12, "class_": "x"}`` -> ``font-size="12" class="x"``; None is skipped."""
    return "".join(
        f' {name.rstrip("_").replace("_", "-")}="'
        f'{value if isinstance(value, int | float) else escape(value)}"'
        for name, value in attrs.items()
        if value is not None
    )


def element(tag: str, content: str = "", /, **attrs: object) -> str:
    if content:
        return f"<{tag}{attributes(attrs)}>{content}</{tag}>"
    return f"<{tag}{attributes(attrs)}/>"


def text(x: float, y: float, label: object, **attrs: object) -> str:
    return f"<text{attributes({'x': num(x), 'y': num(y), **attrs})}>{escape(label)}</text>"


def line(x1: float, y1: float, x2: float, y2: float, **attrs: object) -> str:
    return element("line", x1=num(x1), y1=num(y1), x2=num(x2), y2=num(y2), **attrs)


def rect(x: float, y: float, width: float, height: float, **attrs: object) -> str:
    return element(
        "rect", x=num(x), y=num(y), width=num(max(width, 0.0)), height=num(height), **attrs
    )


def circle(cx: float, cy: float, r: float, fill: str, opacity: str, **attrs: object) -> str:
    """A dot; ``attrs`` (a stroke, say) follow its fill."""
    return (
        f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}" '
        f'fill="{fill}" fill-opacity="{opacity}"{attributes(attrs)}/>'
    )


def diamond(x: float, y: float, half_width: int, half_height: int, fill: str) -> str:
    """A diamond (a marker of a mean) whose top corner is at (x, y)."""
    w, h = half_width, half_height
    return f'<path d="M{num(x)} {num(y)} l{w} {h} l-{w} {h} l-{w} -{h} z" fill="{fill}"/>'


def column_label(x: float, y: float, label: str, width: float) -> str:
    """A column header of a grid, rotated so long names fit above narrow columns."""
    return (
        f'<text x="{num(x)}" y="{num(y)}" font-size="11" '
        f'transform="rotate(-55 {num(x)} {num(y)})">'
        f"{escape(truncate(label, width))}</text>"
    )


def row_label(right: float, middle: float, label: str, width: float, **attrs: object) -> str:
    """A right-aligned row header ending at ``right``, vertically centred on ``middle``."""
    return text(right, middle + 4, truncate(label, width), text_anchor="end", **attrs)


def swatch_legend(
    entries: Sequence[tuple[str, str]],
    x: float,
    y: float,
    advance: Callable[[str], float],
    *,
    stroke: str | None = GRID,
) -> str:
    """Colour squares with their words in a row; ``advance(words)`` is the step to the next."""
    parts = []
    for colour, words in entries:
        parts.append(rect(x, y, 12, 12, fill=colour, stroke=stroke))
        parts.append(text(x + 16, y + 10, words, font_size=11, fill=MUTED))
        x += advance(words)
    return "".join(parts)


def tooltip(label: object) -> str:
    return f"<title>{escape(label)}</title>"


def num(value: float) -> str:
    """Coordinates with at most two decimals (smaller pages, stable output)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def truncate(label: str, width: float, char_width: float = CHAR_WIDTH) -> str:
    fits = max(int(width / char_width), 3)
    return label if len(label) <= fits else label[: fits - 1] + "…"


def label_width(labels: Iterable[str], cap: float = 190.0, char_width: float = CHAR_WIDTH) -> float:
    longest = max((len(label) for label in labels), default=0)
    return min(longest * char_width + 14, cap)


def document(
    key: str,
    title: str,
    description: str,
    width: float,
    height: float,
    body: str,
    *,
    links: bool = False,
) -> str:
    """The root ``<svg>``: scales to its container, named by its <title> and <desc>.

    An image's content is presentational to assistive technology, so a drawing that
    holds links is a named group instead: its links stay reachable (axe-core's
    nested-interactive rule)."""
    title_id, desc_id = f"{key}-title", f"{key}-desc"
    role = "group" if links else "img"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {num(width)} {num(height)}"'
        f' width="{num(width)}" role="{role}" aria-labelledby="{title_id} {desc_id}"'
        f' class="chart-svg" data-testid="{escape(key)}-svg"'
        f' font-family="{escape(FONT)}" font-size="12"'
        f' fill="{INK}">'
        f'<title id="{title_id}">{escape(title)}</title>'
        f'<desc id="{desc_id}">{escape(description)}</desc>'
        f"{body}</svg>"
    )


def html_table(
    caption: str,
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    row_headers: bool = True,
    key: str = "",
) -> str:
    """An accessible HTML table; the first cell of each row is its header."""
    head = "".join(f'<th scope="col">{escape(cell)}</th>' for cell in header)
    body = []
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            if index == 0 and row_headers:
                cells.append(f'<th scope="row">{escape(cell)}</th>')
            else:
                # Numeric alignment comes from the table's CSS, not a class per cell.
                cells.append(f"<td>{escape(cell)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    testid = f' data-testid="chart-{escape(key)}-table"' if key else ""
    return (
        f'<div class="table-wrap"><table class="chart-table"{testid}>'
        f"<caption>{escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


def fmt_p(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value < 0.001:
        return "< 0.001"
    return f"{value:.3f}"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]`` (1, 2, 2.5 or 5 times a power of ten)."""
    if not math.isfinite(low) or not math.isfinite(high):
        return [0.0, 1.0]
    if high <= low:
        high = low + (abs(low) or 1.0) * 0.1
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(f * power for f in (1, 2, 2.5, 5, 10) if f * power >= raw)
    start = math.floor(low / step + 1e-9) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 12))
        value += step
    return ticks


def tick_label(value: float, ticks: Sequence[float]) -> str:
    """Just enough decimals to tell the ticks apart."""
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    decimals = 0
    while decimals < 6 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-9:
        decimals += 1
    return f"{value:.{decimals}f}"


def mix(start: str, end: str, t: float) -> str:
    """Linear interpolation between two ``#rrggbb`` colours."""
    t = min(max(t, 0.0), 1.0)
    a = [int(start[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(end[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


def diverging(t: float) -> str:
    """Blue (0, best) through near-white (0.5) to orange (1, worst): colour-blind safe."""
    if t <= 0.5:
        return mix(BLUE, "#f7f7f7", t / 0.5)
    return mix("#f7f7f7", ORANGE, (t - 0.5) / 0.5)


def x_axis(
    ticks: Sequence[float],
    scale,
    y: float,
    *,
    label: str = "",
    label_x: float | None = None,
    grid_top: float | None = None,
    formatter=None,
) -> str:
    """A horizontal axis with ticks, tick labels below and an optional grid."""
    parts = [line(scale(ticks[0]), y, scale(ticks[-1]), y, stroke=MUTED)]
    for tick in ticks:
        x = scale(tick)
        if grid_top is not None:
            parts.append(line(x, grid_top, x, y, stroke=GRID))
        parts.append(line(x, y, x, y + 4, stroke=MUTED))
        shown = formatter(tick) if formatter else tick_label(tick, ticks)
        parts.append(text(x, y + 16, shown, text_anchor="middle", fill=MUTED, font_size=11))
    if label:
        middle = label_x if label_x is not None else (scale(ticks[0]) + scale(ticks[-1])) / 2
        parts.append(text(middle, y + 32, label, text_anchor="middle", font_size=12))
    return "".join(parts)


def y_axis(
    ticks: Sequence[float],
    scale,
    x: float,
    *,
    grid_right: float,
    label: str = "",
    font_size: int = 11,
    formatter=None,
) -> str:
    """A vertical axis: tick labels right-aligned left of ``x``, a grid across to
    ``grid_right``, and an optional label turned to read upwards near the left edge."""
    parts = []
    for tick in ticks:
        y = scale(tick)
        parts.append(line(x, y, grid_right, y, stroke=GRID))
        shown = formatter(tick) if formatter else tick_label(tick, ticks)
        parts.append(text(x - 6, y + 4, shown, text_anchor="end", font_size=font_size, fill=MUTED))
    if label:
        middle = (scale(ticks[0]) + scale(ticks[-1])) / 2
        parts.append(
            text(
                14,
                middle,
                label,
                font_size=12,
                text_anchor="middle",
                transform=f"rotate(-90 14 {num(middle)})",
            )
        )
    return "".join(parts)


def directed_scale(
    ticks: Sequence[float], start: float, end: float, *, higher_is_better: bool
) -> Scale:
    """The ticks' span onto ``[start, end]`` with better towards ``end``: a lower-is-better
    metric runs from its highest tick to its lowest."""
    low, high = (ticks[0], ticks[-1]) if higher_is_better else (ticks[-1], ticks[0])
    return scale(low, high, start, end)
