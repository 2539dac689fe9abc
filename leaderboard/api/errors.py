"""One error body for the whole API.

Every refusal is ``{"detail": "..."}``; refused input adds ``"problems"``, a list of
``{"line", "field", "message"}`` (at most ``PODIUM_API_MAX_PROBLEMS`` of them) and
``"problems_total"``, the count before capping. Services' ``ValidationFailed`` and
``PermissionDenied`` become 400 and 403, a rejected results file 400, a body over the
size limit 413, a version of the results that retention removed 410 (with the latest
version and its URL), a state change that is a no-op or impossible 409, and so is a
name that is taken or in use (``NameConflict``); a name the benchmark lacks is 404
(``NameNotFound``). A database outage is 503 with ``Retry-After`` (config.handlers gives
the same envelope to failures outside the API's views: unmatched URLs, crashes).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.urls import reverse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from common.outages import (
    is_database_outage,
    outage_response,
    outage_summary,
    unavailable_logged,
)
from common.rest import PayloadTooLarge
from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.quotas import QuotaExceeded
from leaderboard.services import (
    Gone,
    NameConflict,
    NameNotFound,
    PermissionDenied,
    Problem,
    StateConflict,
    ValidationFailed,
)
from leaderboard.services.errors import UploadTooLarge

logger = logging.getLogger(__name__)


def max_problems() -> int:
    return settings.PODIUM_API_MAX_PROBLEMS


def problems_body(detail: str, problems: list[dict], total: int | None = None) -> dict:
    cap = max_problems()
    return {
        "detail": detail,
        "problems": problems[:cap],
        "problems_total": len(problems) if total is None else total,
    }


def _flatten(detail, path: str = "") -> list[dict]:
    """DRF's nested error detail as located problems; list positions are 1-based."""
    if isinstance(detail, dict):
        found = []
        for key, value in detail.items():
            if key == api_non_field_key():
                found += _flatten(value, path)
            elif isinstance(key, int):  # ListField / DictField child errors
                found += _flatten(value, f"{path}[{key + 1}]")
            else:
                found += _flatten(value, f"{path}.{key}" if path else str(key))
        return found
    if isinstance(detail, list):
        if all(isinstance(item, str) for item in detail):
            return [{"line": None, "field": path or None, "message": str(m)} for m in detail]
        found = []
        for index, item in enumerate(detail, start=1):  # many=True: one entry per item
            found += _flatten(item, f"{path}[{index}]")
        return found
    return [{"line": None, "field": path or None, "message": str(detail)}]


def api_non_field_key() -> str:
    from rest_framework.settings import api_settings

    return api_settings.NON_FIELD_ERRORS_KEY


def _refused(
    problems: list[dict], total: int | None = None, code: int = status.HTTP_400_BAD_REQUEST
) -> Response:
    n = len(problems) if total is None else total
    detail = (
        f"The input was refused; nothing was written. {n} problem{'s' if n != 1 else ''} found."
    )
    return Response(problems_body(detail, problems, total), status=code)


def _same_url_for(request, version: int) -> str | None:
    """The URL asked for, with ``version`` in place of its version (same query)."""
    match = getattr(request, "resolver_match", None)
    if match is None or "version" not in match.kwargs:
        return None
    path = reverse(match.view_name, kwargs={**match.kwargs, "version": version})
    query = request.META.get("QUERY_STRING", "")
    return request.build_absolute_uri(f"{path}?{query}" if query else path)


def _gone(exc: Gone, request) -> Response:
    latest = None if exc.latest is None or request is None else _same_url_for(request, exc.latest)
    body = {"detail": exc.reason, "latest_version": exc.latest, "latest": latest}
    return Response(body, status=status.HTTP_410_GONE)


def exception_handler(exc, context):
    if is_database_outage(exc):
        return unavailable_logged(
            outage_response(),
            request=context.get("request"),
            reason=f"database unavailable: {outage_summary(exc)}",
        )
    response = _service_error_response(exc, context)
    if response is not None:
        return response
    if isinstance(exc, UploadTooLarge):
        exc = PayloadTooLarge(str(exc))
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(
            "The request body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE "
            f"({settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes)."
        )
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, exceptions.ValidationError):
        response.data = problems_body(
            "The input was refused; nothing was written.", _flatten(exc.detail)
        )
    return response


def _service_error_response(exc, context) -> Response | None:
    """The answer to an error the services raise, or None for any other."""
    if isinstance(exc, Gone):
        return _gone(exc, context.get("request"))
    if isinstance(exc, StateConflict):
        return Response({"detail": exc.reason}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, NameNotFound | NameConflict):
        # The request is well formed; what it names is not there, or is taken or in use.
        code = (
            status.HTTP_404_NOT_FOUND if isinstance(exc, NameNotFound) else status.HTTP_409_CONFLICT
        )
        return _refused([p.to_dict() for p in exc.problems], code=code)
    if isinstance(exc, ValidationFailed):
        return _refused([p.to_dict() for p in exc.problems])
    if isinstance(exc, ResultsCsvError):
        # line 0: a problem in another tool's file, named by file and key (field).
        problems = [
            {"line": e.line or None, "field": e.column or None, "message": e.message}
            for e in exc.errors
        ]
        return _refused(problems, total=exc.total)
    if isinstance(exc, DjangoValidationError):
        return _refused(_model_problems(exc))
    if isinstance(exc, QuotaExceeded):
        return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
    if isinstance(exc, PermissionDenied):
        return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
    return None


def _model_problems(exc: DjangoValidationError) -> list[dict]:
    """model.full_clean()'s errors in a service: field errors with no line."""
    if hasattr(exc, "error_dict"):
        return [
            Problem(message, None if name == "__all__" else name).to_dict()
            for name, messages in exc.message_dict.items()
            for message in messages
        ]
    return [Problem(message).to_dict() for message in exc.messages]
