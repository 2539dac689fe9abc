"""Suspected and now ruled out: unsafe defaults for an operator.

``manage.py`` and ``config/celery.py`` fall back to the local settings (DEBUG on, a public
secret key), so an operator who forgot DJANGO_SETTINGS_MODULE ran them against
production data, where ``load_demo`` would make ``demo-maintainer`` / ``podium-demo``;
bulk moderation sent up to 500 mails within one request.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command

from leaderboard.models import Submission
from leaderboard.notifications import decision_mails_send
from leaderboard.services import submissions_decide
from tests.factories import make_benchmark, make_submission, make_user
from tests.test_configuration import ROOT, run_manage

POSTGRES = "postgres://postgres@127.0.0.1:5432/podium"


def test_manage_py_refuses_local_settings_against_a_real_database():
    result = run_manage("check", DATABASE_URL=POSTGRES)
    assert result.returncode != 0
    assert "refuses the non-SQLite database" in result.stderr
    assert "DJANGO_SETTINGS_MODULE=config.settings.production" in result.stderr
    assert "Traceback" not in result.stderr
    asked = run_manage("check", DATABASE_URL=POSTGRES, DJANGO_DEBUG="1")
    assert asked.returncode == 0, asked.stderr  # developing against it, on purpose
    assert run_manage("check").returncode == 0  # the embedded default: SQLite


def test_the_celery_app_refuses_local_settings_against_a_real_database():
    code = "import config.celery; from django.conf import settings; settings.DEBUG"
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": POSTGRES}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert result.returncode != 0
    assert "refuses the non-SQLite database" in result.stderr


@pytest.mark.django_db
def test_load_demo_makes_no_demo_account_without_debug(settings):
    settings.DEBUG = False
    settings.PODIUM_DEMO_MAINTAINER = {"username": "demo-maintainer", "password": "podium-demo"}
    call_command("load_demo", verbosity=0)
    assert not get_user_model().objects.filter(username="demo-maintainer").exists()


@pytest.mark.django_db
def test_bulk_moderation_mails_from_a_task_after_commit(
    settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    queued: list[list[int]] = []
    monkeypatch.setattr("leaderboard.tasks.send_decision_mails.delay", queued.append)
    benchmark = make_benchmark("mod")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    submitter = make_user("alice")
    submitter.email = "alice@example.org"
    submitter.save()
    EmailAddress.objects.create(user=submitter, email=submitter.email, verified=True, primary=True)
    pending = [
        make_submission(benchmark, f"alg-{i}", {"d1": 0.5}, submitter=submitter) for i in range(3)
    ]
    ids = [s.pk for s in pending]
    with django_capture_on_commit_callbacks(execute=True):
        submissions_decide(benchmark=benchmark, user=maintainer, ids=ids, accept=False)
    assert mail.outbox == []  # the request sent none ...
    assert queued == [sorted(ids)]  # ... it queued one task with every id
    assert decision_mails_send(submission_ids=queued[0]) == 3  # which the worker sends
    assert sorted(m.subject for m in mail.outbox) == [
        f"Podium: alg-{i} was rejected on Benchmark mod" for i in range(3)
    ]
    assert Submission.objects.filter(status=Submission.Status.REJECTED).count() == 3
