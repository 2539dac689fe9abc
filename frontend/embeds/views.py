"""What other sites show of a benchmark: an algorithm's SVG badge, and the read-only
leaderboard made to sit in an iframe. The embed is the one page another site may frame;
every other response keeps ``X-Frame-Options: DENY`` and ``frame-ancestors 'none'``."""

from __future__ import annotations

import hashlib

from csp.decorators import csp_replace
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from estimation.selectors import snapshot_board, snapshot_latest
from frontend.embeds.badges import badge_facts, badge_svg
from frontend.explore.selectors import algorithm_get
from frontend.page_cache import page_cached_for_every_reader
from frontend.readers.views import live_board_context
from leaderboard.models import Algorithm, Benchmark
from leaderboard.selectors import benchmark_get_visible, primary_metric

BADGE_MAX_AGE = 300  # seconds a cache may keep a badge before asking again (ETag: 304)


@page_cached_for_every_reader  # the same bytes whoever asks (frontend/page_cache.py)
@require_safe
def algorithm_badge(request: HttpRequest, slug: str, algorithm: str) -> HttpResponse:
    """``/b/<slug>/badge/<algorithm>.svg``: rank, P(win) and results version (primary
    metric, the benchmark's recommended estimator)."""
    try:
        benchmark = benchmark_get_visible(slug=slug, user=request.user)
        row = algorithm_get(benchmark=benchmark, name=algorithm)
    except (Benchmark.DoesNotExist, Algorithm.DoesNotExist):
        raise Http404("No such algorithm in this benchmark") from None
    metric = primary_metric(benchmark=benchmark)
    snapshot = snapshot_latest(benchmark=benchmark, metric=metric) if metric else None
    facts = badge_facts(
        board=snapshot_board(snapshot=snapshot) if snapshot is not None else None,
        algorithm=row.name,
        algorithm_version=row.version,
        benchmark=benchmark.title,
        results_version=snapshot.version if snapshot is not None else None,
    )
    body = badge_svg(facts).encode()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    # Weak comparison (RFC 9110 13.1.2): gzip makes the ETag sent weak ("W/...").
    asked = [
        t.strip().removeprefix("W/") for t in request.headers.get("If-None-Match", "").split(",")
    ]
    if etag in asked:
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="image/svg+xml; charset=utf-8")
    response["ETag"] = etag
    private = benchmark.visibility == Benchmark.Visibility.PRIVATE
    patch_cache_control(
        response, max_age=BADGE_MAX_AGE, **({"private": True} if private else {"public": True})
    )
    return response


@page_cached_for_every_reader
@require_safe
@xframe_options_exempt
@csp_replace({"frame-ancestors": ["*"]})  # type: ignore[arg-type]  # typed for 1-arg views
def leaderboard_embed(request: HttpRequest, slug: str) -> HttpResponse:
    """The leaderboard table alone, read-only, for an iframe on another site (links open
    a new tab; no script, no form)."""
    # Its sort links lead to the embed itself, in the frame (the page's <base> opens
    # every other link in a new tab).
    context = {**live_board_context(request, slug, page_route="embed-leaderboard"), "embed": True}
    return render(request, "frontend/embeds/leaderboard.html", context)
