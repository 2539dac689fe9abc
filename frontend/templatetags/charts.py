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
