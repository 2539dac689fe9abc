"""Deciding submissions: accept, reject (one or many) and withdraw, by the transitions
each status allows."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from estimation.requests import recompute_request
from leaderboard.models import (
    Benchmark,
    Submission,
)
from leaderboard.notifications import submission_decision_notify
from leaderboard.services.access import require_maintainer
from leaderboard.services.errors import Problem, StateConflict, ValidationFailed
from leaderboard.services.submissions import TRANSITIONS, algorithm_links_refresh
from leaderboard.services.text import text_problem

# From each status, the changes that make sense; anything else is a StateConflict with
# the reason below (the one table behind accept, reject and withdraw; bulk decisions
# take only pending submissions and check that themselves).
_ACTION_STATUS = {
    "accept": Submission.Status.ACCEPTED,
    "reject": Submission.Status.REJECTED,
    "withdraw": Submission.Status.WITHDRAWN,
}


def _transition_check(*, submission: Submission, action: str) -> None:
    """Raise StateConflict unless ``action`` is possible from the submission's status."""
    current = submission.status
    if action in TRANSITIONS[current]:
        return
    label = f"submission {submission.pk}"
    if _ACTION_STATUS[action] == current:
        raise StateConflict(f"{label} is already {current}; nothing changed")
    if current == Submission.Status.WITHDRAWN:
        reason = "it was taken back; its scores can be submitted again"
    else:
        reason = "only a pending submission can be accepted; its scores can be submitted again"
    raise StateConflict(f"{label} is {current} and cannot be {_ACTION_STATUS[action]}: {reason}")


def _decide(*, submission: Submission, user, status: str, note: str) -> Submission:
    if problem := text_problem(note, prose=True):
        raise ValidationFailed([Problem(f"note {problem}", "note")])
    submission.status = status
    submission.decision_note = note
    submission.decided_by = user
    submission.decided_at = timezone.now()
    submission.save(update_fields=["status", "decision_note", "decided_by", "decided_at"])
    submission_decision_notify(submission=submission)
    return submission


@transaction.atomic
def submission_accept(*, submission: Submission, user=None, note: str = "") -> Submission:
    """Accept a pending submission (maintainers; ``user=None`` is the system itself)."""
    if user is not None:
        require_maintainer(user=user, benchmark=submission.benchmark)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _transition_check(submission=submission, action="accept")
    _decide(submission=submission, user=user, status=Submission.Status.ACCEPTED, note=note)
    algorithm_links_refresh(algorithm_ids=[submission.algorithm_id])
    recompute_request(benchmark_id=submission.benchmark_id)
    return submission


MAX_BULK_DECISIONS = 500


@transaction.atomic
def submissions_decide(
    *, benchmark: Benchmark, user, ids: Sequence[int], accept: bool, note: str = ""
) -> list[Submission]:
    """Accept or reject several pending submissions of ``benchmark`` at once (maintainers).

    All or nothing; one recompute for the lot. A submission that is no longer pending
    (someone decided it meanwhile, or it was withdrawn) is refused by name.
    """
    require_maintainer(user=user, benchmark=benchmark)
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        raise ValidationFailed([Problem("choose at least one submission", "submissions")])
    if len(wanted) > MAX_BULK_DECISIONS:
        raise ValidationFailed(
            [Problem(f"at most {MAX_BULK_DECISIONS} submissions at once", "submissions")]
        )
    found = {
        s.pk: s
        for s in Submission.objects.select_for_update()
        .filter(benchmark=benchmark, pk__in=wanted)
        .select_related("algorithm")
    }
    problems = [
        Problem(f"submission {pk} is not one of this benchmark's", "submissions")
        for pk in wanted
        if pk not in found
    ]
    problems += [
        Problem(
            f"{found[pk].algorithm.name} (#{pk}) is {found[pk].status}, not pending",
            "submissions",
        )
        for pk in wanted
        if pk in found and found[pk].status != Submission.Status.PENDING
    ]
    if problems:
        raise ValidationFailed(problems)
    status = Submission.Status.ACCEPTED if accept else Submission.Status.REJECTED
    decided = [_decide(submission=found[pk], user=user, status=status, note=note) for pk in wanted]
    if accept:
        recompute_request(benchmark_id=benchmark.pk)
    return decided


@transaction.atomic
def submission_reject(*, submission: Submission, user, note: str = "") -> Submission:
    require_maintainer(user=user, benchmark=submission.benchmark)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _transition_check(submission=submission, action="reject")
    was_accepted = submission.status == Submission.Status.ACCEPTED
    _decide(submission=submission, user=user, status=Submission.Status.REJECTED, note=note)
    if was_accepted:
        algorithm_links_refresh(algorithm_ids=[submission.algorithm_id])
        recompute_request(benchmark_id=submission.benchmark_id)
    return submission


@transaction.atomic
def submission_withdraw(*, submission: Submission, user) -> Submission:
    """The submitter (or a maintainer) takes a submission back; its scores stop counting."""
    is_owner = user is not None and user.is_authenticated and submission.submitter_id == user.pk
    if not is_owner:
        require_maintainer(user=user, benchmark=submission.benchmark)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _transition_check(submission=submission, action="withdraw")
    was_accepted = submission.status == Submission.Status.ACCEPTED
    submission.status = Submission.Status.WITHDRAWN
    submission.save(update_fields=["status"])
    if was_accepted:
        algorithm_links_refresh(algorithm_ids=[submission.algorithm_id])
        recompute_request(benchmark_id=submission.benchmark_id)
    return submission
