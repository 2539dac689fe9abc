"""The one rule on a metric's region of practical equivalence (ROPE), shared by the
PATCH on a metric, benchmark creation (API and form) and the admin."""

from __future__ import annotations

import math

from leaderboard.services.errors import Problem

__all__ = ["MAX_ROPE", "metric_rope_problems"]

MAX_ROPE = 1e12
"""Largest ROPE half-width: far beyond any score scale, and small enough that sums of
differences with it stay finite in the engine's arithmetic."""


def metric_rope_problems(rope: object, *, field: str = "rope") -> list[Problem]:
    """Why ``rope`` is not a region of practical equivalence (empty: it is; None: none)."""
    if rope is None:
        return []
    if isinstance(rope, bool) or not isinstance(rope, (int, float)) or not math.isfinite(rope):
        return [Problem(f"rope must be a finite number or empty, got {rope!r}", field)]
    if rope < 0:
        return [Problem(f"rope must be >= 0 (metric units), got {rope!r}", field)]
    if rope > MAX_ROPE:
        return [Problem(f"rope must be at most {MAX_ROPE:g} (metric units), got {rope!r}", field)]
    return []
