"""Server-rendered pages. Each view reads through selectors and renders a template."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from estimation.selectors import snapshot_latest
from leaderboard.models import Benchmark
from leaderboard.selectors import benchmark_get_visible, benchmark_list_visible


def benchmark_index(request: HttpRequest) -> HttpResponse:
    benchmarks = benchmark_list_visible(user=request.user, query=request.GET.get("q", ""))
    return render(request, "frontend/benchmark_list.html", {"benchmarks": benchmarks})


def benchmark_leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        benchmark = benchmark_get_visible(slug=slug, user=request.user)
    except Benchmark.DoesNotExist:
        raise Http404("No such benchmark") from None
    snapshot = snapshot_latest(benchmark=benchmark)
    rows = []
    if snapshot is not None:
        payload = snapshot.payload
        rows = sorted(
            (
                {
                    "algorithm": name,
                    "win_rate": payload["win_rate"][name],
                    "mean_rank": payload["mean_rank"][name],
                }
                for name in payload["input"]["algorithms"]
            ),
            key=lambda row: (-row["win_rate"], row["mean_rank"]),
        )
    context = {"benchmark": benchmark, "snapshot": snapshot, "rows": rows}
    return render(request, "frontend/benchmark_leaderboard.html", context)
