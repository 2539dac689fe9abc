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
from django.db import InterfaceError, OperationalError
from django.urls import reverse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

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

RETRY_AFTER_SECONDS = 10
OUTAGE_DETAIL = (
    f"The database is temporarily unavailable. Retry in {RETRY_AFTER_SECONDS} seconds; a "
    "submission sent again with the same Idempotency-Key is stored once."
)


def _outage_errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
    try:
        import psycopg
    except ImportError:  # SQLite only
        return errors
    return (*errors, psycopg.OperationalError, psycopg.InterfaceError)


OUTAGE_ERRORS = _outage_errors()


def is_database_outage(exc: BaseException | None) -> bool:
    """The database is down, restarting or unreachable (or cancelled the statement):
    a transient failure the client should retry, not a bug."""
    return isinstance(exc, OUTAGE_ERRORS)


def outage_summary(exc: BaseException) -> str:
    """An outage's error in one line (psycopg's messages span several)."""
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def unavailable_logged(response, *, request, reason: str):
    """Log an expected 503 (the database away, a dependency down) as one warning line,
    and tell Django it is logged: its own log of a 5xx carries the whole traceback, and
    an outage of a minute under load wrote hundreds of them."""
    path = getattr(request, "path", "")[:200]
    logger.warning("503 %s %s: %s", getattr(request, "method", "-"), path, reason)
    response._has_been_logged = True  # django.utils.log.log_response skips it then
    return response


def outage_response() -> Response:
    return Response(
        {"detail": OUTAGE_DETAIL},
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


class UnsupportedContentEncoding(exceptions.APIException):
    """A compressed request body: refused before reading, since a few kilobytes of gzip
    can inflate to gigabytes that no size limit on the wire would see."""

    status_code = status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    default_detail = "Compressed request bodies are not accepted."
    default_code = "unsupported_content_encoding"


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


class ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(
        allow_null=True,
        help_text="the line of the file, counted from 1 (the header is line 1); null for "
        "a JSON body",
    )
    field = serializers.CharField(
        allow_null=True,
        help_text="the CSV column, or the field of the JSON body; a position in a list "
        "counts from 1 (scores[1] is the first score, as in a message's 'scores[1]: ')",
    )
    message = serializers.CharField(help_text="what is wrong and how to put it right")


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = ProblemSerializer(many=True, required=False)
    problems_total = serializers.IntegerField(required=False)


class GoneSerializer(serializers.Serializer):
    detail = serializers.CharField(
        help_text="e.g. Version 4 of this benchmark's results was removed (older uncited "
        "versions are pruned); the latest is version 6."
    )
    latest_version = serializers.IntegerField(
        allow_null=True, help_text="the latest ready version, or null when there is none"
    )
    latest = serializers.URLField(
        allow_null=True, help_text="the same request for the latest version, or null"
    )
