"""Telling a submitter that a maintainer decided on their submission.

Mail goes only to an address its owner verified (allauth's e-mail confirmation),
through Django's email backend (the console in the embedded mode, SMTP when
configured), after the decision commits; a mail server that is down is logged and never
undoes a decision. The "my submissions" page shows the same news as a notice.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from allauth.account.models import EmailAddress
from celery import current_app as celery_app
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

from common.threads import db_daemon_thread
from leaderboard.models import Submission

SEND_DECISION_MAILS_TASK = "leaderboard.send_decision_mails"  # leaderboard.tasks

logger = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _one_line(text: str, limit: int = 80) -> str:
    """A name fit for a mail header: no line breaks or control characters, bounded."""
    flat = _CONTROL.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def decision_message(submission: Submission) -> tuple[str, str]:
    """The subject and plain-text body of the mail about ``submission``'s decision."""
    algorithm = submission.algorithm.name
    benchmark = submission.benchmark
    verb = "accepted" if submission.status == Submission.Status.ACCEPTED else "rejected"
    subject = f"Podium: {_one_line(algorithm)} was {verb} on {_one_line(benchmark.title)}"
    lines = [
        f"Your submission of {algorithm} to {benchmark.title} was {verb}.",
        "",
    ]
    if submission.decision_note:
        lines += ["The maintainer's note:", "", submission.decision_note, ""]
    if verb == "accepted":
        lines.append(
            "Its scores now count; the leaderboard updates once the recompute finishes: "
            f"/b/{benchmark.slug}/"
        )
    else:
        lines.append("Its scores do not count. Your submissions: /account/submissions/")
    return subject, "\n".join(lines) + "\n"


def email_is_verified(user) -> bool:
    """Whether ``user``'s current address is one they proved to read (the mailed link, or
    a sign-in provider that verified it)."""
    if user is None or not user.email:
        return False
    return EmailAddress.objects.filter(
        user_id=user.pk, email__iexact=user.email, verified=True
    ).exists()


def submission_decision_notify(*, submission: Submission) -> None:
    """Mail the submitter about a decision, once the caller's transaction commits."""
    submitter = submission.submitter
    if submitter is None or not submitter.email or submission.decided_by_id == submitter.pk:
        return
    if not email_is_verified(submitter):
        return  # never to an address nobody proved (it may be a stranger's)
    subject, body = decision_message(submission)
    recipient = submitter.email

    def send() -> None:
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [recipient])
        except Exception:  # SMTP raises many types; a decision never depends on mail
            logger.warning("could not mail %s about submission %s", recipient, submission.pk)

    transaction.on_commit(send)


def decision_mails_queue(*, submission_ids: Sequence[int]) -> None:
    """Mail the submitters of many decisions (bulk moderation) from the background, once
    the caller's transaction commits: one request never sends hundreds of mails.

    A Celery task with a broker; a thread of this process in the embedded mode.
    """
    ids = sorted(set(submission_ids))
    if not ids:
        return

    def enqueue() -> None:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            db_daemon_thread(decision_mails_send, submission_ids=ids, name="podium-mail").start()
            return
        try:
            # By name: leaderboard.tasks imports this module.
            celery_app.tasks[SEND_DECISION_MAILS_TASK].delay(ids)
        except Exception:  # the broker is down: the decisions stand, the mail is lost
            logger.warning("could not queue the mail about %s decisions", len(ids))

    transaction.on_commit(enqueue)


def decision_mails_send(*, submission_ids: Sequence[int]) -> int:
    """Send the decision mails of these submissions now; returns how many went out."""
    sent = 0
    decided = Submission.objects.filter(pk__in=list(submission_ids)).select_related(
        "algorithm", "benchmark", "submitter"
    )
    for submission in decided.order_by("pk"):
        submitter = submission.submitter
        if submitter is None or not submitter.email or submission.decided_by_id == submitter.pk:
            continue
        if not email_is_verified(submitter):
            continue
        subject, body = decision_message(submission)
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [submitter.email])
            sent += 1
        except Exception:  # SMTP raises many types; a decision never depends on mail
            logger.warning("could not mail %s about submission %s", submitter.email, submission.pk)
    return sent
