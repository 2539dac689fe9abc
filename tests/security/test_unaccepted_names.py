"""A pending, then rejected, submission leaves no public trace and sets no public link.

The review listed a moderated benchmark's pending algorithm and dataset names through
the API, and a rejected submitter's URL stayed the "Paper or code" link of a same-named
algorithm accepted later. Names that only unaccepted submissions brought are now kept
out of every public list, count, page, form and export; an algorithm's link and
version come from accepted submissions only.
"""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.models import Algorithm, Dataset, Submission
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    submission_accept,
    submission_create,
    submission_reject,
    submission_withdraw,
)
from tests.factories import make_user
from tests.frontend.test_readers_support import computed_benchmark, refresh

pytestmark = pytest.mark.django_db

PHISH = "https://phish.example/login"
SECRET_ALGORITHM = "evil-algorithm-x7"
SECRET_DATASET = "evil-dataset-q9"


def _evil_submission(
    benchmark, *, url: str = PHISH, algorithm: str = SECRET_ALGORITHM, submitter=None
):
    return submission_create(
        benchmark=benchmark,
        submitter=submitter or make_user(f"attacker-{uuid.uuid4().hex[:8]}"),
        entry=SubmissionInput(
            algorithm=algorithm,
            algorithm_url=url,
            algorithm_version="6.6.6",
            scores=[
                ScoreInput(dataset=SECRET_DATASET, value=0.99),
                ScoreInput(dataset="d1", value=0.99),
            ],
        ),
        new_datasets_confirmed=True,
    )


def _public_pages(slug: str) -> list[str]:
    return [
        "/",
        "/?q=evil",
        f"/b/{slug}/",
        f"/b/{slug}/history/",
        f"/b/{slug}/v1/",
        f"/b/{slug}/charts/",
        f"/b/{slug}/v1/export.csv",
        f"/b/{slug}/v1/export.json",
        f"/b/{slug}/v1/export.tex",
        "/api/benchmarks/",
        "/api/benchmarks/?q=evil",
        f"/api/benchmarks/{slug}/",
        f"/api/benchmarks/{slug}/datasets/",
        f"/api/benchmarks/{slug}/algorithms/",
        f"/api/benchmarks/{slug}/submissions/",
        f"/api/benchmarks/{slug}/snapshots/latest/",
        f"/api/benchmarks/{slug}/snapshots/latest/export.csv",
        f"/api/benchmarks/{slug}/snapshots/latest/export.json",
    ]


def _assert_no_trace(slug: str) -> None:
    """Neither an anonymous reader nor another researcher sees the names or the link."""
    bystander = Client()
    bystander.force_login(make_user(f"bystander-{uuid.uuid4().hex[:8]}"))
    for reader in (Client(), bystander):
        for path in _public_pages(slug):
            response = reader.get(path)
            assert response.status_code == 200, path
            body = response.content.decode()
            for secret in (SECRET_ALGORITHM, SECRET_DATASET, "phish.example", "6.6.6"):
                assert secret not in body, (path, secret)
        # forms that list the benchmark's names to a submitter
        for path in (f"/b/{slug}/submit/",):
            body = bystander.get(path).content.decode()
            assert SECRET_ALGORITHM not in body and SECRET_DATASET not in body, path
        for path in (
            f"/b/{slug}/algorithms/{SECRET_ALGORITHM}/",
            f"/b/{slug}/datasets/{SECRET_DATASET}/",
        ):
            assert reader.get(path).status_code == 404, path
    detail = APIClient().get(f"/api/benchmarks/{slug}/").json()
    assert (detail["n_algorithms"], detail["n_datasets"]) == (3, 4)


def test_pending_then_rejected_submission_leaves_no_public_trace():
    benchmark = computed_benchmark("study")  # alpha, beta, gamma on d1..d4, moderated
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    pending = _evil_submission(benchmark)
    _assert_no_trace("study")
    submission_reject(submission=pending, user=maintainer)
    refresh(benchmark)
    _assert_no_trace("study")


def test_accepted_then_withdrawn_submission_takes_its_names_and_link_back():
    benchmark = computed_benchmark("study")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    submission = submission_accept(submission=_evil_submission(benchmark), user=maintainer)
    assert Algorithm.objects.get(name=SECRET_ALGORITHM).url == PHISH  # accepted: public
    submission_withdraw(submission=submission, user=submission.submitter)
    refresh(benchmark)
    assert Algorithm.objects.get(name=SECRET_ALGORITHM).url == ""
    _assert_no_trace("study")


def test_rejected_url_never_becomes_the_link_of_a_later_accepted_algorithm():
    benchmark = computed_benchmark("study")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    submission_reject(submission=_evil_submission(benchmark), user=maintainer)
    # The honest author of the same name, first without a link, then with one.
    author = make_user("honest-author")
    honest = _evil_submission(benchmark, url="", submitter=author)
    Submission.objects.filter(pk=honest.pk).update(algorithm_version="")
    submission_accept(submission=honest, user=maintainer)
    algorithm = Algorithm.objects.get(name=SECRET_ALGORITHM)
    assert (algorithm.url, algorithm.version) == ("", "")
    page = Client().get(f"/b/study/algorithms/{SECRET_ALGORITHM}/").content.decode()
    assert "phish.example" not in page
    listed = APIClient().get("/api/benchmarks/study/algorithms/").json()["results"]
    assert {a["name"]: a["url"] for a in listed}[SECRET_ALGORITHM] is None
    # Its owner now (the first accepted submitter), the only one who may submit under it.
    later = _evil_submission(benchmark, url="https://honest.example/paper", submitter=author)
    assert Algorithm.objects.get(name=SECRET_ALGORITHM).url == ""  # pending: not yet
    submission_accept(submission=later, user=maintainer)
    assert Algorithm.objects.get(name=SECRET_ALGORITHM).url == "https://honest.example/paper"


def test_pending_names_do_not_count_as_listed_for_a_closed_catalogue():
    """A benchmark that takes listed datasets only must not take a pending one's."""
    benchmark = computed_benchmark("study")
    _evil_submission(benchmark)
    benchmark.allow_new_datasets = False
    benchmark.save()
    api = APIClient()
    api.force_login(make_user("accomplice"))
    response = api.post(
        "/api/benchmarks/study/submissions/create/",
        {"algorithm": "other", "scores": [{"dataset": SECRET_DATASET, "value": 0.5}]},
        format="json",
    )
    assert response.status_code == 400
    assert "unknown dataset" in response.content.decode()


def test_maintainer_renames_and_deletes_names_no_accepted_result_uses():
    benchmark = computed_benchmark("study")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    rejected = _evil_submission(benchmark)
    submission_reject(submission=rejected, user=maintainer)
    api = APIClient()
    api.force_login(maintainer)
    base = "/api/benchmarks/study"
    renamed = api.post(
        f"{base}/datasets/rename/", {"name": SECRET_DATASET, "new_name": "fixed"}, format="json"
    )
    assert renamed.status_code == 200, renamed.content
    assert Dataset.objects.filter(benchmark=benchmark, name="fixed").exists()
    deleted = api.post(f"{base}/algorithms/delete/", {"name": SECRET_ALGORITHM}, format="json")
    assert deleted.status_code == 200, deleted.content
    assert not Algorithm.objects.filter(name=SECRET_ALGORITHM).exists()
    assert not Submission.objects.filter(pk=rejected.pk).exists()
    assert api.post(f"{base}/datasets/delete/", {"name": "fixed"}).status_code == 200
    # Names that accepted (public) results use cannot change.
    for path, data in (
        (f"{base}/algorithms/rename/", {"name": "alpha", "new_name": "alpha2"}),
        (f"{base}/algorithms/delete/", {"name": "alpha"}),
        (f"{base}/datasets/rename/", {"name": "d1", "new_name": "d1b"}),
        (f"{base}/datasets/delete/", {"name": "d1"}),
    ):
        response = api.post(path, data, format="json")
        assert response.status_code == 409, (path, response.content)  # in use: a conflict
        assert "accepted results" in response.content.decode()
    # A pending submission's name can be renamed but not deleted.
    pending = _evil_submission(benchmark, algorithm="typo-alg")
    assert api.post(f"{base}/algorithms/delete/", {"name": "typo-alg"}).status_code == 409
    response = api.post(f"{base}/algorithms/rename/", {"name": "typo-alg", "new_name": "fixed-alg"})
    assert response.status_code == 200
    pending.refresh_from_db()
    assert pending.algorithm.name == "fixed-alg"
    # Others may not.
    stranger = APIClient()
    stranger.force_login(make_user("stranger"))
    response = stranger.post(f"{base}/algorithms/rename/", {"name": "fixed-alg", "new_name": "x"})
    assert response.status_code == 403


def test_maintainer_renames_and_deletes_unused_names_on_the_catalogue_page():
    benchmark = computed_benchmark("study")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    submission_reject(submission=_evil_submission(benchmark), user=maintainer)
    web = Client()
    web.force_login(maintainer)
    url = "/b/study/maintain/catalogue/"
    page = web.get(url).content.decode()
    assert SECRET_DATASET in page and SECRET_ALGORITHM in page
    response = web.post(
        url, {"action": "rename", "kind": "dataset", "name": SECRET_DATASET, "new_name": "ok-ds"}
    )
    assert response.status_code == 302
    assert Dataset.objects.filter(benchmark=benchmark, name="ok-ds").exists()
    web.post(url, {"action": "delete", "kind": "algorithm", "name": SECRET_ALGORITHM})
    assert not Algorithm.objects.filter(name=SECRET_ALGORITHM).exists()
    refused = web.post(url, {"action": "delete", "kind": "algorithm", "name": "alpha"}, follow=True)
    assert "accepted results" in refused.content.decode()
    assert Algorithm.objects.filter(name="alpha").exists()
    stranger = Client()
    stranger.force_login(make_user("stranger"))
    assert (
        stranger.post(url, {"action": "delete", "kind": "dataset", "name": "ok-ds"}).status_code
        == 403
    )
