"""Probes answered before anything else looks at the request."""

from __future__ import annotations

from operations import views

STATUS_PAGE = "/status/"  # answered here only while the database is down
PROBES = {
    "/health/": views.health_alive,
    "/health/ready/": views.health_ready,
    "/metrics": views.metrics,
}


class ProbeMiddleware:
    """``/health/``, ``/health/ready/`` and ``/metrics`` for GET and HEAD, first in the
        chain: a load balancer, a container health check or Prometheus asks by address
        (``Host: 10.0.0.5:8000``, ``web:8000``), over plain http, so these answer before
        the host check (ALLOWED_HOSTS), the https redirect and the session, and count in no
        request metric. ``/metrics`` makes the host check itself (it is no probe: see
        ``operations.views.metrics``). Other methods go on to the URL (405 there).

    The staff ``/status/`` page is answered here too while the database is down (see
    ``operations.views.status_page_first``): later middleware reads a signed-in visitor's
    session from the database and would turn the page into the generic 503 page."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        probe = PROBES.get(request.path_info)
        if probe is not None:
            return probe(request)
        if request.path_info == STATUS_PAGE:
            return views.status_page_first(request) or self.get_response(request)
        return self.get_response(request)
