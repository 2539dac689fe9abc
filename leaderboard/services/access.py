"""Who may change a benchmark: its maintainers, and staff."""

from __future__ import annotations

from leaderboard.models import (
    Benchmark,
)
from leaderboard.services.errors import PermissionDenied

# --- permissions ----------------------------------------------------------------------


def user_is_maintainer(*, user, benchmark: Benchmark) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return benchmark.maintainers.filter(pk=user.pk).exists()


def require_maintainer(*, user, benchmark: Benchmark) -> None:
    if not user_is_maintainer(user=user, benchmark=benchmark):
        raise PermissionDenied(f"only maintainers of {benchmark.slug!r} may do this")
