"""Server-rendered pages. Each view reads through selectors and renders a template."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from estimation.selectors import snapshot_latest
from leaderboard.models import Benchmark
from leaderboard.selectors import benchmark_list


def benchmark_index(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/benchmark_list.html", {"benchmarks": benchmark_list()})


def benchmark_leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
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
