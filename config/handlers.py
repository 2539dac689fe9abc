"""What the site answers when a request fails outside a view's own error handling.

Under ``/api/`` every answer is JSON in the API's one error envelope
(``{"detail": ...}``, leaderboard.api.errors), whatever the status: an unmatched URL
(404), a refused host or malformed request (400), a CSRF refusal (403), a crash (500).
A database outage (the server stopped, restarting, unreachable) is 503 with
``Retry-After`` on the API and a plain "temporarily unavailable" page on the site,
rendered without the request so that it needs no database itself.
"""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import defaults

from common.outages import (
    OUTAGE_DETAIL,
    RETRY_AFTER_SECONDS,
    is_database_outage,
    outage_summary,
    unavailable_logged,
)


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def _json(status: int, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)


def unavailable_page() -> HttpResponse:
    response = HttpResponse(render_to_string("frontend/unavailable.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _bound_exceeded(exception) -> str | None:
    """What a request over one of Django's bounds exceeded, named with its limit."""
    if isinstance(exception, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return f"Too many query or form parameters: at most {limit} per request."
    if isinstance(exception, TooManyFilesSent):
        return f"Too many files: at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} per request."
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return f"The request body is larger than {limit} bytes."
    return None


def bad_request(request, exception, template_name=defaults.ERROR_400_TEMPLATE_NAME):
    if _is_api(request):
        return _json(400, _bound_exceeded(exception) or "Bad request.")
    return defaults.bad_request(request, exception, template_name)


def permission_denied(request, exception, template_name=defaults.ERROR_403_TEMPLATE_NAME):
    if _is_api(request):
        return _json(403, str(exception) or "You do not have permission to do this.")
    return defaults.permission_denied(request, exception, template_name)


def page_not_found(request, exception, template_name=defaults.ERROR_404_TEMPLATE_NAME):
    if _is_api(request):
        return _json(404, f"No API endpoint at {request.path[:200]!r}; see /api/docs/.")
    return defaults.page_not_found(request, exception, template_name)


class ApiUnmatchedUrlMiddleware:
    """An unmatched ``/api/`` URL answers the envelope's 404 with DEBUG on too.

    With DEBUG on Django answers an unmatched URL with its technical 404 page (26 kB of
    HTML) and never calls ``handler404``. Only unmatched URLs (no ``resolver_match``)
    are answered here: a view's own 404 (an unknown benchmark, or the browsable API's
    HTML page for a browser) is left as it is.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 404 and request.resolver_match is None and _is_api(request):
            return page_not_found(request, None)
        return response


def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    # Django calls this while handling the exception, so it is still the current one.
    exc = sys.exc_info()[1]
    if exc is not None and is_database_outage(exc):
        if _is_api(request):
            response: HttpResponse = _json(503, OUTAGE_DETAIL)
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        else:
            response = unavailable_page()
        # Expected: one line, not the traceback Django would log with a 5xx.
        return unavailable_logged(
            response, request=request, reason=f"database unavailable: {outage_summary(exc)}"
        )
    if _is_api(request):
        return _json(500, "Server error; it has been logged.")
    return defaults.server_error(request, template_name)
