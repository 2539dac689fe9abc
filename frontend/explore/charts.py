"""Charts of a benchmark's results as inline SVG, drawn on the server from the snapshot payload.

Each function takes plain data (the payload of ``estimation.core.analysis``, or rows read
from the database) and returns a :class:`Chart`: the SVG (with ``role="img"``, a <title>
and a <desc>), an HTML table with the same numbers (the text alternative) and, when the
chart cannot be drawn, the reason. No JavaScript, no chart library; the colours are the
Okabe-Ito palette. The functions never touch the database.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from frontend.explore import svg
from frontend.explore.svg import (
    BLACK,
    BLUE,
    EMPTY,
    GREEN,
    GRID,
    MUTED,
    SKY,
    VERMILION,
    document,
    escape,
    fmt,
    fmt_p,
    html_table,
    line,
    nice_ticks,
    rect,
    text,
    tooltip,
)

ESTIMATOR_ORDER = ("loo_kl", "loo_tv", "minimax", "mle", "borda", "plackett_luce")
SHORT_LABELS = {
    "loo_kl": "LOO (log loss)",
    "loo_tv": "LOO (TV)",
    "minimax": "Minimax",
    "mle": "Win rate",
    "borda": "Borda",
    "plackett_luce": "Plackett–Luce",
}
TEST_LABELS = {"nemenyi": "Nemenyi", "wilcoxon": "Wilcoxon signed-rank"}
HEATMAP_MAX_DATASETS = 60
PVALUE_MAX_ALGORITHMS = 40
STRIP_MAX_POINTS = 3000


@dataclass(frozen=True)
class Chart:
    """One chart: ``svg`` and ``table`` are ready-to-insert markup (already escaped)."""

    key: str
    title: str
    description: str
    svg: str = ""
    table: str = ""
    note: str = ""
    not_applicable: str | None = None


def _not_applicable(key: str, title: str, reason: str) -> Chart:
    return Chart(
        key=key, title=title, description=f"Not applicable: {reason}", not_applicable=reason
    )


def _by_mean_rank(payload: dict[str, Any]) -> list[str]:
    """Algorithms, best first: by mean rank when known, else by win rate."""
    names = list(payload["input"]["algorithms"])
    mean_rank = payload.get("mean_rank")
    if mean_rank:
        return sorted(names, key=lambda a: (mean_rank.get(a) or math.inf, a))
    win_rate = payload.get("win_rate") or {}
    return sorted(names, key=lambda a: (-(win_rate.get(a) or 0.0), a))


def _scale(low: float, high: float, start: float, end: float):
    span = (high - low) or 1.0
    return lambda value: start + (value - low) / span * (end - start)


# --- critical-difference diagram ---------------------------------------------------------


def critical_difference_chart(payload: dict[str, Any], test: str = "nemenyi") -> Chart:
    """Demšar's diagram: mean ranks on an axis, bars joining indistinguishable groups.

    ``test`` is ``"nemenyi"`` (with the critical-difference bar) or ``"wilcoxon"``
    (Holm- or Bonferroni-corrected pairwise groups; no single CD exists).
    """
    if test not in TEST_LABELS:
        raise ValueError(f"test must be one of {list(TEST_LABELS)}, got {test!r}")
    key = f"cd-{test}"
    label = TEST_LABELS[test]
    title = f"Critical-difference diagram ({label})"
    result = payload.get(test) or {}
    mean_rank = payload.get("mean_rank")
    if "not_applicable" in result:
        return _not_applicable(key, title, result["not_applicable"])
    if not mean_rank:
        return _not_applicable(key, title, "mean ranks need complete rankings")
    names = sorted(mean_rank, key=lambda a: (mean_rank[a], a))
    m = len(names)
    groups = [group for group in result.get("groups", []) if len(group) > 1]
    cd = result.get("critical_difference")
    alpha = result.get("alpha", payload["params"]["alpha"])

    width = 640.0
    side = svg.label_width([f"{a} (0.00)" for a in names], cap=200)
    left, right = side + 16, width - side - 16
    x = _scale(1, max(m, 2), left, right)
    top = 58.0 if cd is not None else 30.0
    parts = []
    if cd is not None:
        cd_end = x(1 + cd)
        parts += [
            line(x(1), 18, min(cd_end, right), 18, stroke=BLACK, stroke_width=2),
            line(x(1), 13, x(1), 23, stroke=BLACK, stroke_width=2),
            line(min(cd_end, right), 13, min(cd_end, right), 23, stroke=BLACK, stroke_width=2),
            text((x(1) + min(cd_end, right)) / 2, 12, f"CD = {cd:.2f}", text_anchor="middle"),
        ]
    step = 1 if m <= 20 else 5
    ticks = [1, *range(1 + step, m, step), m] if step > 1 else list(range(1, m + 1))
    parts.append(line(x(1), top, x(max(m, 2)), top, stroke=BLACK))
    for tick in ticks:
        parts.append(line(x(tick), top - 5, x(tick), top, stroke=BLACK))
        parts.append(text(x(tick), top - 9, tick, text_anchor="middle", font_size=11))
    parts.append(text(left - 6, top + 4, "better", text_anchor="end", fill=MUTED, font_size=11))
    parts.append(text(right + 6, top + 4, "worse", fill=MUTED, font_size=11))

    bar_top = top + 12
    for index, group in enumerate(groups):
        ranks = [mean_rank[a] for a in group]
        y = bar_top + index * 8
        parts.append(
            line(
                x(min(ranks)) - 4,
                y,
                x(max(ranks)) + 4,
                y,
                stroke=BLUE,
                stroke_width=5,
                stroke_linecap="round",
                **{"data-group": ", ".join(group)},
            )
        )
    rows_top = bar_top + len(groups) * 8 + 14
    row_height = 18.0
    half = math.ceil(m / 2)
    for index, name in enumerate(names):
        rank = mean_rank[name]
        if index < half:
            y = rows_top + index * row_height
            edge, anchor, label_x = left - 8, "end", left - 12
        else:
            y = rows_top + (m - 1 - index) * row_height
            edge, anchor, label_x = right + 8, "start", right + 12
        parts.append(
            f'<g data-algorithm="{escape(name)}">{tooltip(f"{name}: mean rank {rank:.2f}")}'
            + line(x(rank), top, x(rank), y, stroke=BLACK)
            + line(x(rank), y, edge, y, stroke=BLACK)
            + text(
                label_x,
                y + 4,
                f"{svg.truncate(name, side - 40)} ({rank:.2f})",
                text_anchor=anchor,
            )
            + "</g>"
        )
    height = rows_top + half * row_height + 4

    group_words = "; ".join("{" + ", ".join(group) + "}" for group in groups) or "none"
    description = (
        f"Mean ranks of {m} algorithms (1 = best). "
        + (f"Critical difference {cd:.2f} at alpha {alpha}. " if cd is not None else "")
        + f"Groups not significantly different ({label}): {group_words}."
    )
    letters = result.get("letters") or {}
    table = html_table(
        f"Mean rank and {label} group letters (same letter: not significantly different)",
        ["Algorithm", "Mean rank", "Group"],
        [[a, f"{mean_rank[a]:.2f}", letters.get(a, "")] for a in names],
        key=key,
    )
    note = f"Thick bars join algorithms the {label} test cannot tell apart at α = {alpha}" + (
        f" (Nemenyi critical difference {cd:.3f})." if cd is not None else "."
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


# --- rank heatmap --------------------------------------------------------------------------


def _unknown_rank_floor(payload: dict[str, Any]) -> float | None:
    """Ranks above this are placeholders for positions a top-K list does not give."""
    facts = payload["input"]
    if facts.get("kind") == "rank" and facts["known_positions"] < facts["n_algorithms_used"]:
        return float(facts["known_positions"])
    return None


def _heatmap_style(rank: float, unknown_above: float | None, worst: float) -> tuple[str, str, str]:
    """(fill, label, text colour) of a heatmap cell."""
    if unknown_above is not None and rank > unknown_above:
        return EMPTY, "–", "#1b1f24"
    t = (rank - 1) / max(worst - 1, 1)
    return svg.diverging(t), _rank_label(rank), "#ffffff" if t < 0.22 else "#1b1f24"


def _rank_label(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def rank_heatmap_chart(payload: dict[str, Any], max_datasets: int = HEATMAP_MAX_DATASETS) -> Chart:
    """Datasets x algorithms, each cell the algorithm's rank on that dataset."""
    key = "rank-heatmap"
    title = "Ranks on every dataset"
    matrix = payload.get("rank_matrix")
    if matrix is None:
        return _not_applicable(
            key,
            title,
            "this benchmark is too large for the rank matrix to be stored with its results",
        )
    names = _by_mean_rank(payload)
    column = {a: j for j, a in enumerate(matrix["algorithms"])}
    names = [a for a in names if a in column]
    order = sorted(range(len(matrix["datasets"])), key=lambda i: matrix["datasets"][i])
    shown = order[:max_datasets]
    m, n_shown = len(names), len(shown)
    unknown_above = _unknown_rank_floor(payload)

    cell_w = max(12.0, min(44.0, 520.0 / max(m, 1)))
    cell_h = 18.0 if n_shown <= 60 else 12.0
    left = svg.label_width([matrix["datasets"][i] for i in shown], cap=170) + 6
    top = min(svg.label_width(names, cap=130), 130) + 16
    width = max(left + m * cell_w + 80, 360.0)
    height = top + n_shown * cell_h + 56
    worst = float(unknown_above) if unknown_above is not None else float(m)
    show_numbers = cell_w >= 22 and cell_h >= 16
    parts = []
    for j, name in enumerate(names):
        cx = left + (j + 0.5) * cell_w
        parts.append(
            f'<text x="{svg.num(cx + 3)}" y="{svg.num(top - 6)}" font-size="11" '
            f'transform="rotate(-55 {svg.num(cx + 3)} {svg.num(top - 6)})">'
            f"{escape(svg.truncate(name, 124))}</text>"
        )
    rows_alt = []
    styles: dict[float, tuple[str, str, str]] = {}
    safe_names = [escape(name) for name in names]
    tooltips = n_shown * m <= 2500
    for row_index, i in enumerate(shown):
        dataset = matrix["datasets"][i]
        y = top + row_index * cell_h
        parts.append(
            text(
                left - 6,
                y + cell_h / 2 + 4,
                svg.truncate(dataset, left - 10),
                text_anchor="end",
                font_size=11,
            )
        )
        ranks = matrix["ranks"][i]
        alt = [dataset]
        safe_dataset = escape(dataset)
        for j, name in enumerate(names):
            rank = ranks[column[name]]
            style = styles.get(rank)
            if style is None:
                style = styles[rank] = _heatmap_style(rank, unknown_above, worst)
            colour, shown_rank, ink = style
            alt.append(shown_rank)
            x0 = left + j * cell_w
            cell = (
                f'<rect x="{x0:.1f}" y="{y:.1f}" width="{cell_w - 1:.1f}" '
                f'height="{cell_h - 1:.1f}" fill="{colour}"/>'
            )
            if show_numbers:
                cell += (
                    f'<text x="{x0 + cell_w / 2:.1f}" y="{y + cell_h / 2 + 4:.1f}" '
                    f'text-anchor="middle" font-size="10" fill="{ink}">{shown_rank}</text>'
                )
            if tooltips:
                cell = f"<g><title>{safe_dataset}, {safe_names[j]}: {shown_rank}</title>{cell}</g>"
            parts.append(cell)
        rows_alt.append(alt)

    legend_y = top + n_shown * cell_h + 14
    gradient = (
        f'<defs><linearGradient id="{key}-scale">'
        f'<stop offset="0" stop-color="{BLUE}"/><stop offset="0.5" stop-color="#f7f7f7"/>'
        f'<stop offset="1" stop-color="{svg.ORANGE}"/></linearGradient></defs>'
    )
    parts.append(gradient)
    parts.append(rect(left, legend_y, 160, 10, fill=f"url(#{key}-scale)", stroke=GRID))
    parts.append(text(left, legend_y + 24, "1 (best)", font_size=11, fill=MUTED))
    parts.append(
        text(
            left + 160,
            legend_y + 24,
            f"{worst:g} (worst)" if unknown_above is None else f"{worst:g}",
            text_anchor="end",
            font_size=11,
            fill=MUTED,
        )
    )
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
    total = len(matrix["datasets"])
    note = "Columns: algorithms from best to worst mean rank; rows: datasets by name."
    if total > n_shown:
        note += (
            f" Showing the first {n_shown} of {total} datasets (by name); the table lists the same."
        )
    description = (
        f"Heatmap of the rank (1 = best, {m} = worst) of {m} algorithms on {n_shown} datasets; "
        "dark blue is best, orange worst."
    )
    table = html_table(
        f"Rank of each algorithm on each dataset (first {n_shown} of {total} datasets)",
        ["Dataset", *names],
        rows_alt,
        key=key,
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


# --- rank distribution ------------------------------------------------------------------


def rank_distribution_chart(payload: dict[str, Any]) -> Chart:
    """Box plot of each algorithm's ranks over datasets, with every dataset as a dot."""
    key = "rank-distribution"
    title = "How each algorithm's rank varies across datasets"
    matrix = payload.get("rank_matrix")
    if matrix is None:
        return _not_applicable(
            key, title, "the rank matrix is not stored for a benchmark this large"
        )
    names = [a for a in _by_mean_rank(payload) if a in matrix["algorithms"]]
    ranks = np.asarray(matrix["ranks"], dtype=float)
    column = {a: j for j, a in enumerate(matrix["algorithms"])}
    n, m = ranks.shape
    unknown_above = _unknown_rank_floor(payload)
    if unknown_above is not None:
        return _top_k_distribution(payload, names, ranks, column, int(unknown_above))

    width = 640.0
    left = svg.label_width(names, cap=170) + 8
    right = width - 24
    row_h = 22.0
    top = 14.0
    x = _scale(1, max(m, 2), left, right)
    height = top + m * row_h + 44
    ticks = nice_ticks(1, m, count=min(m - 1, 8) or 1)
    ticks = [t for t in ticks if 1 <= t <= m] or [1, m]
    parts = [
        svg.x_axis(
            ticks,
            x,
            top + m * row_h + 4,
            label="rank on a dataset (1 = best)",
            grid_top=top,
            formatter=lambda t: f"{t:g}",
        )
    ]
    draw_points = n * m <= STRIP_MAX_POINTS
    quartiles = np.percentile(ranks, [0, 25, 50, 75, 100], axis=0)
    rows_alt = []
    for index, name in enumerate(names):
        values = ranks[:, column[name]]
        q0, q1, q2, q3, q4 = quartiles[:, column[name]]
        mean = float(values.mean())
        y = top + index * row_h + row_h / 2
        worst = [matrix["datasets"][i] for i in np.flatnonzero(values == q4)]
        row = [
            tooltip(
                f"{name}: best {q0:g}, quartiles {q1:g} / {q2:g} / {q3:g}, worst {q4:g}, "
                f"mean {mean:.2f}"
            ),
            text(left - 8, y + 4, svg.truncate(name, left - 12), text_anchor="end"),
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
        if draw_points:
            jitter = (np.arange(n) % 5 - 2) * 1.6
            row += [
                element_circle(x(v), y + dy, 1.8)
                for v, dy in zip(values.tolist(), jitter.tolist(), strict=True)
            ]
        row.append(
            f'<path d="M{svg.num(x(mean))} {svg.num(y - 5)} l4 5 l-4 5 l-4 -5 z" '
            f'fill="{VERMILION}"/>'
        )
        parts.append(f'<g data-algorithm="{escape(name)}">{"".join(row)}</g>')
        rows_alt.append(
            [
                name,
                f"{q0:g}",
                f"{q1:g}",
                f"{q2:g}",
                f"{q3:g}",
                f"{q4:g}",
                f"{mean:.2f}",
                ", ".join(worst[:3]) + (" …" if len(worst) > 3 else ""),
            ]
        )
    note = (
        "Box: middle half of the ranks; black line: median; orange diamond: mean; whiskers: "
        "best and worst rank; dots: one per dataset."
        if draw_points
        else "Box: middle half of the ranks; black line: median; orange diamond: mean; "
        "whiskers: best and worst rank."
    )
    if unknown_above is not None:
        note += (
            f" Only the top {unknown_above:.0f} positions are known: a dataset where an "
            "algorithm is not listed counts at the average of the unknown positions."
        )
    description = (
        f"Box plots of the ranks of {m} algorithms over {n} datasets, best mean rank first."
    )
    table = html_table(
        f"Rank of each algorithm over {n} datasets",
        ["Algorithm", "Best", "Q1", "Median", "Q3", "Worst", "Mean", "Worst on"],
        rows_alt,
        key=key,
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


POSITION_COLOURS = (BLUE, SKY, GREEN, svg.PINK, svg.ORANGE, VERMILION, svg.YELLOW)


def _top_k_distribution(
    payload: dict[str, Any],
    names: list[str],
    ranks: np.ndarray,
    column: dict[str, int],
    known: int,
) -> Chart:
    """With top-K lists only: per algorithm, datasets in each known position and the rest."""
    key = "rank-distribution"
    title = f"How often each algorithm made the top {known}"
    n = ranks.shape[0]
    counts = _positional_counts(ranks, known)
    width = 640.0
    left = svg.label_width(names, cap=170) + 8
    right = width - 24
    row_h = 22.0
    top = 30.0
    x = _scale(0.0, float(n), left, right)
    height = top + len(names) * row_h + 44
    ticks = nice_ticks(0, n, 5)
    ticks = [t for t in ticks if t <= n]
    parts = [
        svg.x_axis(
            ticks,
            x,
            top + len(names) * row_h + 4,
            label="datasets",
            grid_top=top,
            formatter=lambda t: f"{t:g}",
        )
    ]
    legend_x = left
    for position in range(known):
        colour = POSITION_COLOURS[position % len(POSITION_COLOURS)]
        parts.append(rect(legend_x, 6, 12, 12, fill=colour))
        parts.append(text(legend_x + 16, 16, _ordinal(position + 1), font_size=11, fill=MUTED))
        legend_x += 64
    parts.append(rect(legend_x, 6, 12, 12, fill=EMPTY, stroke=GRID))
    parts.append(text(legend_x + 16, 16, f"not in the top {known}", font_size=11, fill=MUTED))
    rows_alt = []
    for index, name in enumerate(names):
        y = top + index * row_h
        j = column[name]
        start = 0.0
        row = [text(left - 8, y + row_h / 2 + 4, svg.truncate(name, left - 12), text_anchor="end")]
        for position in range(known):
            count = float(counts[position, j])
            colour = POSITION_COLOURS[position % len(POSITION_COLOURS)]
            row.append(rect(x(start), y + 4, x(start + count) - x(start), row_h - 8, fill=colour))
            start += count
        row.append(rect(x(start), y + 4, x(n) - x(start), row_h - 8, fill=EMPTY))
        words = ", ".join(f"{_ordinal(p + 1)} {counts[p, j]:g}" for p in range(known))
        parts.append(
            f'<g data-algorithm="{escape(name)}">{tooltip(f"{name}: {words}")}{"".join(row)}</g>'
        )
        rows_alt.append([name, *[f"{counts[p, j]:g}" for p in range(known)], f"{n - start:g}"])
    description = (
        f"Stacked bars: on how many of {n} datasets each of {len(names)} algorithms finished "
        f"in each of the top {known} positions."
    )
    table = html_table(
        f"Datasets on which each algorithm finished in each of the top {known} positions",
        ["Algorithm", *[_ordinal(p + 1) for p in range(known)], f"Not in the top {known}"],
        rows_alt,
        key=key,
    )
    note = (
        f"Only the top {known} positions are known on each dataset, so the spread of the "
        "other ranks cannot be shown. A tie of t counts 1/t at each position it spans."
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


def _ordinal(position: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(position if position < 20 else position % 10, "th")
    return f"{position}{suffix}"


def element_circle(cx: float, cy: float, r: float) -> str:
    return (
        f'<circle cx="{svg.num(cx)}" cy="{svg.num(cy)}" r="{svg.num(r)}" '
        'fill="#000000" fill-opacity="0.4"/>'
    )


# --- win probability ------------------------------------------------------------------------


def _interval_rows(
    labels: Sequence[str],
    values: Sequence[float | None],
    intervals: Sequence[tuple[float | None, float | None]],
    *,
    key: str,
    title: str,
    description: str,
    axis_label: str,
    highlight: str | None = None,
) -> str:
    """Horizontal bars from 0 with a 95 % interval whisker on each."""
    width = 640.0
    left = svg.label_width(labels, cap=170) + 8
    right = width - 130
    row_h = 24.0
    top = 10.0
    highest = max(
        [v for v in values if v is not None]
        + [hi for _, hi in intervals if hi is not None]
        + [0.05]
    )
    ticks = nice_ticks(0.0, min(1.0, highest * 1.05), count=5)
    x = _scale(0.0, ticks[-1], left, right)
    height = top + len(labels) * row_h + 44
    parts = [svg.x_axis(ticks, x, top + len(labels) * row_h + 4, label=axis_label, grid_top=top)]
    for index, (label, value, (low, high)) in enumerate(
        zip(labels, values, intervals, strict=True)
    ):
        y = top + index * row_h
        colour = GREEN if label == highlight else BLUE
        row = [text(left - 8, y + row_h / 2 + 4, svg.truncate(label, left - 12), text_anchor="end")]
        if value is not None:
            row.append(
                rect(x(0), y + 5, x(value) - x(0), row_h - 10, fill=colour, fill_opacity="0.85")
            )
        if low is not None and high is not None:
            middle = y + row_h / 2
            row += [
                line(x(low), middle, x(high), middle, stroke=BLACK, stroke_width=1.5),
                line(x(low), middle - 5, x(low), middle + 5, stroke=BLACK, stroke_width=1.5),
                line(x(high), middle - 5, x(high), middle + 5, stroke=BLACK, stroke_width=1.5),
            ]
        interval = f" [{fmt(low, 2)}, {fmt(high, 2)}]" if low is not None else ""
        row.append(
            text(right + 8, y + row_h / 2 + 4, f"{fmt(value)}{interval}", font_size=11, fill=MUTED)
        )
        parts.append(
            f'<g data-label="{escape(label)}">'
            f"{tooltip(f'{label}: {fmt(value)}{interval}')}{''.join(row)}</g>"
        )
    return document(key, title, description, width, height, "".join(parts))


def win_probability_chart(payload: dict[str, Any], estimator: str | None = None) -> Chart:
    """P(win a new dataset) per algorithm under one estimator, with its bootstrap interval."""
    estimator = estimator or payload["recommended"]
    if estimator not in payload["estimators"]:
        raise ValueError(
            f"estimator must be one of {list(payload['estimators'])}, got {estimator!r}"
        )
    entry = payload["estimators"][estimator]
    key = "win-probability"
    title = f"Probability of winning a new dataset: {entry['label']}"
    probabilities = entry["p"]
    intervals = entry.get("ci") or {}
    p_best = entry.get("p_best") or {}
    names = sorted(probabilities, key=lambda a: (-(probabilities[a] or 0.0), a))
    description = (
        f"Bars: estimated probability that each of {len(names)} algorithms wins a new "
        f"dataset ({entry['label']}); whiskers: 95 % bootstrap interval."
    )
    markup = _interval_rows(
        names,
        [probabilities[a] for a in names],
        [tuple(intervals.get(a) or (None, None)) for a in names],
        key=key,
        title=title,
        description=description,
        axis_label="probability of winning a new dataset",
    )
    table = html_table(
        f"Win probability ({entry['label']}) with 95 % bootstrap interval and P(best)",
        ["Algorithm", "P(win)", "95 % low", "95 % high", "P(best)"],
        [
            [
                a,
                fmt(probabilities[a]),
                fmt((intervals.get(a) or [None, None])[0]),
                fmt((intervals.get(a) or [None, None])[1]),
                fmt(p_best.get(a), 2),
            ]
            for a in names
        ],
        key=key,
    )
    note = entry.get("ci_note") or (
        "" if intervals else "No bootstrap intervals were computed for this snapshot."
    )
    return Chart(key, title, description, markup, table, note)


def algorithm_estimates_chart(payload: dict[str, Any], algorithm: str) -> Chart:
    """One algorithm's win probability under each of the six estimators."""
    key = "algorithm-estimates"
    title = f"{algorithm}: probability of winning under every estimator"
    schemes = [s for s in ESTIMATOR_ORDER if s in payload["estimators"]]
    labels = [SHORT_LABELS.get(s, payload["estimators"][s]["label"]) for s in schemes]
    values = [payload["estimators"][s]["p"].get(algorithm) for s in schemes]
    intervals = [
        tuple((payload["estimators"][s].get("ci") or {}).get(algorithm) or (None, None))
        for s in schemes
    ]
    description = (
        f"Estimated probability that {algorithm} wins a new dataset, under {len(schemes)} "
        "estimators, with 95 % bootstrap intervals."
    )
    recommended = SHORT_LABELS.get(payload["recommended"], payload["recommended"])
    markup = _interval_rows(
        labels,
        values,
        intervals,
        key=key,
        title=title,
        description=description,
        axis_label="probability of winning a new dataset",
        highlight=recommended,
    )
    table = html_table(
        f"Win probability of {algorithm} by estimator",
        ["Estimator", "P(win)", "95 % low", "95 % high", "P(best)"],
        [
            [
                payload["estimators"][s]["label"],
                fmt(value),
                fmt(low),
                fmt(high),
                fmt((payload["estimators"][s].get("p_best") or {}).get(algorithm), 2),
            ]
            for s, label, value, (low, high) in zip(schemes, labels, values, intervals, strict=True)
        ],
        key=key,
    )
    note = f"Green: the benchmark's headline estimator ({recommended})."
    return Chart(key, title, description, markup, table, note)


# --- pairwise p-values ----------------------------------------------------------------------


def _p_colour(p: float | None, alpha: float) -> tuple[str, str]:
    if p is None:
        return "#ffffff", "#1b1f24"
    if p < 0.001:
        return BLUE, "#ffffff"
    if p < 0.01:
        return SKY, "#1b1f24"
    if p < alpha:
        return "#bfe0f3", "#1b1f24"
    return EMPTY, "#1b1f24"


def _short_p(p: float | None) -> str:
    if p is None:
        return "n/a"
    if p < 0.001:
        return "<.001"
    return f"{p:.2f}".lstrip("0") if p < 1 else "1"


def pvalue_matrix_chart(
    payload: dict[str, Any], test: str = "wilcoxon", max_algorithms: int = PVALUE_MAX_ALGORITHMS
) -> Chart:
    """Corrected pairwise p-values as a colour-coded grid (darker: more significant)."""
    if test not in TEST_LABELS:
        raise ValueError(f"test must be one of {list(TEST_LABELS)}, got {test!r}")
    key = f"pvalues-{test}"
    label = TEST_LABELS[test]
    result = payload.get(test) or {}
    correction = result.get("correction")
    title = f"Pairwise p-values ({label}" + (
        f", {correction.title()}-corrected)" if correction else ")"
    )
    if "not_applicable" in result:
        return _not_applicable(key, title, result["not_applicable"])
    pvalues = result["pvalues"]
    alpha = result.get("alpha", payload["params"]["alpha"])
    names = [a for a in _by_mean_rank(payload) if a in pvalues]
    total = len(names)
    names = names[:max_algorithms]
    m = len(names)
    cell = max(16.0, min(46.0, 480.0 / max(m, 1)))
    left = svg.label_width(names, cap=150) + 6
    top = min(svg.label_width(names, cap=120), 120) + 16
    width = max(left + m * cell + 70, 380.0)
    height = top + m * cell + 40
    show_numbers = cell >= 30
    safe_names = [escape(name) for name in names]
    parts = []
    for j, name in enumerate(names):
        cx = left + (j + 0.5) * cell + 3
        parts.append(
            f'<text x="{svg.num(cx)}" y="{svg.num(top - 6)}" font-size="11" '
            f'transform="rotate(-55 {svg.num(cx)} {svg.num(top - 6)})">'
            f"{escape(svg.truncate(name, 114))}</text>"
        )
    rows_alt = []
    for i, a in enumerate(names):
        y = top + i * cell
        parts.append(
            text(
                left - 6,
                y + cell / 2 + 4,
                svg.truncate(a, left - 10),
                text_anchor="end",
                font_size=11,
            )
        )
        alt = [a]
        safe = safe_names
        for j, b in enumerate(names):
            cx = left + j * cell
            if i == j:
                parts.append(rect(cx, y, cell - 1, cell - 1, fill="#ffffff", stroke=GRID))
                alt.append("—")
                continue
            p = pvalues[a].get(b)
            fill, ink = _p_colour(p, alpha)
            shown = fmt_p(p)
            alt.append(shown)
            content = (
                f'<rect x="{cx:.1f}" y="{y:.1f}" width="{cell - 1:.1f}" '
                f'height="{cell - 1:.1f}" fill="{fill}"/>'
            )
            if show_numbers:
                content += (
                    f'<text x="{cx + cell / 2:.1f}" y="{y + cell / 2 + 4:.1f}" '
                    f'text-anchor="middle" font-size="10" fill="{ink}">'
                    f"{escape(_short_p(p))}</text>"
                )
            parts.append(
                f"<g><title>{safe[i]} vs {safe[j]}: p = {escape(shown)}</title>{content}</g>"
            )
        rows_alt.append(alt)
    legend = [
        (BLUE, "p < 0.001"),
        (SKY, "p < 0.01"),
        ("#bfe0f3", f"p < {alpha:g}"),
        (EMPTY, "not significant"),
    ]
    legend_y = top + m * cell + 14
    x = 8.0
    for colour, words in legend:
        parts.append(rect(x, legend_y, 12, 12, fill=colour, stroke=GRID))
        parts.append(text(x + 16, legend_y + 10, words, font_size=11, fill=MUTED))
        x += 24 + len(words) * 6.2
    description = (
        f"Grid of {label} p-values for every pair of {m} algorithms; a darker cell is a more "
        f"significant difference; light grey cells are not significant at alpha {alpha:g}."
    )
    note = "Rows and columns: algorithms from best to worst mean rank."
    if total > m:
        note += f" Showing the best {m} of {total} algorithms."
    na_pairs = result.get("not_applicable_pairs") or []
    if na_pairs:
        note += f" {len(na_pairs)} pairs could not be tested (n/a): " + "; ".join(
            f"{pair['a']} vs {pair['b']}: {pair['reason']}" for pair in na_pairs[:5]
        )
    table = html_table(
        f"{title}: p-value for each pair",
        ["Algorithm", *names],
        rows_alt,
        key=key,
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


# --- which estimator predicts best ------------------------------------------------------------


def estimator_evaluation_chart(payload: dict[str, Any]) -> Chart:
    """Held-out log loss and TV loss of each estimator, best bar in green, p vs the best."""
    key = "estimator-evaluation"
    title = "Which estimator predicts best here"
    evaluation = payload.get("evaluation") or {}
    if "not_applicable" in evaluation:
        return _not_applicable(key, title, evaluation["not_applicable"])
    schemes = [s for s in ESTIMATOR_ORDER if s in evaluation["log_loss"]]
    labels = {s: SHORT_LABELS.get(s, payload["estimators"][s]["label"]) for s in schemes}
    width = 640.0
    left = svg.label_width(labels.values(), cap=250) + 8
    panel_w = (width - left - 16) / 2
    row_h = 26.0
    top = 34.0
    height = top + len(schemes) * row_h + 40
    parts = []
    panels = (
        ("log_loss", "best", "pvalue_vs_best", "mean log loss (lower is better)"),
        ("tv", "best_tv", "pvalue_vs_best_tv", "mean TV loss (lower is better)"),
    )
    for index, (loss_key, best_key, p_key, axis_label) in enumerate(panels):
        losses = evaluation[loss_key]
        start = left + index * (panel_w + 12)
        end = start + panel_w - 96
        ticks = nice_ticks(0.0, max(v for v in losses.values() if v is not None) * 1.02, 4)
        x = _scale(0.0, ticks[-1], start, end)
        parts.append(text(start, 14, axis_label, font_size=11, fill=MUTED))
        parts.append(svg.x_axis(ticks, x, top + len(schemes) * row_h + 4, grid_top=top))
        for row, scheme in enumerate(schemes):
            y = top + row * row_h
            value = losses.get(scheme)
            best = scheme == evaluation[best_key]
            pvalue = evaluation[p_key].get(scheme)
            tag = (
                "best"
                if best
                else ("p < 0.001" if fmt_p(pvalue) == "< 0.001" else f"p = {fmt_p(pvalue)}")
            )
            parts.append(
                f"<g>{tooltip(f'{labels[scheme]}: {fmt(value)} ({tag})')}"
                + rect(
                    x(0),
                    y + 5,
                    x(value or 0) - x(0),
                    row_h - 10,
                    fill=GREEN if best else BLUE,
                    fill_opacity="0.85",
                )
                + text(x(value or 0) + 4, y + row_h / 2 + 4, f"{fmt(value, 2)}", font_size=10)
                + text(
                    end + 90, y + row_h / 2 + 4, tag, font_size=10, fill=MUTED, text_anchor="end"
                )
                + "</g>"
            )
    for row, scheme in enumerate(schemes):
        parts.append(
            text(left - 8, top + row * row_h + row_h / 2 + 4, labels[scheme], text_anchor="end")
        )
    folds = (
        "leave-one-out over datasets"
        if evaluation.get("leave_one_out")
        else f"{evaluation['n_folds']}-fold cross-validation over datasets, "
        f"repeated {evaluation['n_repeats']} times"
    )
    description = (
        f"Mean held-out log loss and TV loss of {len(schemes)} estimators ({folds}); "
        f"best by log loss: {labels[evaluation['best']]}; by TV: {labels[evaluation['best_tv']]}."
    )
    table = html_table(
        "Held-out loss of each estimator, with the paired Wilcoxon p-value against the best",
        ["Estimator", "Log loss", "p vs best", "TV loss", "p vs best (TV)"],
        [
            [
                labels[s],
                fmt(evaluation["log_loss"].get(s)),
                "best" if s == evaluation["best"] else fmt_p(evaluation["pvalue_vs_best"].get(s)),
                fmt(evaluation["tv"].get(s)),
                "best"
                if s == evaluation["best_tv"]
                else fmt_p(evaluation["pvalue_vs_best_tv"].get(s)),
            ]
            for s in schemes
        ],
        key=key,
    )
    note = (
        f"Each estimator is fitted on the training datasets and scored on the held-out ones "
        f"({folds}). A large p-value means the data cannot tell that estimator from the best."
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


def estimator_weights_chart(payload: dict[str, Any]) -> Chart:
    """The fitted weights w[1..K] of the LOO (KL, TV) and minimax estimators."""
    key = "estimator-weights"
    title = "Weights given to first, second, third… places"
    schemes = [s for s in ("loo_kl", "loo_tv", "minimax") if s in payload["estimators"]]
    K = max(len(payload["estimators"][s].get("weights") or []) for s in schemes)
    width = 640.0
    panel_w = width / len(schemes)
    top, plot_h = 36.0, 110.0
    height = top + plot_h + 40
    parts = []
    rows_alt = []
    for index, scheme in enumerate(schemes):
        entry = payload["estimators"][scheme]
        weights = entry.get("weights") or []
        start = index * panel_w + 34
        end = (index + 1) * panel_w - 14
        bar_w = (end - start) / max(K, 1)
        y = _scale(0.0, 1.0, top + plot_h, top)
        parts.append(text(start, 16, entry["label"].replace("Leave-one-out", "LOO"), font_size=11))
        for tick in (0.0, 0.5, 1.0):
            parts.append(line(start, y(tick), end, y(tick), stroke=GRID))
            parts.append(
                text(
                    start - 4, y(tick) + 4, f"{tick:g}", text_anchor="end", font_size=10, fill=MUTED
                )
            )
        for j, weight in enumerate(weights):
            bx = start + j * bar_w + bar_w * 0.15
            parts.append(
                "<g>"
                + tooltip(f"{entry['label']}: w{j + 1} = {weight:.3f}")
                + rect(bx, y(weight), bar_w * 0.7, y(0) - y(weight), fill=BLUE, fill_opacity="0.85")
                + text(
                    bx + bar_w * 0.35,
                    y(weight) - 3,
                    f"{weight:.2f}",
                    text_anchor="middle",
                    font_size=10,
                )
                + text(
                    bx + bar_w * 0.35,
                    top + plot_h + 14,
                    f"w{j + 1}",
                    text_anchor="middle",
                    font_size=10,
                    fill=MUTED,
                )
                + "</g>"
            )
        extra = []
        if "loss" in entry:
            extra.append(f"LOO loss {fmt(entry['loss'])} (win rate {fmt(entry.get('loss_mle'))})")
        if "bound" in entry:
            extra.append(f"bound {fmt(entry['bound'])} (win rate {fmt(entry.get('bound_mle'))})")
        parts.append(
            text(start, top + plot_h + 32, "; ".join(extra)[:60], font_size=10, fill=MUTED)
        )
        rows_alt.append(
            [
                entry["label"],
                *[fmt(w) for w in weights],
                *([""] * (K - len(weights))),
                "; ".join(extra),
            ]
        )
    description = (
        "Bar charts of the weights each estimator gives to the first K positions: "
        + "; ".join(f"{row[0]}: {', '.join(row[1 : K + 1])}" for row in rows_alt)
        + "."
    )
    table = html_table(
        "Fitted weights of the weighted estimators",
        ["Estimator", *[f"w{j + 1}" for j in range(K)], "Fit"],
        rows_alt,
        key=key,
    )
    note = (
        "An estimator counts a dataset's k-th place with weight w_k; the win rate is w = (1, 0, 0). "
        "Leave-one-out weights are fitted to this benchmark; minimax weights depend only on "
        "the number of algorithms and datasets."
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


# --- one algorithm ------------------------------------------------------------------------


def _positional_counts(ranks: np.ndarray, positions: int) -> np.ndarray:
    """(positions, m): datasets finishing in each position; a tie of t counts 1/t at each."""
    tied = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
    first = ranks - (tied - 1) / 2
    last = first + tied - 1
    steps = np.arange(1, positions + 1)[:, None, None]
    inside = (first[None] <= steps + 1e-9) & (steps - 1e-9 <= last[None])
    return (inside / tied[None]).sum(axis=1)


def algorithm_positions(payload: dict[str, Any], algorithm: str) -> list[tuple[str, float]]:
    """How many datasets ``algorithm`` finished in each position (a tie of t counts 1/t each).

    With top-K input the positions after K are unknown: they are counted together.
    """
    matrix = payload.get("rank_matrix")
    if matrix is None or algorithm not in matrix["algorithms"]:
        return []
    ranks = np.asarray(matrix["ranks"], dtype=float)
    column = matrix["algorithms"].index(algorithm)
    floor = _unknown_rank_floor(payload)
    known = int(floor) if floor is not None else ranks.shape[1]
    counts = _positional_counts(ranks, known)[:, column]
    bars = [(str(position), float(counts[position - 1])) for position in range(1, known + 1)]
    if floor is not None:
        bars.append((f"below {known}", float((ranks[:, column] > floor).sum())))
    return bars


def rank_histogram_chart(payload: dict[str, Any], algorithm: str) -> Chart:
    key = "rank-histogram"
    title = f"{algorithm}: how often it finished in each position"
    bars = algorithm_positions(payload, algorithm)
    if not bars:
        return _not_applicable(
            key,
            title,
            "the rank matrix is not stored for this benchmark or the algorithm is not ranked",
        )
    width = 640.0
    left, right = 44.0, width - 12
    top, plot_h = 14.0, 150.0
    height = top + plot_h + 48
    highest = max(count for _, count in bars) or 1.0
    ticks = nice_ticks(0, highest, 4)
    y = _scale(0.0, ticks[-1], top + plot_h, top)
    bar_w = (right - left) / len(bars)
    parts = []
    for tick in ticks:
        parts.append(line(left, y(tick), right, y(tick), stroke=GRID))
        parts.append(
            text(
                left - 6,
                y(tick) + 4,
                svg.tick_label(tick, ticks),
                text_anchor="end",
                font_size=10,
                fill=MUTED,
            )
        )
    every = max(1, math.ceil(len(bars) / 20))
    for index, (label, count) in enumerate(bars):
        bx = left + index * bar_w + bar_w * 0.1
        colour = GREEN if index == 0 else (MUTED if label.startswith("below") else BLUE)
        content = rect(bx, y(count), bar_w * 0.8, y(0) - y(count), fill=colour, fill_opacity="0.85")
        if index % every == 0 or label.startswith("below"):
            content += text(
                bx + bar_w * 0.4,
                top + plot_h + 14,
                label,
                text_anchor="middle",
                font_size=10,
                fill=MUTED,
            )
        parts.append(f"<g>{tooltip(f'position {label}: {count:g} datasets')}{content}</g>")
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
        + ", ".join(f"{label}: {count:g}" for label, count in bars)
        + "."
    )
    table = html_table(
        f"Datasets per finishing position of {algorithm}",
        ["Position", "Datasets"],
        [[label, f"{count:g}"] for label, count in bars],
        key=key,
    )
    note = "A tie of t algorithms counts 1/t at each of the positions it spans."
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


def margin_chart(margins: Sequence[Any], algorithm: str, metric_name: str) -> Chart:
    """How far ``algorithm`` is behind each dataset's winner (0 where it wins)."""
    key = "margin-to-winner"
    title = f"{algorithm}: distance to the winner on each dataset"
    if not margins:
        return _not_applicable(key, title, "no dataset-level scores to compare")
    rows = sorted(margins, key=lambda row: (-row.margin, row.dataset))
    width = 640.0
    labels = [row.dataset for row in rows]
    left = svg.label_width(labels, cap=170) + 8
    right = width - 170
    row_h = 20.0
    top = 10.0
    highest = max(row.margin for row in rows)
    ticks = nice_ticks(0.0, highest if highest > 0 else 1.0, 4)
    x = _scale(0.0, ticks[-1], left, right)
    height = top + len(rows) * row_h + 44
    parts = [
        svg.x_axis(
            ticks,
            x,
            top + len(rows) * row_h + 4,
            label=f"{metric_name}: winner's score minus this algorithm's",
            grid_top=top,
        )
    ]
    for index, row in enumerate(rows):
        y = top + index * row_h
        won = row.margin <= 0
        words = "won" if won else f"−{row.margin:.4g} vs {row.winner}"
        parts.append(
            f"<g>{tooltip(f'{row.dataset}: {words}')}"
            + text(
                left - 8,
                y + row_h / 2 + 4,
                svg.truncate(row.dataset, left - 12),
                text_anchor="end",
                font_size=11,
            )
            + rect(
                x(0),
                y + 4,
                x(max(row.margin, 0)) - x(0),
                row_h - 8,
                fill=GREEN if won else VERMILION,
                fill_opacity="0.85",
            )
            + text(right + 8, y + row_h / 2 + 4, svg.truncate(words, 160), font_size=10, fill=MUTED)
            + "</g>"
        )
    description = (
        f"Gap between the best {metric_name} and that of {algorithm} on {len(rows)} datasets, "
        "largest gap first; zero where it won."
    )
    table = html_table(
        f"Dataset-level {metric_name}: {algorithm} against the winner",
        ["Dataset", algorithm, "Winner", "Winner's score", "Gap"],
        [
            [row.dataset, f"{row.score:.4g}", row.winner, f"{row.best:.4g}", f"{row.margin:.4g}"]
            for row in rows
        ],
        key=key,
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table
    )


# --- one dataset ------------------------------------------------------------------------


def dataset_scores_chart(summaries: Sequence[Any], dataset: str, metric_name: str) -> Chart:
    """Each algorithm's score on one dataset: fold range, mean, and every fold as a dot."""
    key = "dataset-scores"
    title = f"Scores on {dataset}"
    if not summaries:
        return _not_applicable(key, title, "no accepted scores on this dataset")
    width = 640.0
    labels = [row.algorithm for row in summaries]
    left = svg.label_width(labels, cap=170) + 8
    right = width - 90
    row_h = 24.0
    top = 10.0
    low = min(row.minimum for row in summaries)
    high = max(row.maximum for row in summaries)
    pad = (high - low) * 0.05 or abs(high) * 0.01 or 0.01
    ticks = nice_ticks(low - pad, high + pad, 5)
    x = _scale(ticks[0], ticks[-1], left, right)
    height = top + len(summaries) * row_h + 44
    parts = [
        svg.x_axis(ticks, x, top + len(summaries) * row_h + 4, label=metric_name, grid_top=top)
    ]
    for index, row in enumerate(summaries):
        y = top + index * row_h + row_h / 2
        content = [
            text(left - 8, y + 4, svg.truncate(row.algorithm, left - 12), text_anchor="end"),
            line(x(row.minimum), y, x(row.maximum), y, stroke=MUTED, stroke_width=2),
        ]
        if len(row.folds) > 1:
            content += [
                f'<circle cx="{svg.num(x(v))}" cy="{svg.num(y + ((k % 3) - 1) * 3)}" r="2" '
                f'fill="{BLUE}" fill-opacity="0.45"/>'
                for k, v in enumerate(row.folds[:200])
            ]
        content.append(
            f'<path d="M{svg.num(x(row.mean))} {svg.num(y - 6)} l6 6 l-6 6 l-6 -6 z" '
            f'fill="{VERMILION}"/>'
        )
        content.append(text(right + 8, y + 4, f"{row.mean:.4g}", font_size=11, fill=MUTED))
        parts.append(
            f'<g data-algorithm="{escape(row.algorithm)}">'
            f"{tooltip(f'{row.algorithm}: mean {row.mean:.4g}, folds {row.minimum:.4g} to {row.maximum:.4g}')}"
            f"{''.join(content)}</g>"
        )
    description = (
        f"{metric_name} of {len(summaries)} algorithms on {dataset}: diamond the mean, line the "
        "range over folds, dots the folds."
    )
    table = html_table(
        f"{metric_name} on {dataset}",
        ["Algorithm", "Mean", "Min", "Max", "Folds"],
        [
            [
                row.algorithm,
                f"{row.mean:.4g}",
                f"{row.minimum:.4g}",
                f"{row.maximum:.4g}",
                str(len(row.folds)),
            ]
            for row in summaries
        ],
        key=key,
    )
    has_folds = any(len(row.folds) > 1 for row in summaries)
    note = (
        "Orange diamond: mean over folds; grey line: lowest to highest fold; blue dots: folds."
        if has_folds
        else "Orange diamond: the algorithm's score on this dataset (no folds were submitted)."
    )
    body = "".join(parts)
    return Chart(
        key, title, description, document(key, title, description, width, height, body), table, note
    )


def benchmark_charts(payload: dict[str, Any], estimator: str | None = None) -> list[Chart]:
    """Every benchmark-level chart, in reading order."""
    return [
        win_probability_chart(payload, estimator),
        critical_difference_chart(payload, "nemenyi"),
        critical_difference_chart(payload, "wilcoxon"),
        rank_distribution_chart(payload),
        rank_heatmap_chart(payload),
        pvalue_matrix_chart(payload, "wilcoxon"),
        pvalue_matrix_chart(payload, "nemenyi"),
        estimator_evaluation_chart(payload),
        estimator_weights_chart(payload),
    ]
