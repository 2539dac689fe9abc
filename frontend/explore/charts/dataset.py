"""Chart of one dataset: each algorithm's score, its range over folds and every fold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from frontend.explore.charts import layout
from frontend.explore.charts.layout import BLUE, MUTED, VERMILION, Chart, line, text


class ScoreSummary(Protocol):
    """One algorithm's scores on one dataset (``frontend.explore.selectors``)."""

    @property
    def algorithm(self) -> str: ...
    @property
    def mean(self) -> float: ...
    @property
    def minimum(self) -> float: ...
    @property
    def maximum(self) -> float: ...
    @property
    def folds(self) -> Sequence[float]: ...


def dataset_scores_chart(
    summaries: Sequence[ScoreSummary],
    dataset: str,
    metric_name: str,
    max_rows: int = layout.MAX_DRAWN_ALGORITHMS,
) -> Chart:
    """Each algorithm's score on one dataset: fold range, mean, and every fold as a dot.

    The rows come from the database, not the snapshot, so they are the chart's data already;
    they arrive best first, and the first ``max_rows`` are drawn.
    """
    key = "dataset-scores"
    title = f"Scores on {dataset}"
    if not summaries:
        return layout.not_applicable(key, title, "no accepted scores on this dataset")
    total = len(summaries)
    summaries = summaries[:max_rows]
    width = 640.0
    labels = [row.algorithm for row in summaries]
    left = layout.label_width(labels, cap=170) + 8
    right = width - 90
    row_h = 24.0
    top = 10.0
    low = min(row.minimum for row in summaries)
    high = max(row.maximum for row in summaries)
    pad = (high - low) * 0.05 or abs(high) * 0.01 or 0.01
    ticks = layout.nice_ticks(low - pad, high + pad, 5)
    x = layout.scale(ticks[0], ticks[-1], left, right)
    height = top + len(summaries) * row_h + 44
    parts = [
        layout.x_axis(ticks, x, top + len(summaries) * row_h + 4, label=metric_name, grid_top=top)
    ]
    for index, row in enumerate(summaries):
        y = top + index * row_h + row_h / 2
        content = [
            text(left - 8, y + 4, layout.truncate(row.algorithm, left - 12), text_anchor="end"),
            line(x(row.minimum), y, x(row.maximum), y, stroke=MUTED, stroke_width=2),
        ]
        if len(row.folds) > 1:
            content += [
                layout.circle(x(v), y + ((k % 3) - 1) * 3, 2, BLUE, "0.45")
                for k, v in enumerate(row.folds[:200])
            ]
        content.append(layout.diamond(x(row.mean), y - 6, 6, 6, VERMILION))
        content.append(text(right + 8, y + 4, f"{row.mean:.4g}", font_size=11, fill=MUTED))
        spread = f"mean {row.mean:.4g}, folds {row.minimum:.4g} to {row.maximum:.4g}"
        parts.append(
            f'<g data-algorithm="{layout.escape(row.algorithm)}">'
            f"{layout.tooltip(f'{row.algorithm}: {spread}')}{''.join(content)}</g>"
        )
    description = (
        f"{metric_name} of {len(summaries)} algorithms on {dataset}: diamond the mean, line the "
        "range over folds, dots the folds."
    )
    table = layout.html_table(
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
    ) + layout.capped_note(len(summaries), total, "best", where="the table below lists every one")
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)
