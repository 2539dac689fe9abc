"""Comparison pages: two algorithms head to head (and the picker that leads there), and the
Pareto view of two metrics. Views parse the request, read through selectors and the typed
snapshot sections, and hand the typed results to the templates."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString

from estimation.core.contract import NotApplicable
from estimation.pair_hierarchical import (
    PairHierarchical,
    PairHierarchicalOffer,
    pair_hierarchical,
    sampler_description,
)
from estimation.pair_tests import pair_tests_on_demand
from estimation.selectors import SnapshotSections, snapshot_latest
from estimation.tables import result_table_build
from frontend.compare import charts
from frontend.compare.head_to_head import head_to_head
from frontend.compare.links import select_options
from frontend.compare.pareto import MetricAxis, ParetoView, pareto_view
from frontend.selectors import table_values
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import (
    benchmark_get_visible,
    benchmark_metric_get,
    benchmark_metric_list,
)
from leaderboard.throttling import client_address


def _visible_benchmark(request: HttpRequest, slug: str) -> Benchmark:
    try:
        return benchmark_get_visible(slug=slug, user=request.user)
    except Benchmark.DoesNotExist:
        raise Http404("No such benchmark") from None


def _metric(request: HttpRequest, benchmark: Benchmark) -> Metric:
    metric = benchmark_metric_get(benchmark=benchmark, name=request.GET.get("metric"))
    if metric is None:
        raise Http404("No such metric")
    return metric


def _metric_query(metric: Metric) -> str:
    return "" if metric.is_primary else "?" + urlencode({"metric": metric.name})


def pair_url(slug: str, a: str, b: str, metric: Metric | None = None) -> str:
    url = reverse("compare-pair", kwargs={"slug": slug, "a": a, "b": b})
    return url + (_metric_query(metric) if metric is not None else "")


def _pair_form(choices: list[str], a: str, b: str) -> dict[str, SafeString]:
    return {"a_options": select_options(choices, a), "b_options": select_options(choices, b)}


def compare_picker(request: HttpRequest, slug: str) -> HttpResponse:
    """Two selects (a GET form, so it works without JavaScript): a valid pair redirects to
    its page; anything else shows the form again, saying what was wrong."""
    benchmark = _visible_benchmark(request, slug)
    metric = _metric(request, benchmark)
    snapshot = snapshot_latest(benchmark=benchmark, metric=metric)
    board = SnapshotSections(snapshot)["board"]
    choices = board.top(len(board.algorithms)) if board is not None else []
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    problem = ""
    if board is not None and ("a" in request.GET or "b" in request.GET):
        if a not in board.algorithms or b not in board.algorithms:
            problem = "Pick two algorithms of this leaderboard."
        elif a == b:
            problem = "Pick two different algorithms."
        else:
            return redirect(pair_url(slug, a, b, metric))
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "snapshot": snapshot,
        "choices": choices,
        "problem": problem,
        **_pair_form(
            choices,
            a if a in choices else (choices[0] if choices else ""),
            b if b in choices else (choices[1] if len(choices) > 1 else ""),
        ),
    }
    return render(request, "frontend/compare/picker.html", context)


def _hierarchical_state(
    result: PairHierarchical | PairHierarchicalOffer | NotApplicable,
) -> str:
    if isinstance(result, PairHierarchical):
        return "result"
    if isinstance(result, PairHierarchicalOffer):
        return "offer" if result.can_compute else "refused"
    return "not_applicable"


def _compute_url(request: HttpRequest) -> str:
    query = request.GET.copy()
    query["hierarchical"] = "1"
    return f"{request.path}?{query.urlencode()}"


def compare_pair(request: HttpRequest, slug: str, a: str, b: str) -> HttpResponse:
    benchmark = _visible_benchmark(request, slug)
    metric = _metric(request, benchmark)
    snapshot = snapshot_latest(benchmark=benchmark, metric=metric)
    sections = SnapshotSections(snapshot)
    board = sections["board"]
    if board is None or snapshot is None:
        raise Http404("No results have been computed yet")
    if a == b or a not in board.algorithms or b not in board.algorithms:
        raise Http404("No such pair of ranked algorithms")
    # one read of the scores serves the page's values and the hierarchical model's folds
    table = result_table_build(benchmark=benchmark, metric=metric)
    values = table_values(table, (a, b))
    pair = head_to_head(
        sections,
        a,
        b,
        values=values,
        higher_is_better=metric.higher_is_better,
        computed=pair_tests_on_demand(snapshot=snapshot, sections=sections, a=a, b=b),
    )
    user = request.user
    hierarchical = pair_hierarchical(
        snapshot=snapshot,
        board=board,
        practical=sections["practical"],
        table=table,
        a=a,
        b=b,
        higher_is_better=metric.higher_is_better,
        client=f"user:{user.pk}" if user.is_authenticated else f"address:{client_address(request)}",
        compute=request.GET.get("hierarchical") == "1",
    )
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "snapshot": snapshot,
        "board": board,
        "pair": pair,
        "hierarchical": hierarchical,
        "hierarchical_state": _hierarchical_state(hierarchical),
        "sampler": sampler_description(),
        "compute_url": _compute_url(request),
        "chart": charts.difference_chart(pair, metric.name),
        "swap_url": pair_url(slug, b, a, metric),
        **_pair_form(board.top(len(board.algorithms)), a, b),
        "metric_query": _metric_query(metric),
    }
    return render(request, "frontend/compare/head_to_head.html", context)


def compare_pareto(request: HttpRequest, slug: str) -> HttpResponse:
    """Two metrics (``?x=`` and ``?y=``, by default the first two) against each other."""
    benchmark = _visible_benchmark(request, slug)
    metrics = list(benchmark_metric_list(benchmark=benchmark))
    by_name = {m.name: m for m in metrics}
    context: dict = {"benchmark": benchmark, "metrics": metrics}
    if len(metrics) < 2:
        return render(request, "frontend/compare/pareto.html", context)
    x_name = request.GET.get("x") or metrics[0].name
    y_name = request.GET.get("y") or next(m.name for m in metrics if m.name != x_name)
    if x_name not in by_name or y_name not in by_name:
        raise Http404("No such metric")
    chosen = (by_name[x_name], by_name[y_name])
    axes = (
        MetricAxis(chosen[0].name, chosen[0].higher_is_better),
        MetricAxis(chosen[1].name, chosen[1].higher_is_better),
    )
    if x_name == y_name:
        view = ParetoView(axes, not_applicable="pick two different metrics")
    else:
        view = pareto_view(
            axes, [result_table_build(benchmark=benchmark, metric=m) for m in chosen]
        )
    context.update(view=view, chart=charts.pareto_chart(view), x=chosen[0], y=chosen[1])
    return render(request, "frontend/compare/pareto.html", context)
