"""Probability of winning a new dataset, as bars with each estimate's own interval as
whiskers (:func:`estimation.core.verdict.win_band`, named by its label): every algorithm
under one estimator, or one algorithm under every estimator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from estimation.core.contract import Board, EstimatorResult, NotApplicable
from estimation.core.registry import estimator_get
from estimation.core.verdict import win_band
from frontend.explore.charts import layout
from frontend.explore.charts.layout import BLACK, BLUE, GREEN, MUTED, Chart, fmt, line, rect, text
from frontend.explore.charts.ordering import SHORT_LABELS

Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class IntervalBar:
    """One bar: a point estimate with its own interval and P(best) (None when unknown)."""

    label: str
    value: float | None
    interval: Interval
    p_best: float | None
    interval_label: str = ""  # the engine's words for the interval ("" when none)


@dataclass(frozen=True)
class WinProbabilityData:
    estimator_label: str
    bars: tuple[IntervalBar, ...]  # highest probability first, at most MAX_DRAWN_ALGORITHMS
    has_intervals: bool
    interval_label: str  # e.g. "95 % bootstrap spread" ("" when there is none)
    interval_note: str
    total: int  # algorithms estimated, drawn or not


@dataclass(frozen=True)
class AlgorithmEstimatesData:
    algorithm: str
    bars: tuple[IntervalBar, ...]  # one per estimator, labelled by its short label
    full_labels: tuple[str, ...]  # aligned with ``bars``
    recommended: str  # short label of the headline estimator


def _interval(board: Board, result: EstimatorResult, index: int) -> tuple[Interval, str]:
    """The estimate's own interval and its label (the win rate's: the exact interval)."""
    band = win_band(board, result.key)
    if band is None:
        return (None, None), ""
    return (band.lower[index], band.upper[index]), band.label


def _bar(board: Board, result: EstimatorResult, index: int, label: str) -> IntervalBar:
    interval, words = _interval(board, result, index)
    return IntervalBar(label, result.p[index], interval, _p_best(result, index), words)


def _p_best(result: EstimatorResult, index: int) -> float | None:
    boot = result.bootstrap
    return None if isinstance(boot, NotApplicable) else boot.p_best[index]


def win_probability_data(
    board: Board, estimator: str | None = None, max_bars: int = layout.MAX_DRAWN_ALGORITHMS
) -> WinProbabilityData:
    estimator = estimator or board.recommended
    if estimator not in board.estimator_keys:
        raise ValueError(
            f"estimator must be one of {list(board.estimator_keys)}, got {estimator!r}"
        )
    result = board.estimator(estimator)
    p = result.p
    order = sorted(range(len(p)), key=lambda i: (-(p[i] or 0.0), board.algorithms[i]))
    boot = result.bootstrap
    band = win_band(board, estimator)
    return WinProbabilityData(
        estimator_label=estimator_get(estimator).label,
        bars=tuple(_bar(board, result, i, board.algorithms[i]) for i in order[:max_bars]),
        has_intervals=band is not None,
        interval_label=band.label if band else "",
        interval_note=boot.reason if band is None and isinstance(boot, NotApplicable) else "",
        total=len(order),
    )


def algorithm_estimates_data(board: Board, algorithm: str) -> AlgorithmEstimatesData:
    index = board.algorithms.index(algorithm)
    return AlgorithmEstimatesData(
        algorithm=algorithm,
        bars=tuple(
            _bar(board, result, index, SHORT_LABELS[result.key]) for result in board.estimators
        ),
        full_labels=tuple(estimator_get(result.key).label for result in board.estimators),
        recommended=SHORT_LABELS[board.recommended],
    )


def _interval_rows(
    bars: Sequence[IntervalBar],
    *,
    key: str,
    title: str,
    description: str,
    axis_label: str,
    highlight: str | None = None,
) -> str:
    """Horizontal bars from 0 with each bar's own interval as a whisker."""
    labels = [bar.label for bar in bars]
    width = 640.0
    left = layout.label_width(labels, cap=170) + 8
    right = width - 130
    row_h = 24.0
    top = 10.0
    highest = max(
        [bar.value for bar in bars if bar.value is not None]
        + [bar.interval[1] for bar in bars if bar.interval[1] is not None]
        + [0.05]
    )
    ticks = layout.nice_ticks(0.0, min(1.0, highest * 1.05), count=5)
    x = layout.scale(0.0, ticks[-1], left, right)
    height = top + len(bars) * row_h + 44
    parts = [layout.x_axis(ticks, x, top + len(bars) * row_h + 4, label=axis_label, grid_top=top)]
    for index, bar in enumerate(bars):
        label, value, (low, high) = bar.label, bar.value, bar.interval
        y = top + index * row_h
        colour = GREEN if label == highlight else BLUE
        row = [
            text(left - 8, y + row_h / 2 + 4, layout.truncate(label, left - 12), text_anchor="end")
        ]
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
            f'<g data-label="{layout.escape(label)}">'
            f"{layout.tooltip(f'{label}: {fmt(value)}{interval}')}{''.join(row)}</g>"
        )
    return layout.document(key, title, description, width, height, "".join(parts))


def draw_win_probability(data: WinProbabilityData) -> Chart:
    key = "win-probability"
    label = data.estimator_label
    words = data.interval_label
    title = f"Probability of winning a new dataset: {label}"
    whiskers = f"; whiskers: the {words} of each estimate" if words else ""
    description = (
        f"Bars: estimated probability that each of {len(data.bars)} algorithms wins a new "
        f"dataset ({label}){whiskers}."
    )
    markup = _interval_rows(
        data.bars,
        key=key,
        title=title,
        description=description,
        axis_label="probability of winning a new dataset",
    )
    table = layout.html_table(
        f"Win probability ({label}) with its {words or 'interval'} and P(best)",
        ["Algorithm", "P(win)", f"{words or 'interval'}: low", "high", "P(best)"],
        [
            [
                bar.label,
                fmt(bar.value),
                fmt(bar.interval[0]),
                fmt(bar.interval[1]),
                fmt(bar.p_best, 2),
            ]
            for bar in data.bars
        ],
        key=key,
    )
    legend = f"Whiskers: {words} of each P(win)." if words else ""
    note = data.interval_note or ("" if data.has_intervals else "No interval was computed.")
    capped = layout.capped_note(len(data.bars), data.total, "most probable")
    return Chart(key, title, description, markup, table, f"{legend} {note}{capped}".strip())


def draw_algorithm_estimates(data: AlgorithmEstimatesData) -> Chart:
    key = "algorithm-estimates"
    algorithm = data.algorithm
    title = f"{algorithm}: probability of winning under every estimator"
    description = (
        f"Estimated probability that {algorithm} wins a new dataset, under {len(data.bars)} "
        "estimators; whiskers: each estimate's own interval (named in the table)."
    )
    markup = _interval_rows(
        data.bars,
        key=key,
        title=title,
        description=description,
        axis_label="probability of winning a new dataset",
        highlight=data.recommended,
    )
    table = layout.html_table(
        f"Win probability of {algorithm} by estimator, each with its own interval",
        ["Estimator", "P(win)", "Interval", "low", "high", "P(best)"],
        [
            [
                full,
                fmt(bar.value),
                bar.interval_label or "–",
                fmt(bar.interval[0]),
                fmt(bar.interval[1]),
                fmt(bar.p_best, 2),
            ]
            for full, bar in zip(data.full_labels, data.bars, strict=True)
        ],
        key=key,
    )
    kinds = sorted({bar.interval_label for bar in data.bars if bar.interval_label})
    whiskers = (
        f" Whiskers: {'; '.join(kinds)} (each estimator's own, see the table)." if kinds else ""
    )
    note = f"Green: the benchmark's headline estimator ({data.recommended}).{whiskers}"
    return Chart(key, title, description, markup, table, note)


def win_probability_chart(
    board: Board, estimator: str | None = None, max_bars: int = layout.MAX_DRAWN_ALGORITHMS
) -> Chart:
    """P(win a new dataset) per algorithm under one estimator, with its own interval."""
    return draw_win_probability(win_probability_data(board, estimator, max_bars))


def algorithm_estimates_chart(board: Board, algorithm: str) -> Chart:
    """One algorithm's win probability under each of the estimators."""
    return draw_algorithm_estimates(algorithm_estimates_data(board, algorithm))
