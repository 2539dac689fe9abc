"""A metric's region of practical equivalence (ROPE): one way in for the form, the API
and the tests.

Kept apart from ``leaderboard/services.py`` (being cut into topic modules, issue 23):
one service, its validation, and the recompute it asks for.
"""

from __future__ import annotations

from django.db import transaction

from estimation.requests import recompute_request
from leaderboard.models import Metric
from leaderboard.services import ValidationFailed
from leaderboard.services.access import require_maintainer
from leaderboard.services.rope import metric_rope_problems

__all__ = ["metric_rope_problems", "metric_rope_set"]


@transaction.atomic
def metric_rope_set(*, metric: Metric, user, rope: float | None) -> Metric:
    """Set (or clear, with None) the metric's ROPE (maintainers only); a change
    recomputes the benchmark's results (after commit)."""
    require_maintainer(user=user, benchmark=metric.benchmark)
    if problems := metric_rope_problems(rope):
        raise ValidationFailed(problems)
    rope = None if rope is None else float(rope)
    if metric.rope != rope:
        metric.rope = rope
        metric.save(update_fields=["rope"])
        recompute_request(benchmark_id=metric.benchmark_id)
    return metric
