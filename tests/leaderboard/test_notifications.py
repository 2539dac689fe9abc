"""A submitter hears about a maintainer's decision: by mail and on "my submissions"."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail

from leaderboard.models import Algorithm, Submission
from leaderboard.services import submission_accept, submission_create, submission_reject
from tests.factories import entry, make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    submitter = make_user("alice")
    submitter.email = "alice@example.org"
    submitter.save()
    EmailAddress.objects.create(
        user=submitter, email=submitter.email, verified=True, primary=True
    )  # mail goes only there
    return benchmark, maintainer, submitter


def test_accept_and_reject_mail_the_submitter_after_commit(
    setup, django_capture_on_commit_callbacks
):
    benchmark, maintainer, submitter = setup
    first = make_submission(benchmark, "alg-a", {"d1": 0.5}, submitter=submitter)
    second = make_submission(benchmark, "alg-b", {"d1": 0.6}, submitter=submitter)

    with django_capture_on_commit_callbacks(execute=False) as pending:
        submission_accept(submission=first, user=maintainer, note="Welcome aboard.")
    assert mail.outbox == []  # nothing before the decision commits
    for callback in pending:
        callback()
    with django_capture_on_commit_callbacks(execute=True):
        submission_reject(submission=second, user=maintainer, note="Fold 3 is\nmissing.")

    accepted, rejected = mail.outbox
    assert accepted.to == ["alice@example.org"]
    assert accepted.subject == "Podium: alg-a was accepted on Benchmark toy"
    assert "Welcome aboard." in accepted.body and "/b/toy/" in accepted.body
    assert rejected.subject == "Podium: alg-b was rejected on Benchmark toy"
    assert "Fold 3 is\nmissing." in rejected.body


def test_no_mail_without_an_address_or_for_ones_own_decision(
    setup, django_capture_on_commit_callbacks
):
    benchmark, maintainer, _ = setup
    no_email = make_submission(benchmark, "alg-a", {"d1": 0.5}, submitter=make_user("bob"))
    with django_capture_on_commit_callbacks(execute=True):
        submission_accept(submission=no_email, user=maintainer)
        # A maintainer's own submission is accepted on arrival: nobody to tell.
        submission_create(
            benchmark=benchmark,
            submitter=maintainer,
            entry=entry("alg-m", {"d1": 0.4}),
            source=Submission.Source.API,
        )
    assert mail.outbox == []


def test_a_name_with_line_breaks_cannot_inject_mail_headers(
    setup, django_capture_on_commit_callbacks
):
    """The services refuse control characters in names (tests/security); a name stored
    before that rule, or written around the services, still cannot add a mail header."""
    benchmark, maintainer, submitter = setup
    sneaky = make_submission(benchmark, "alg", {"d1": 0.5}, submitter=submitter)
    Algorithm.objects.filter(pk=sneaky.algorithm_id).update(name="alg\nBcc: victim@example.org")
    sneaky.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        submission_reject(submission=sneaky, user=maintainer)
    (message,) = mail.outbox
    headers = message.message()
    assert headers["Subject"] == "Podium: alg Bcc: victim@example.org was rejected on Benchmark toy"
    assert headers["Bcc"] is None and message.recipients() == ["alice@example.org"]


def test_my_submissions_shows_new_decisions_once(setup, client):
    benchmark, maintainer, submitter = setup
    submission = make_submission(benchmark, "alg-a", {"d1": 0.5}, submitter=submitter)
    submission_reject(submission=submission, user=maintainer, note="Please add <b>folds</b>.")
    client.force_login(submitter)

    page = client.get("/account/submissions/").content.decode()
    assert 'data-testid="decision-notice"' in page
    assert "alg-a" in page and "rejected" in page
    assert "Please add &lt;b&gt;folds&lt;/b&gt;." in page  # escaped, never markup

    again = client.get("/account/submissions/").content.decode()
    assert 'data-testid="decision-notice"' not in again
