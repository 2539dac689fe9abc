"""``{% load charts %}``: the benchmark charts as inline SVG with their tables.

``{% benchmark_charts sections benchmark %}`` renders every benchmark-level chart in a
``<section id="charts">`` from a snapshot's typed sections (a mapping such as
:class:`estimation.selectors.SnapshotSections`, read only when the tag runs);
``{% chart_figure chart %}`` renders one chart built in a view.
"""

from __future__ import annotations

from django import template

from estimation.core.contract import Board
from estimation.core.registry import estimator_get
from frontend.compare.links import pair_url_maker
from frontend.explore import charts

register = template.Library()

FIGURE = "frontend/charts/figure.html"


def _chosen_estimator(context: template.Context, board: Board) -> str:
    request = context.get("request")
    chosen = request.GET.get("estimator") if request is not None else None
    return chosen if chosen in board.estimator_keys else board.recommended


def _estimator_links(context: template.Context, board: Board, chosen: str) -> list:
    request = context.get("request")
    links = []
    for key in board.estimator_keys:
        query = request.GET.copy() if request is not None else None
        if query is not None:
            query["estimator"] = key
            href = f"?{query.urlencode()}#chart-win-probability"
        else:
            href = f"?estimator={key}#chart-win-probability"
        links.append(
            {
                "key": key,
                "label": estimator_get(key).label,
                "href": href,
                "current": key == chosen,
            }
        )
    return links


@register.inclusion_tag("frontend/charts/benchmark_charts.html", takes_context=True)
def benchmark_charts(context, sections, benchmark):
    board = sections.get("board") if sections else None
    if board is None:
        return {"charts": [], "benchmark": benchmark}
    chosen = _chosen_estimator(context, board)
    metric = context.get("metric")
    metric_name = metric.name if metric is not None and not metric.is_primary else None
    return {
        "charts": charts.benchmark_charts(
            sections, chosen, pair_href=pair_url_maker(benchmark.slug, metric_name)
        ),
        "benchmark": benchmark,
        "estimator_links": _estimator_links(context, board, chosen),
    }


@register.inclusion_tag(FIGURE)
def chart_figure(chart):
    """Any :class:`~frontend.explore.charts.Chart` built in a view."""
    return {"chart": chart}


@register.filter
def parameter_count(value) -> str:
    """A parameter count as readers of model cards write it: 22.7M, 1.01B, 7.24B (and the
    exact number below a thousand)."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return ""
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "k")):
        if number >= size:
            return f"{number / size:.3g}{suffix}"
    return str(number)


# The recompute's timing keys (estimation/recompute/refresh.py writes them) in a maintainer's
# words; a key not listed reads as its words ("uncertainty_s" -> "uncertainty").
TIMING_LABELS = {
    "load_s": "reading the scores",
    "analyse_s": "analysis",
    "uncertainty_s": "bootstrap intervals and held-out evaluation",
    "advisor_s": "advisor",
    "stages": "analysis step",
}


def timing_label(key: str) -> str:
    return TIMING_LABELS.get(key) or key.removesuffix("_s").replace("_", " ")


@register.filter
def timing_lines(timings) -> list[tuple[str, float]]:
    """A snapshot's timings as (label, seconds) in words: numbers as they are, a nested
    group (the analysis's ``stages``) one line per stage, ``analysis step: ranking``;
    anything else left out."""
    lines: list[tuple[str, float]] = []
    if not isinstance(timings, dict):
        return lines
    for name, value in timings.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            lines.append((timing_label(str(name)), float(value)))
        elif isinstance(value, dict):
            lines += [
                (f"{timing_label(str(name))}: {label}", seconds)
                for label, seconds in timing_lines(value)
            ]
    return lines
