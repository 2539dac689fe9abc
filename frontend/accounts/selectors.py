"""Reads for the account pages."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from leaderboard.models import Submission


def submission_list_of_user(*, user) -> QuerySet[Submission]:
    """Everything ``user`` submitted, across benchmarks, newest first."""
    return (
        Submission.objects.filter(submitter=user)
        .select_related("benchmark", "algorithm", "decided_by")
        .annotate(n_scores=Count("scores"), n_datasets=Count("scores__dataset", distinct=True))
        .order_by("-created_at", "-id")
    )


def submission_of_user(*, user, submission_id: int) -> Submission:
    """Raises ``Submission.DoesNotExist`` unless ``user`` submitted it."""
    return submission_list_of_user(user=user).get(pk=submission_id)
