"""The one rule on a metric's region of practical equivalence (ROPE), shared by the
PATCH on a metric, benchmark creation (API and form) and the admin."""

from __future__ import annotations

from leaderboard.services.entries import is_finite_number
from leaderboard.services.errors import Problem

__all__ = ["MAX_ROPE", "metric_rope_problems"]

MAX_ROPE = 1e12
"""Largest ROPE half-width: far beyond any score scale, and small enough that sums of
differences with it stay finite in the engine's arithmetic."""


def metric_rope_problems(rope: object, *, field: str = "rope", name: str = "") -> list[Problem]:
    """Why ``rope`` is not a region of practical equivalence (empty: it is; None: none),
    in the words of the forms that ask for it; ``name`` labels the metric."""
    if rope is None:
        return []
    label = f"metric {name!r}: " if name else ""
    what = f"{label}the region of practical equivalence (rope)"
    if not is_finite_number(rope):
        return [Problem(f"{what} must be a number, or empty for none; got {rope!r}", field)]
    if rope < 0:
        return [
            Problem(
                f"{what} cannot be negative: it is a ± margin in the metric's units; got {rope!r}",
                field,
            )
        ]
    if rope > MAX_ROPE:
        return [
            Problem(
                f"{what} can be at most {MAX_ROPE:g} in the metric's units; got {rope!r}", field
            )
        ]
    return []
