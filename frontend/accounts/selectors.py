"""Reads for the account pages."""

from __future__ import annotations

from datetime import datetime

from django.db.models import F, QuerySet

from leaderboard.models import Submission


def submission_list_of_user(*, user) -> QuerySet[Submission]:
    """Everything ``user`` submitted, across benchmarks, newest first."""
    return (
        Submission.objects.filter(submitter=user)
        .select_related("benchmark", "algorithm", "decided_by")
        .order_by("-created_at", "-id")
    )


def submission_of_user(*, user, submission_id: int) -> Submission:
    """Raises ``Submission.DoesNotExist`` unless ``user`` submitted it."""
    return submission_list_of_user(user=user).get(pk=submission_id)


def submission_decisions_since(*, user, since: datetime, limit: int = 20) -> QuerySet[Submission]:
    """Maintainers' decisions on ``user``'s submissions after ``since``, newest first."""
    return (
        Submission.objects.filter(
            submitter=user,
            status__in=[Submission.Status.ACCEPTED, Submission.Status.REJECTED],
            decided_at__gt=since,
            decided_by__isnull=False,
        )
        .exclude(decided_by=F("submitter"))
        .select_related("benchmark", "algorithm", "decided_by")
        .order_by("-decided_at", "-id")[:limit]
    )
