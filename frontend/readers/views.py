"""Server-rendered pages. Each view reads through selectors and renders a template."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from estimation.selectors import snapshot_latest
from frontend.readers.presenters import friedman_summary, leaderboard_rows
from leaderboard.models import Benchmark
from leaderboard.selectors import (
    benchmark_get_visible,
    benchmark_list_visible,
    primary_metric,
    snapshot_computing,
)


def benchmark_index(request: HttpRequest) -> HttpResponse:
    benchmarks = benchmark_list_visible(user=request.user, query=request.GET.get("q", ""))
    return render(request, "frontend/benchmark_list.html", {"benchmarks": benchmarks})


def benchmark_leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        benchmark = benchmark_get_visible(slug=slug, user=request.user)
    except Benchmark.DoesNotExist:
        raise Http404("No such benchmark") from None
    metric = primary_metric(benchmark=benchmark)
    snapshot = snapshot_latest(benchmark=benchmark, metric=metric)
    computing = snapshot_computing(benchmark=benchmark, metric=metric) if metric else None
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "snapshot": snapshot,
        "computing": computing,
        "rows": leaderboard_rows(snapshot.payload) if snapshot else [],
        "friedman": friedman_summary(snapshot.payload) if snapshot else "",
        "estimator_label": (
            snapshot.payload["estimators"][snapshot.payload["recommended"]]["label"]
            if snapshot
            else ""
        ),
    }
    return render(request, "frontend/benchmark_leaderboard.html", context)
