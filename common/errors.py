"""The base errors every app raises and every entry point maps: a refusal's problems
located by line and field, and the kinds of refusal the API answers with its status
codes (leaderboard.api.errors). Shared plumbing: imports nothing of the project."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as the input allows."""

    message: str
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f'column "{self.field}"' if self.line is not None else self.field)
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict:
        return {"line": self.line, "field": self.field, "message": self.message}


class ValidationFailed(ValueError):
    """The input was refused as a whole; nothing was written."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems[:5]))


class NameNotFound(ValidationFailed):
    """The benchmark has no entry of that name (the API answers 404): nothing was written."""


class NameConflict(ValidationFailed):
    """The name is taken, or the entry is in use (the API answers 409): nothing was written."""


class StateConflict(ValidationFailed):
    """The object's current state does not allow this change, or it is already done
    (the API answers 409 Conflict): nothing was written."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__([Problem(reason, "status")])


class PermissionDenied(Exception):
    """The user may not do this to this object."""


class Gone(Exception):
    """What was asked for existed and was removed (the API answers 410 Gone, pointing to
    ``latest``, the version to read instead, when there is one)."""

    latest: int | None = None

    @property
    def reason(self) -> str:
        return str(self)
