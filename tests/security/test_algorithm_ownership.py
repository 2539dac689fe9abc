"""Algorithm ownership: any account could once take over another researcher's algorithm.

On an open benchmark, a submission under an existing algorithm's name was accepted on
arrival; the public listing then showed the attacker's URL and version. Algorithms now
belong to their first accepted submitter (or a team); nobody else may submit under the
name until an owner adds them, and maintainers may transfer an algorithm.
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.models import Algorithm, Benchmark, Submission
from leaderboard.ownership import algorithm_owner_add, algorithm_owners_transfer
from leaderboard.services import (
    PermissionDenied,
    ScoreInput,
    StateConflict,
    SubmissionInput,
    submission_accept,
    submission_create,
)
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db


def _entry(algorithm="base1", url="", version="", value=0.8):
    return SubmissionInput(
        algorithm=algorithm,
        algorithm_url=url,
        algorithm_version=version,
        scores=[ScoreInput(dataset="d1", value=value), ScoreInput(dataset="d2", value=value)],
    )


def _submit(benchmark, user, **kwargs):
    return submission_create(
        benchmark=benchmark, submitter=user, entry=_entry(**kwargs), new_datasets_confirmed=True
    )


@pytest.fixture
def open_benchmark():
    benchmark = make_benchmark("open", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    victim = make_user("victim")
    _submit(benchmark, victim, url="https://victim.example/paper", version="1.0")
    return benchmark, victim


def _api(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_a_stranger_cannot_submit_under_an_owned_algorithm(open_benchmark, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    attacker = make_user("attacker")
    response = _api(attacker).post(
        "/api/benchmarks/open/submissions/create/",
        {
            "algorithm": "base1",
            "algorithm_url": "https://phish.example/",
            "algorithm_version": "6.6.6",
            "scores": [{"dataset": "d1", "value": 0.99}, {"dataset": "d2", "value": 0.99}],
        },
        format="json",
    )
    assert response.status_code == 403
    detail = response.json()["detail"]
    assert "'victim'" in detail and "an owner can add you" in detail
    csv = b"dataset,algorithm,score\nd1,base1,0.99\nd2,base1,0.99\n"
    upload = _api(attacker).post(
        "/api/benchmarks/open/submissions/upload/",
        {"file": SimpleUploadedFile("r.csv", csv, content_type="text/csv")},
        format="multipart",
    )
    assert upload.status_code == 403 and "'victim'" in upload.json()["detail"]
    listed = APIClient().get("/api/benchmarks/open/algorithms/").json()["results"]
    (base1,) = [a for a in listed if a["name"] == "base1"]
    assert base1["url"] == "https://victim.example/paper" and base1["version"] == "1.0"
    assert base1["owners"] == ["victim"]
    assert Submission.objects.filter(submitter=attacker).count() == 0


def test_the_owner_adds_a_team_member_and_a_maintainer_transfers(open_benchmark):
    benchmark, victim = open_benchmark
    colleague, stranger, maintainer = make_user("colleague"), make_user("x"), make_user("m")
    benchmark.maintainers.add(maintainer)
    with pytest.raises(PermissionDenied, match="belongs to 'victim'"):
        _submit(benchmark, colleague)
    with pytest.raises(PermissionDenied, match="only the owners"):
        algorithm_owner_add(
            benchmark=benchmark, user=stranger, algorithm="base1", username="stranger"
        )
    owners = algorithm_owner_add(
        benchmark=benchmark, user=victim, algorithm="base1", username="colleague"
    )
    assert owners == ["colleague", "victim"]
    assert _submit(benchmark, colleague).status == Submission.Status.ACCEPTED
    with pytest.raises(PermissionDenied, match="only maintainers"):
        algorithm_owners_transfer(
            benchmark=benchmark, user=victim, algorithm="base1", usernames=["x"]
        )
    algorithm_owners_transfer(
        benchmark=benchmark, user=maintainer, algorithm="base1", usernames=["x"]
    )
    assert _submit(benchmark, stranger).status == Submission.Status.ACCEPTED
    with pytest.raises(PermissionDenied, match="belongs to 'x'"):
        _submit(benchmark, victim)


def test_the_algorithm_page_names_its_owners(open_benchmark):
    _, victim = open_benchmark
    page = Client().get("/b/open/algorithms/base1/").content.decode()
    assert 'data-testid="algorithm-owners"' in page and "<strong>victim</strong>" in page
    assert 'data-testid="owner-add-form"' not in page
    owner = Client()
    owner.force_login(victim)
    page = owner.get("/b/open/algorithms/base1/").content.decode()
    assert 'data-testid="owner-add-form"' in page
    assert 'data-testid="owner-transfer-form"' not in page
    response = owner.post("/b/open/algorithm-owners/", {"algorithm": "base1", "username": "nobody"})
    assert response.status_code == 302  # the page then says "no account named 'nobody'"
    assert list(Algorithm.objects.get(name="base1").owners.values_list("username", flat=True)) == [
        "victim"
    ]


def test_a_pending_submission_does_not_squat_a_name_on_a_moderated_benchmark():
    benchmark = make_benchmark("mod")  # moderated
    maintainer = make_user("m")
    benchmark.maintainers.add(maintainer)
    squatter, author = make_user("squatter"), make_user("author")
    squat = _submit(benchmark, squatter, algorithm="fresh")
    honest = _submit(benchmark, author, algorithm="fresh")  # not refused: nobody owns it yet
    submission_accept(submission=honest, user=maintainer)
    assert [u.username for u in Algorithm.objects.get(name="fresh").owners.all()] == ["author"]
    with pytest.raises(StateConflict, match="now belongs to 'author'"):
        submission_accept(submission=squat, user=maintainer)
    squat.refresh_from_db()
    assert squat.status == Submission.Status.PENDING


def test_an_imported_algorithm_without_owner_is_the_maintainers():
    benchmark = make_benchmark("imp", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    maintainer = make_user("m")
    benchmark.maintainers.add(maintainer)
    submission_create(
        benchmark=benchmark,
        submitter=None,
        entry=_entry(),
        source=Submission.Source.IMPORT,
    )
    with pytest.raises(PermissionDenied, match="has no owner and is kept by the maintainers"):
        _submit(benchmark, make_user("anyone"))
    _submit(benchmark, maintainer)  # a maintainer may, and so becomes its first owner
    assert [u.username for u in Algorithm.objects.get(name="base1").owners.all()] == ["m"]


def test_the_migration_makes_the_first_accepted_submitter_the_owner():
    benchmark = make_benchmark("mig")
    maintainer = make_user("m")
    benchmark.maintainers.add(maintainer)
    first, later = make_user("first"), make_user("later")
    pending = _submit(benchmark, later, algorithm="alg")  # earliest, but never accepted
    accepted = _submit(benchmark, first, algorithm="alg")
    submission_accept(submission=accepted, user=maintainer)
    Algorithm.owners.through.objects.all().delete()  # as before the migration
    assert pending.pk < accepted.pk
    migration = importlib.import_module("leaderboard.migrations.0010_algorithm_owners")
    migration.owners_from_first_accepted(django_apps, None)
    assert [u.username for u in Algorithm.objects.get(name="alg").owners.all()] == ["first"]
