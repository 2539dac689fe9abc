"""Probes (alive, ready), metrics and the staff status page."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from leaderboard.api.errors import unavailable_logged
from operations.health import readiness_checks
from operations.metrics import metrics_exposition, metrics_peer_allowed
from operations.status import operations_status, served_snapshot_ages

READY_RETRY_AFTER_SECONDS = 5


def health_alive(request: HttpRequest) -> HttpResponse:
    """200 while the process answers; no database, cache or broker is asked."""
    return _no_store(JsonResponse({"status": "alive"}))


def health_ready(request: HttpRequest) -> HttpResponse:
    """200 when the database answers, every migration is applied and the cache and the
    broker answer; 503 (with Retry-After) naming what failed otherwise."""
    checks = readiness_checks()
    ready = all(check.ok for check in checks)
    response = JsonResponse(
        {
            "status": "ready" if ready else "unavailable",
            "checks": {
                check.name: {"ok": check.ok, "detail": check.detail, "seconds": check.seconds}
                for check in checks
            },
        },
        status=200 if ready else 503,
    )
    if not ready:
        response["Retry-After"] = str(READY_RETRY_AFTER_SECONDS)
        failing = "; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok)
        unavailable_logged(response, request=request, reason=f"not ready ({failing})")
    return _no_store(response)


def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus' text format, for the bearer token (``PODIUM_METRICS_TOKEN``) or a
    scraper in ``PODIUM_METRICS_NETWORKS``; closed when neither is set."""
    # The host check first, as for any page (DisallowedHost: 400): else a page of a
    # rebinding domain, in a browser inside the scrape network, could read the metrics.
    request.get_host()
    token = settings.PODIUM_METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if (token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())) or (
        metrics_peer_allowed(request)
    ):
        return _no_store(
            HttpResponse(
                metrics_exposition(), content_type="text/plain; version=0.0.4; charset=utf-8"
            )
        )
    if token:
        response = HttpResponse(
            "metrics need the bearer token\n", status=401, content_type="text/plain"
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return _no_store(response)
    return _no_store(
        HttpResponse(
            "metrics are closed: set PODIUM_METRICS_TOKEN or PODIUM_METRICS_NETWORKS\n",
            status=403,
            content_type="text/plain",
        )
    )


@never_cache
@staff_member_required
def status_page(request: HttpRequest) -> HttpResponse:
    status = operations_status()
    return render(
        request,
        "operations/status.html",
        {
            "status": status,
            "checks": readiness_checks(),
            "ages": served_snapshot_ages(now=status.now),
        },
    )


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response
