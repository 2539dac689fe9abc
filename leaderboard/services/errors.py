"""What a refusal is: the problems of an input, located by line and field, and the kinds
of refusal the API maps to its status codes (leaderboard.api.errors)."""

from __future__ import annotations

from collections.abc import Sequence

from common.errors import (
    Gone,
    NameConflict,
    NameNotFound,
    PermissionDenied,
    Problem,
    StateConflict,
    ValidationFailed,
)
from leaderboard.ingest.results_csv.records import told_once

# The base errors live with the shared plumbing (common/errors.py); named here too, as
# every caller of the services imports them.
__all__ = [
    "Gone",
    "NameConflict",
    "NameNotFound",
    "PermissionDenied",
    "Problem",
    "StateConflict",
    "UploadTooLarge",
    "ValidationFailed",
    "problems_text",
]


def problems_text(problems: Sequence[Problem]) -> str:
    """The problems as a terminal shows them, indented, one repeated on many rows told
    once with its lines (leaderboard.ingest.results_csv.told_once)."""
    told = told_once((str(p), p.line, p.field, p.message) for p in problems)
    return "\n".join(f"  {text}" for text in told)


class UploadTooLarge(ValueError):
    """A results file larger than PODIUM_MAX_UPLOAD_BYTES (the API answers 413)."""
