"""Who may write what: every role x every write endpoint and page, API and web.

Each cell starts from the same world (built once for the module, in a transaction rolled
back at its end; each test and each role's request in a savepoint of it, rolled back
too) and expects one status. Requests carry valid
input, so the status is the authorisation answer, not a validation error (web forms
posted empty answer 200 with their errors to whoever may use them, 403 to others).

Roles: anonymous; user (logged in, no relation); submitter (owns the pending
submission, and is in the team that owns the algorithm alpha); other_maintainer (maintains another benchmark); maintainer; staff
(is_staff, no model permissions); superuser (maintains every benchmark, as in the
services).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.models import Benchmark, Submission
from leaderboard.ownership import algorithm_owner_add
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    api_token_create,
    benchmark_datasets_add,
    submission_create,
    submission_reject,
)
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "user", "submitter", "other_maintainer", "maintainer", "staff", "superuser")
CSV = b"dataset,algorithm,score\nd1,csv-alg,0.5\nd2,csv-alg,0.6\n"


@dataclass
class World:
    users: dict
    benchmark: Benchmark
    pending: Submission
    token_id: int


def _world() -> World:
    User = get_user_model()
    users = {
        "user": User.objects.create_user("user", password="pw"),
        "submitter": User.objects.create_user("submitter", password="pw"),
        "other_maintainer": User.objects.create_user("other_maintainer", password="pw"),
        "maintainer": User.objects.create_user("maintainer", password="pw"),
        "staff": User.objects.create_user("staff", password="pw", is_staff=True),
        "superuser": User.objects.create_superuser("superuser", password="pw"),
    }
    benchmark = make_benchmark("toy")
    benchmark.maintainers.add(users["maintainer"])
    make_benchmark("other").maintainers.add(users["other_maintainer"])

    def submit(user, algorithm: str, datasets: list[str]) -> Submission:
        entry = SubmissionInput(
            algorithm=algorithm, scores=[ScoreInput(dataset=d, value=0.5) for d in datasets]
        )
        return submission_create(
            benchmark=benchmark, submitter=user, entry=entry, new_datasets_confirmed=True
        )

    accepted = submit(users["maintainer"], "alpha", ["d1", "d2"])
    assert accepted.status == Submission.Status.ACCEPTED  # a maintainer's own, on arrival
    # alpha belongs to a team: its first accepted submitter, who added the submitter.
    algorithm_owner_add(
        benchmark=benchmark, user=users["maintainer"], algorithm="alpha", username="submitter"
    )
    pending = submit(users["submitter"], "beta", ["d1", "pending-ds"])
    rejected = submit(users["submitter"], "gamma", ["d1"])
    submission_reject(submission=rejected, user=users["maintainer"])
    benchmark_datasets_add(benchmark=benchmark, user=users["maintainer"], names=["declared-ds"])
    token, _ = api_token_create(user=users["submitter"], name="script")
    return World(users=users, benchmark=benchmark, pending=pending, token_id=token.pk)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The world of every cell, built once: each test runs in its own savepoint inside
    this transaction, so what a request changes is gone before the next."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield _world()
        transaction.set_rollback(True)


def _everyone(anonymous: int, others: int) -> dict:
    return {role: (anonymous if role == "anonymous" else others) for role in ROLES}


def _only(allowed: dict, anonymous: int, others: int) -> dict:
    expected = _everyone(anonymous, others)
    expected.update(allowed)
    return expected


MAINTAINERS_API = _only({"maintainer": 200, "superuser": 200}, 401, 403)
# A pending submission is visible to its submitter and the maintainers only (404 else).
PENDING_DECISION_API = _only({"maintainer": 200, "superuser": 200, "submitter": 403}, 401, 404)
WITHDRAW_API = _only({"maintainer": 200, "superuser": 200, "submitter": 200}, 401, 404)
MAINTAINERS_WEB_POST = _only({"maintainer": 302, "superuser": 302}, 302, 403)
MAINTAINERS_WEB_PAGE = _only({"maintainer": 200, "superuser": 200}, 302, 403)
# alpha's owners: the maintainer (its first accepted submitter) and the submitter.
ALPHA_OWNERS_SUBMIT = _only({"maintainer": 201, "submitter": 201}, 401, 403)
ALPHA_OWNER_ADD = _only({"maintainer": 200, "submitter": 200, "superuser": 200}, 401, 403)

# (name, kind, method, path, data, expected)
CELLS = [
    # --- API ---------------------------------------------------------------------------
    (
        "api benchmark create",
        "api",
        "post",
        "/api/benchmarks/create/",
        lambda w, role: {
            "slug": f"new-{role.replace('_', '-')}",
            "title": "New",
            "metrics": [{"name": "acc", "direction": "higher"}],
        },
        _everyone(401, 201),
    ),
    (
        "api benchmark update",
        "api",
        "post",
        "/api/benchmarks/toy/update/",
        lambda w, role: {"title": "Renamed"},
        MAINTAINERS_API,
    ),
    (
        "api submission create",
        "api",
        "post",
        "/api/benchmarks/toy/submissions/create/",
        lambda w, role: {"algorithm": "json-alg", "scores": [{"dataset": "d1", "value": 0.4}]},
        _everyone(401, 201),
    ),
    (
        "api submission create under an owned algorithm",
        "api",
        "post",
        "/api/benchmarks/toy/submissions/create/",
        lambda w, role: {"algorithm": "alpha", "scores": [{"dataset": "d1", "value": 0.4}]},
        ALPHA_OWNERS_SUBMIT,
    ),
    (
        "api upload under an owned algorithm",
        "api-multipart",
        "post",
        "/api/benchmarks/toy/submissions/upload/",
        lambda w, role: {
            "file": SimpleUploadedFile(
                "r.csv", b"dataset,algorithm,score\nd1,alpha,0.5\n", content_type="text/csv"
            )
        },
        ALPHA_OWNERS_SUBMIT,
    ),
    (
        "api algorithm owner add",
        "api",
        "post",
        "/api/benchmarks/toy/algorithms/owners/add/",
        lambda w, role: {"algorithm": "alpha", "username": "user"},
        ALPHA_OWNER_ADD,
    ),
    (
        "api algorithm owners transfer",
        "api",
        "post",
        "/api/benchmarks/toy/algorithms/owners/transfer/",
        lambda w, role: {"algorithm": "alpha", "usernames": ["user"]},
        MAINTAINERS_API,
    ),
    (
        "api submission upload",
        "api-multipart",
        "post",
        "/api/benchmarks/toy/submissions/upload/",
        lambda w, role: {"file": SimpleUploadedFile("r.csv", CSV, content_type="text/csv")},
        _everyone(401, 201),
    ),
    (
        "api submission withdraw",
        "api",
        "post",
        "/api/benchmarks/toy/submissions/{pending}/withdraw/",
        lambda w, role: {},
        WITHDRAW_API,
    ),
    (
        "api submission accept",
        "api",
        "post",
        "/api/benchmarks/toy/submissions/{pending}/accept/",
        lambda w, role: {},
        PENDING_DECISION_API,
    ),
    (
        "api submission reject",
        "api",
        "post",
        "/api/benchmarks/toy/submissions/{pending}/reject/",
        lambda w, role: {},
        PENDING_DECISION_API,
    ),
    (
        "api dataset rename",
        "api",
        "post",
        "/api/benchmarks/toy/datasets/rename/",
        lambda w, role: {"name": "pending-ds", "new_name": "renamed-ds"},
        MAINTAINERS_API,
    ),
    (
        "api dataset delete",
        "api",
        "post",
        "/api/benchmarks/toy/datasets/delete/",
        lambda w, role: {"name": "declared-ds"},
        MAINTAINERS_API,
    ),
    (
        "api algorithm rename",
        "api",
        "post",
        "/api/benchmarks/toy/algorithms/rename/",
        lambda w, role: {"name": "beta", "new_name": "beta-2"},
        MAINTAINERS_API,
    ),
    (
        "api algorithm delete",
        "api",
        "post",
        "/api/benchmarks/toy/algorithms/delete/",
        lambda w, role: {"name": "gamma"},
        MAINTAINERS_API,
    ),
    (
        "api token create",
        "api",
        "post",
        "/api/tokens/create/",
        lambda w, role: {"name": "new"},
        _everyone(401, 201),
    ),
    (
        "api token revoke",
        "api",
        "post",
        "/api/tokens/{token}/revoke/",
        lambda w, role: {},
        _only({"submitter": 204}, 401, 404),
    ),
    # --- web pages ---------------------------------------------------------------------
    (
        "web grid submit",
        "web",
        "post",
        "/b/toy/submit/",
        lambda w, role: {
            "idempotency_key": f"key-{role}",
            "algorithm": "grid-alg",
            "metric": "score",
            "folds": "1",
            "grid-rows": "1",
            "grid-folds": "1",
            "grid-0-dataset": "d1",
            "grid-0-0": "0.7",
            "action": "submit",
            # one dataset of the board's: the empty cells are confirmed
            "incomplete_confirmed": "1",
        },
        _everyone(302, 302),
    ),
    (
        "web csv upload",
        "web",
        "post",
        "/b/toy/submit/csv/",
        lambda w, role: {"file": SimpleUploadedFile("r.csv", CSV, content_type="text/csv")},
        _everyone(302, 200),
    ),
    (
        # Reads only the signed-in session's own pending file: a token of no file of
        # this session is sent back to the upload, storing nothing.
        "web csv column mapping",
        "web",
        "post",
        "/b/toy/submit/csv/map/",
        lambda w, role: {"token": "0" * 32, "dataset": "d", "algorithm": "a", "score": "s"},
        _everyone(302, 302),
    ),
    (
        "web grid submit under an owned algorithm",
        "web",
        "post",
        "/b/toy/submit/",
        lambda w, role: {
            "idempotency_key": f"key-{role}",
            "algorithm": "alpha",
            "metric": "score",
            "folds": "1",
            "grid-rows": "1",
            "grid-folds": "1",
            "grid-0-dataset": "d1",
            "grid-0-0": "0.7",
            "action": "submit",
            # one dataset of the board's: the empty cells are confirmed
            "incomplete_confirmed": "1",
        },
        _only({"maintainer": 302, "submitter": 302}, 302, 403),
    ),
    (
        "web algorithm owner add",
        "web",
        "post",
        "/b/toy/algorithm-owners/",
        lambda w, role: {"algorithm": "alpha", "username": "user"},
        _only({"maintainer": 302, "submitter": 302, "superuser": 302}, 302, 403),
    ),
    (
        "web algorithm owners transfer",
        "web",
        "post",
        "/b/toy/algorithm-owners/",
        lambda w, role: {"algorithm": "alpha", "action": "transfer", "usernames": "user"},
        MAINTAINERS_WEB_POST,
    ),
    ("web new benchmark page", "web", "get", "/benchmarks/new/", None, _everyone(302, 200)),
    (
        "web benchmark settings",
        "web",
        "post",
        "/b/toy/maintain/",
        lambda w, role: {},
        _only({"maintainer": 200, "superuser": 200}, 302, 403),
    ),
    ("web settings page", "web", "get", "/b/toy/maintain/", None, MAINTAINERS_WEB_PAGE),
    (
        "web catalogue add datasets",
        "web",
        "post",
        "/b/toy/maintain/catalogue/",
        lambda w, role: {"action": "datasets", "names": "web-ds"},
        MAINTAINERS_WEB_POST,
    ),
    (
        "web moderation decide",
        "web",
        "post",
        "/b/toy/maintain/moderation/{pending}/",
        lambda w, role: {"decision": "accept"},
        MAINTAINERS_WEB_POST,
    ),
    (
        "web moderation page",
        "web",
        "get",
        "/b/toy/maintain/moderation/",
        None,
        MAINTAINERS_WEB_PAGE,
    ),
    ("web snapshots page", "web", "get", "/b/toy/maintain/snapshots/", None, MAINTAINERS_WEB_PAGE),
    (
        "web token create",
        "web",
        "post",
        "/account/tokens/",
        lambda w, role: {"name": "web"},
        _everyone(302, 302),
    ),
    (
        "web token revoke",
        "web",
        "post",
        "/account/tokens/{token}/revoke/",
        lambda w, role: {},
        _only({"submitter": 302}, 302, 404),
    ),
    (
        "web submission withdraw",
        "web",
        "post",
        "/account/submissions/{pending}/withdraw/",
        lambda w, role: {},
        _only({"submitter": 302}, 302, 404),
    ),
    # --- admin -------------------------------------------------------------------------
    (
        "admin index",
        "web",
        "get",
        "/admin/",
        None,
        _only({"staff": 200, "superuser": 200}, 302, 302),
    ),
    (
        "admin delete a benchmark",
        "web",
        "post",
        "/admin/leaderboard/benchmark/{other}/delete/",
        lambda w, role: {"post": "yes"},
        _only({"staff": 403, "superuser": 302}, 302, 302),
    ),
]


@pytest.mark.parametrize(
    ("name", "kind", "method", "path", "data", "expected"),
    CELLS,
    ids=[cell[0] for cell in CELLS],
)
def test_authorisation_row(world, name, kind, method, path, data, expected, settings):
    """One endpoint, every role; each role's request is rolled back before the next."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    other = Benchmark.objects.get(slug="other").pk
    url = path.format(pending=world.pending.pk, token=world.token_id, other=other)
    answers = {}
    for role in ROLES:
        with transaction.atomic():
            client = Client() if kind == "web" else APIClient()
            if role != "anonymous":
                client.force_login(world.users[role])
            payload = data(world, role) if data else None
            if method == "get":
                response = client.get(url)
            elif kind == "api":
                response = client.post(url, payload, format="json")
            elif kind == "api-multipart":
                response = client.post(url, payload, format="multipart")
            else:
                response = client.post(url, payload)
            answers[role] = response.status_code
            if role == "anonymous" and kind == "web" and response.status_code == 302:
                assert "login" in response["Location"], name
            transaction.set_rollback(True)
    assert answers == expected, f"{name}: got {answers}"
