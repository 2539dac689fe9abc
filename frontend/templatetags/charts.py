"""``{% load charts %}``: the benchmark charts as inline SVG with their tables.

``{% benchmark_charts payload benchmark %}`` renders every benchmark-level chart in a
``<section id="charts">``; the other tags render one chart each.
"""

from __future__ import annotations

from typing import Any

from django import template

from frontend.explore import charts

register = template.Library()

FIGURE = "frontend/charts/figure.html"


def _chosen_estimator(context: template.Context, payload: dict[str, Any]) -> str:
    request = context.get("request")
    chosen = request.GET.get("estimator") if request is not None else None
    return chosen if chosen in payload["estimators"] else payload["recommended"]


def _estimator_links(context: template.Context, payload: dict[str, Any], chosen: str) -> list:
    request = context.get("request")
    links = []
    for key in charts.ESTIMATOR_ORDER:
        if key not in payload["estimators"]:
            continue
        query = request.GET.copy() if request is not None else None
        if query is not None:
            query["estimator"] = key
            href = f"?{query.urlencode()}#chart-win-probability"
        else:
            href = f"?estimator={key}#chart-win-probability"
        links.append(
            {
                "key": key,
                "label": payload["estimators"][key]["label"],
                "href": href,
                "current": key == chosen,
            }
        )
    return links


@register.inclusion_tag("frontend/charts/benchmark_charts.html", takes_context=True)
def benchmark_charts(context, payload, benchmark):
    if not payload:
        return {"charts": [], "benchmark": benchmark}
    chosen = _chosen_estimator(context, payload)
    return {
        "charts": charts.benchmark_charts(payload, chosen),
        "benchmark": benchmark,
        "estimator_links": _estimator_links(context, payload, chosen),
    }


@register.inclusion_tag(FIGURE, takes_context=True)
def win_probability(context, payload, estimator=None):
    chosen = (
        estimator if estimator in payload["estimators"] else _chosen_estimator(context, payload)
    )
    return {
        "chart": charts.win_probability_chart(payload, chosen),
        "estimator_links": _estimator_links(context, payload, chosen),
    }


@register.inclusion_tag(FIGURE)
def cd_diagram(payload, test="nemenyi"):
    return {"chart": charts.critical_difference_chart(payload, test)}


@register.inclusion_tag(FIGURE)
def rank_heatmap(payload):
    return {"chart": charts.rank_heatmap_chart(payload)}


@register.inclusion_tag(FIGURE)
def rank_distribution(payload):
    return {"chart": charts.rank_distribution_chart(payload)}


@register.inclusion_tag(FIGURE)
def pvalue_matrix(payload, test="wilcoxon"):
    return {"chart": charts.pvalue_matrix_chart(payload, test)}


@register.inclusion_tag(FIGURE)
def estimator_evaluation(payload):
    return {"chart": charts.estimator_evaluation_chart(payload)}


@register.inclusion_tag(FIGURE)
def estimator_weights(payload):
    return {"chart": charts.estimator_weights_chart(payload)}


@register.inclusion_tag(FIGURE)
def chart_figure(chart):
    """Any :class:`~frontend.explore.charts.Chart` built in a view."""
    return {"chart": chart}
