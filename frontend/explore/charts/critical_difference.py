"""Demšar's critical-difference diagram: mean ranks on an axis, bars joining groups that a
test cannot tell apart."""

from __future__ import annotations

import math
from dataclasses import dataclass

from estimation.core.contract import (
    Board,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    WilcoxonSection,
)
from frontend.explore.charts import layout
from frontend.explore.charts.layout import BLACK, BLUE, MUTED, Chart, escape, line, text
from frontend.explore.charts.ordering import check_test

# Beyond this many algorithms the diagram's labels and bars cannot be read.
CD_MAX_ALGORITHMS = 100


@dataclass(frozen=True)
class CriticalDifferenceData:
    key: str
    test_label: str
    title: str
    names: tuple[str, ...] = ()  # best mean rank first
    mean_rank: tuple[float, ...] = ()  # aligned with ``names``
    groups: tuple[tuple[str, ...], ...] = ()  # groups of two or more
    critical_difference: float | None = None
    alpha: float = 0.05
    letters: tuple[str, ...] = ()  # aligned with ``names``
    not_applicable: str | None = None


def critical_difference_data(
    board: Board, section: NemenyiSection | WilcoxonSection | NotApplicable | None, test: str
) -> CriticalDifferenceData:
    """``section`` is the test's pairwise section (for its groups); None when not stored."""
    label = check_test(test)
    key = f"cd-{test}"
    title = f"Critical-difference diagram ({label})"
    summary = board.nemenyi if test == "nemenyi" else board.wilcoxon
    if isinstance(summary, NotApplicable):
        return CriticalDifferenceData(key, label, title, not_applicable=summary.reason)
    if isinstance(section, NotApplicable):
        return CriticalDifferenceData(key, label, title, not_applicable=section.reason)
    groups = () if section is None else section.groups
    if isinstance(groups, NotApplicable):
        # too many algorithms for a readable diagram
        return CriticalDifferenceData(key, label, title, not_applicable=groups.reason)
    if isinstance(board.mean_rank, NotApplicable):
        return CriticalDifferenceData(
            key, label, title, not_applicable="mean ranks need complete rankings"
        )
    if len(board.algorithms) > CD_MAX_ALGORITHMS:
        return CriticalDifferenceData(
            key,
            label,
            title,
            not_applicable=(
                f"not shown at this size: a diagram of {len(board.algorithms)} algorithms would not "
                f"be readable (it is drawn for up to {CD_MAX_ALGORITHMS}); the leaderboard "
                "table has every mean rank and group letter"
            ),
        )
    mean_rank = board.column(board.mean_rank)
    names = sorted(mean_rank, key=lambda a: (mean_rank[a], a))
    letters = board.column(summary.letters)
    return CriticalDifferenceData(
        key,
        label,
        title,
        names=tuple(names),
        mean_rank=tuple(mean_rank[a] for a in names),
        groups=tuple(
            tuple(board.algorithms[i] for i in group) for group in groups if len(group) > 1
        ),
        critical_difference=summary.critical_difference
        if isinstance(summary, NemenyiSummary)
        else None,
        alpha=summary.alpha,
        letters=tuple(letters.get(a, "") for a in names),
    )


def draw_critical_difference(data: CriticalDifferenceData) -> Chart:
    key, title, label = data.key, data.title, data.test_label
    if data.not_applicable is not None:
        return layout.not_applicable(key, title, data.not_applicable)
    names, cd, alpha = data.names, data.critical_difference, data.alpha
    mean_rank = dict(zip(names, data.mean_rank, strict=True))
    m = len(names)
    width = 640.0
    side = layout.label_width([f"{a} (0.00)" for a in names], cap=200)
    left, right = side + 16, width - side - 16
    x = layout.scale(1, max(m, 2), left, right)
    top = 58.0 if cd is not None else 30.0
    parts = _rank_scale(cd, x, top, m, left, right)
    bar_top = top + 12
    for index, group in enumerate(data.groups):
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
    rows_top = bar_top + len(data.groups) * 8 + 14
    row_height = 18.0
    half = math.ceil(m / 2)
    for index, (name, rank) in enumerate(zip(names, data.mean_rank, strict=True)):
        if index < half:
            y = rows_top + index * row_height
            edge, anchor, label_x = left - 8, "end", left - 12
        else:
            y = rows_top + (m - 1 - index) * row_height
            edge, anchor, label_x = right + 8, "start", right + 12
        shown = f"{layout.truncate(name, side - 40)} ({rank:.2f})"
        parts.append(_algorithm_line(name, rank, x(rank), top, y, edge, label_x, anchor, shown))
    height = rows_top + half * row_height + 4

    group_words = "; ".join("{" + ", ".join(group) + "}" for group in data.groups) or "none"
    description = (
        f"Mean ranks of {m} algorithms (1 = best). "
        + (f"Critical difference {cd:.2f} at alpha {alpha}. " if cd is not None else "")
        + f"Groups not significantly different ({label}): {group_words}."
    )
    table = layout.html_table(
        f"Mean rank and {label} group letters (same letter: not significantly different)",
        ["Algorithm", "Mean rank", "Group"],
        [
            [a, f"{rank:.2f}", letter]
            for a, rank, letter in zip(names, data.mean_rank, data.letters, strict=True)
        ],
        key=key,
    )
    note = f"Thick bars join algorithms the {label} test cannot tell apart at α = {alpha}" + (
        f" (Nemenyi critical difference {cd:.3f})." if cd is not None else "."
    )
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


def _rank_scale(cd: float | None, x, top: float, m: int, left: float, right: float) -> list[str]:
    """The critical difference's bar (when there is one) and the axis of mean ranks."""
    parts = []
    if cd is not None:
        cd_end = min(x(1 + cd), right)
        parts += [
            line(x(1), 18, cd_end, 18, stroke=BLACK, stroke_width=2),
            line(x(1), 13, x(1), 23, stroke=BLACK, stroke_width=2),
            line(cd_end, 13, cd_end, 23, stroke=BLACK, stroke_width=2),
            text((x(1) + cd_end) / 2, 12, f"CD = {cd:.2f}", text_anchor="middle"),
        ]
    step = 1 if m <= 20 else 5
    ticks = [1, *range(1 + step, m, step), m] if step > 1 else list(range(1, m + 1))
    parts.append(line(x(1), top, x(max(m, 2)), top, stroke=BLACK))
    for tick in ticks:
        parts.append(line(x(tick), top - 5, x(tick), top, stroke=BLACK))
        parts.append(text(x(tick), top - 9, tick, text_anchor="middle", font_size=11))
    parts.append(text(left - 6, top + 4, "better", text_anchor="end", fill=MUTED, font_size=11))
    parts.append(text(right + 6, top + 4, "worse", fill=MUTED, font_size=11))
    return parts


def _algorithm_line(
    name: str,
    rank: float,
    at: float,
    top: float,
    y: float,
    edge: float,
    label_x: float,
    anchor: str,
    shown: str,
) -> str:
    """A line down from the algorithm's mean rank on the axis, then out to its label."""
    return (
        f'<g data-algorithm="{escape(name)}">'
        f"{layout.tooltip(f'{name}: mean rank {rank:.2f}')}"
        + line(at, top, at, y, stroke=BLACK)
        + line(at, y, edge, y, stroke=BLACK)
        + text(label_x, y + 4, shown, text_anchor=anchor)
        + "</g>"
    )


def critical_difference_chart(
    board: Board,
    section: NemenyiSection | WilcoxonSection | NotApplicable | None,
    test: str = "nemenyi",
) -> Chart:
    """``test`` is ``"nemenyi"`` (with the critical-difference bar) or ``"wilcoxon"``
    (Holm- or Bonferroni-corrected pairwise groups; no single CD exists)."""
    return draw_critical_difference(critical_difference_data(board, section, test))
