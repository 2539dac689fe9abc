"""The comparison charts as inline SVG: a pair's per-dataset differences, and the Pareto
scatter of two metrics. Drawn with the explore charts' layout helpers (every name is
escaped there); each chart comes with the table of its numbers."""

from __future__ import annotations

from collections.abc import Sequence

from frontend.compare.head_to_head import HeadToHead
from frontend.compare.label_place import Box, place_label
from frontend.compare.pareto import ParetoPoint, ParetoView
from frontend.explore.charts import layout
from frontend.explore.charts.layout import BLUE, MUTED, ORANGE, Chart, line, rect, text

MAX_DIFFERENCE_ROWS = 60


def _shown_difference(row, kind: str) -> float | None:
    if kind == "rank" or row.advantage is None:
        if row.rank_a is not None and row.rank_b is not None:
            return row.rank_b - row.rank_a
        return None
    return row.advantage


def difference_chart(pair: HeadToHead, metric_name: str) -> Chart:
    """One bar per dataset: how far A is ahead of B there (right, blue) or behind (left,
    orange), largest advantage first."""
    key = "pair-differences"
    title = f"{pair.a} against {pair.b}, dataset by dataset"
    kind, unit = _difference_unit(pair, metric_name)
    rows = [(row, _shown_difference(row, kind)) for row in pair.differences]
    drawn = [(row, value) for row, value in rows if value is not None]
    if not drawn:
        return layout.not_applicable(key, title, "no dataset has a value for both algorithms")
    drawn.sort(key=lambda item: (-item[1], item[0].dataset))
    total = len(drawn)
    drawn = drawn[:MAX_DIFFERENCE_ROWS] if total <= MAX_DIFFERENCE_ROWS else _ends(drawn)
    width = 640.0
    left = layout.label_width([row.dataset for row, _ in drawn], cap=170) + 8
    right = width - 70
    top = 22.0
    largest = max(abs(value) for _, value in drawn) or 1.0
    ticks = layout.nice_ticks(-largest, largest, 4)
    x = layout.scale(ticks[0], ticks[-1], left, right)
    bottom = top + len(drawn) * _ROW_H
    parts = [
        text(left, 12, f"◀ {pair.b} better", font_size=11, fill=ORANGE, font_weight="600"),
        text(
            right,
            12,
            f"{pair.a} better ▶",
            font_size=11,
            fill=BLUE,
            text_anchor="end",
            font_weight="600",
        ),
        layout.x_axis(ticks, x, bottom + 4, label=unit, grid_top=top),
        *(
            _difference_bar(row, value, top + index * _ROW_H, left, x)
            for index, (row, value) in enumerate(drawn)
        ),
        line(x(0.0), top - 2, x(0.0), bottom + 4, stroke=MUTED),
    ]
    description = (
        f"For each of {total} datasets, a bar from zero: to the right when {pair.a} is ahead "
        f"of {pair.b}, to the left when it is behind; measured as {unit}."
    )
    note = f"Blue: {pair.a} ahead; orange: {pair.b} ahead; grey: a tie." + (
        f" Showing the {len(drawn)} datasets with the largest differences either way, of "
        f"{total}; the table lists every one."
        if total > len(drawn)
        else ""
    )
    table = _difference_table(pair, rows, kind, unit, key)
    return layout.figure(key, title, description, width, bottom + 44, "".join(parts), table, note)


_ROW_H = 20.0
_OUTCOME_WORDS = {"win": "A ahead", "loss": "B ahead", "tie": "tie", "none": "no comparison"}


def _difference_unit(pair: HeadToHead, metric_name: str) -> tuple[str, str]:
    """What the bars show (scores, or ranks where there are no values to subtract, e.g. a
    ranking file) and the axis's words for it."""
    kind: str = pair.kind
    if all(row.advantage is None for row in pair.differences):
        kind = "rank"
    if kind == "rank":
        return kind, "rank of B minus rank of A"
    if pair.higher_is_better:
        return kind, f"{metric_name}: A minus B"
    return kind, f"{metric_name}: B minus A (lower is better)"


def _difference_bar(row, value: float, y: float, left: float, x) -> str:
    """One dataset's row: its name, a bar from zero (a grey tick for a tie), a tooltip."""
    zero = x(0.0)
    colour = BLUE if value > 0 else ORANGE if value < 0 else MUTED
    start, end = sorted((zero, x(value)))
    bar = (
        rect(start, y + 3, max(end - start, 1.5), _ROW_H - 6, fill=colour)
        if value != 0
        else rect(zero - 1.5, y + 3, 3, _ROW_H - 6, fill=MUTED)
    )
    return layout.element(
        "g",
        layout.tooltip(f"{row.dataset}: {value:+.4g} ({_outcome_tip(row)})")
        + layout.row_label(left - 8, y + _ROW_H / 2, row.dataset, left - 12, font_size=11)
        + bar,
        data_dataset=row.dataset,
    )


def _outcome_tip(row) -> str:
    words = _OUTCOME_WORDS[row.outcome]
    return f"{words}, not separable by the standard errors" if row.separable is False else words


def _difference_table(pair: HeadToHead, rows: Sequence, kind: str, unit: str, key: str) -> str:
    return layout.html_table(
        f"{pair.a} against {pair.b} on each dataset",
        ["Dataset", f"{pair.a}", f"{pair.b}", unit, "Outcome for A"],
        [
            [
                row.dataset,
                _value_text(row.value_a if kind == "score" else row.rank_a),
                _value_text(row.value_b if kind == "score" else row.rank_b),
                "–" if value is None else f"{value:+.4g}",
                row.outcome_words,
            ]
            for row, value in rows
        ],
        key=key,
    )


def _ends(drawn: Sequence) -> list:
    half = MAX_DIFFERENCE_ROWS // 2
    return [*drawn[:half], *drawn[-half:]]


def _value_text(value: float | None) -> str:
    return "–" if value is None else f"{value:.4g}"


CORNER_GAP = 16.0
_PARETO_WIDTH, _PARETO_HEIGHT = 640.0, 440.0
_LEFT, _RIGHT, _TOP, _BOTTOM = 64.0, _PARETO_WIDTH - 24, 28.0, _PARETO_HEIGHT - 58


def pareto_chart(view: ParetoView) -> Chart:
    """A scatter of each algorithm's mean on two metrics, the front joined and highlighted,
    better towards the top right whatever each metric's direction."""
    key = "pareto"
    x_metric, y_metric = view.metrics
    title = f"{y_metric.name} against {x_metric.name}"
    if view.not_applicable:
        return layout.not_applicable(key, title, view.not_applicable)
    points = view.points
    x_ticks = _pareto_ticks([p.values[0] for p in points])
    y_ticks = _pareto_ticks([p.values[1] for p in points])
    # Better is right and up: a lower-is-better axis runs from high to low.
    # The x axis starts a little right of the y axis: their first tick labels overprinted
    # at the corner (issue 28).
    x = layout.directed_scale(
        x_ticks, _LEFT + CORNER_GAP, _RIGHT, higher_is_better=x_metric.higher_is_better
    )
    y = layout.directed_scale(y_ticks, _BOTTOM, _TOP, higher_is_better=y_metric.higher_is_better)
    parts = [
        layout.x_axis(
            sorted(x_ticks, key=x),
            x,
            _BOTTOM,
            label=f"{x_metric.name} ({x_metric.direction_text}; better →)",
            label_x=(_LEFT + _RIGHT) / 2,
            grid_top=_TOP,
        ),
        layout.y_axis(
            y_ticks,
            y,
            _LEFT,
            grid_right=_RIGHT,
            label=f"{y_metric.name} ({y_metric.direction_text}; better ↑)",
        ),
        _front_line(points, x, y),
        *_pareto_markers(view, x, y),
    ]
    description = (
        f"Each algorithm's mean {x_metric.name} across datasets against its mean "
        f"{y_metric.name}; better is to the right and up. {sum(p.on_front for p in points)} "
        f"of {len(points)} algorithms are on the Pareto front (blue, joined by a dashed line): "
        "no other algorithm is at least as good on both metrics and better on one."
    )
    table = layout.html_table(
        f"Mean {x_metric.name} and {y_metric.name} per algorithm",
        ["Algorithm", x_metric.name, y_metric.name, "On the front"],
        [
            [p.algorithm, f"{p.values[0]:.4g}", f"{p.values[1]:.4g}", "yes" if p.on_front else "no"]
            for p in points
        ],
        key=key,
    )
    return layout.figure(
        key, title, description, _PARETO_WIDTH, _PARETO_HEIGHT, "".join(parts), table
    )


def _pareto_ticks(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    pad = (high - low) * 0.06 or abs(high) * 0.05 or 0.05
    # A metric that is never negative (a time, an accuracy) gets no negative ticks.
    return layout.nice_ticks(low - pad if low < 0 else max(low - pad, 0.0), high + pad, 5)


def _front_line(points: Sequence[ParetoPoint], x, y) -> str:
    """The front joined left to right by a dashed line ("" for a front of one)."""
    front = sorted((p for p in points if p.on_front), key=lambda p: x(p.values[0]))
    if len(front) <= 1:
        return ""
    path = " ".join(
        f"{'M' if i == 0 else 'L'}{layout.num(x(p.values[0]))} {layout.num(y(p.values[1]))}"
        for i, p in enumerate(front)
    )
    return layout.element(
        "path", d=path, fill="none", stroke=BLUE, stroke_width=2, stroke_dasharray="5 3"
    )


def _pareto_markers(view: ParetoView, x, y) -> list[str]:
    """A marker per algorithm, the front drawn last (on top); the first 20 of the front
    named where a label fits without overprinting another."""
    x_metric, y_metric = view.metrics
    markers = []
    labelled = 0
    taken: list[Box] = []  # the labels placed so far: none may overprint another
    plot = Box(_LEFT, 0.0, _PARETO_WIDTH, _BOTTOM)  # clear of the tick labels left and below
    for point in sorted(view.points, key=lambda p: p.on_front):
        cx, cy = x(point.values[0]), y(point.values[1])
        shown = (
            f"{point.algorithm}: {x_metric.name} {point.values[0]:.4g}, "
            f"{y_metric.name} {point.values[1]:.4g}" + (" (on the front)" if point.on_front else "")
        )
        label = ""
        name = layout.truncate(point.algorithm, 150)
        spot = (
            place_label(cx, cy, name, taken=taken, within=plot)
            if point.on_front and labelled < 20
            else None
        )
        if spot is not None:
            labelled += 1
            label = _front_label(spot.x, spot.y, name, spot.anchor)
        marker = layout.circle(
            cx,
            cy,
            6 if point.on_front else 4,
            BLUE if point.on_front else MUTED,
            "0.95" if point.on_front else "0.6",
            stroke="#ffffff",
        )
        markers.append(
            layout.element(
                "g",
                layout.tooltip(shown) + marker + label,
                data_algorithm=point.algorithm,
                data_front="yes" if point.on_front else "no",
            )
        )
    return markers


def _front_label(x: float, y: float, name: str, anchor: str) -> str:
    # a white halo keeps the label readable where it crosses the front's line
    return text(
        x,
        y,
        name,
        font_size=11,
        text_anchor=anchor,
        fill=BLUE,
        stroke="#ffffff",
        stroke_width=3,
        paint_order="stroke",
    )
