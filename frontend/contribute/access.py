"""Who may open a contributor's or maintainer's page, answered as a page."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from leaderboard.models import Benchmark
from leaderboard.selectors import benchmark_get_visible
from leaderboard.services import user_is_maintainer


def forbidden(request: HttpRequest, reason: str) -> HttpResponse:
    """A 403 page that says why (Django's default one does not)."""
    return render(request, "frontend/accounts/forbidden.html", {"reason": reason}, status=403)


def benchmark_or_404(*, slug: str, user) -> Benchmark:
    """A benchmark ``user`` may read; a private one of others looks like a missing one."""
    try:
        return benchmark_get_visible(slug=slug, user=user)
    except Benchmark.DoesNotExist:
        raise Http404("No such benchmark") from None


class NotMaintainer(Exception):
    """The user can see the benchmark but does not maintain it (a 403)."""


def maintained_benchmark(*, slug: str, user) -> Benchmark:
    """A benchmark ``user`` maintains; 404 when they cannot see it, NotMaintainer otherwise."""
    benchmark = benchmark_or_404(slug=slug, user=user)
    if not user_is_maintainer(user=user, benchmark=benchmark):
        raise NotMaintainer(f"only maintainers of {benchmark.title} may open this page")
    return benchmark


def maintainer_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page of the benchmark ``slug`` for its maintainers: ``view(request, benchmark,
    ...)``; a reader who cannot see it gets the 404, one who does not maintain it the
    403 page that says so. Inside ``login_required``."""

    @functools.wraps(view)
    def page(request: HttpRequest, *args, slug: str, **kwargs) -> HttpResponse:
        try:
            benchmark = maintained_benchmark(slug=slug, user=request.user)
        except NotMaintainer as exc:
            return forbidden(request, str(exc))
        return view(request, benchmark, *args, **kwargs)

    return page
