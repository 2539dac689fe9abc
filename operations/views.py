"""Probes (alive, ready), metrics and the staff status page."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache

from common.outages import unavailable_logged
from operations.health import database_check, readiness_checks
from operations.metrics import metrics_exposition, metrics_peer_allowed
from operations.status import (
    operations_status,
    operations_status_without_database,
    served_snapshot_ages,
)

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


STAFF_COOKIE = "podium_status_staff"
STAFF_COOKIE_SALT = "operations.status"
# Short: while the database is down staff status cannot be checked, so a revoked
# operator keeps the cookie's view (heartbeats, queues; nothing of the benchmarks) for at
# most this long; any visit while the database answers checks it again.
STAFF_COOKIE_SECONDS = 3600


@never_cache
def status_page(request: HttpRequest) -> HttpResponse:
    """The staff status page; while the database is down, what Redis and this process
    know (503, a real page): staff are recognised then by a signed cookie the page set
    on their last visit (sessions and accounts live in the database)."""
    checks = readiness_checks()
    database = next(check for check in checks if check.name == "database")
    if not database.ok:
        return _status_without_database(request, checks, database.detail)
    response = _status_for_staff(request, checks)
    if STAFF_COOKIE in request.COOKIES and not request.user.is_staff:
        response.delete_cookie(STAFF_COOKIE, path=request.path, samesite="Strict")
    return response


def status_page_first(request: HttpRequest) -> HttpResponse | None:
    """Asked by ProbeMiddleware, before the session, authentication and allauth's
    middleware (which read the session, from the database, for a signed-in visitor):
    the page without the database when it does not answer, else None (the page as
    usual, through every middleware)."""
    request.get_host()  # the host check first, as for any page
    if database_check().ok:  # one SELECT 1; the page itself runs every check
        return None
    checks = readiness_checks()
    database = next(check for check in checks if check.name == "database")
    return _status_without_database(request, checks, database.detail)


@staff_member_required
def _status_for_staff(request: HttpRequest, checks) -> HttpResponse:
    status = operations_status()
    response = render(
        request,
        "operations/status.html",
        {"status": status, "checks": checks, "ages": served_snapshot_ages(now=status.now)},
    )
    response.set_signed_cookie(
        STAFF_COOKIE,
        str(request.user.pk),
        salt=STAFF_COOKIE_SALT,
        max_age=STAFF_COOKIE_SECONDS,
        path=request.path,
        secure=request.is_secure(),
        httponly=True,
        samesite="Strict",
    )
    return response


def _status_without_database(request: HttpRequest, checks, detail: str) -> HttpResponse:
    staff = request.get_signed_cookie(
        STAFF_COOKIE, default=None, salt=STAFF_COOKIE_SALT, max_age=STAFF_COOKIE_SECONDS
    )
    context = {"checks": checks, "staff": staff is not None}
    if staff is not None:
        context["status"] = operations_status_without_database(database=detail)
    # Rendered without the request: its context processors would ask the database.
    response = HttpResponse(
        render_to_string("operations/status_without_database.html", context), status=503
    )
    response["Retry-After"] = str(READY_RETRY_AFTER_SECONDS)
    return unavailable_logged(response, request=request, reason=f"database unavailable: {detail}")


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response
