"""The catalogue's objects for any app's API view, or 404 (NotFound) when the user may
not read them: one rule for the catalogue's API and the results' API."""

from __future__ import annotations

from rest_framework.exceptions import NotFound

from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import benchmark_get_visible, benchmark_metric_get


def benchmark_or_404(*, slug: str, user, counts: bool = True) -> Benchmark:
    try:
        return benchmark_get_visible(slug=slug, user=user, counts=counts)
    except Benchmark.DoesNotExist:
        raise NotFound(f"No benchmark {slug!r}.") from None


def metric_or_404(*, benchmark: Benchmark, name: str | None) -> Metric:
    metric = benchmark_metric_get(benchmark=benchmark, name=name)
    if metric is None:
        raise NotFound(
            f"No metric {name!r} in {benchmark.slug!r}." if name else "The benchmark has no metric."
        )
    return metric
