"""A database outage (the server stopped, restarting, unreachable): recognised, told in
one line, and answered 503 with ``Retry-After`` by every entry point (the API's error
handler, config.handlers, the health views). Shared plumbing: imports nothing of the
project."""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from rest_framework import status
from rest_framework.response import Response

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
