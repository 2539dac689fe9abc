"""What empty cells will do is said before anything is stored: the web form, the file
preview and the API answer carry the one sentence (leaderboard/incomplete.py), and the
maintainer chooses the policy on the settings form."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Benchmark, Submission
from leaderboard.services import benchmark_update, submissions_create
from tests.api.conftest import client_for
from tests.api.test_submissions import post_json
from tests.factories import entry, make_benchmark, make_user

pytestmark = pytest.mark.django_db

DATASETS = ("d1", "d2", "d3")
NOT_RANKED = (
    "1 empty cell: under this benchmark's policy your algorithm will not be ranked until it "
    "has results on all 3 datasets."
)


@pytest.fixture
def benchmark():
    """Open, with two algorithms on d1..d3."""
    benchmark = make_benchmark("study", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=[
            entry("baseline", {d: 0.5 for d in DATASETS}),
            entry("tree", {d: 0.6 for d in DATASETS}),
        ],
        source=Submission.Source.IMPORT,
    )
    return benchmark


def _grid(key="web-form-" + "a" * 32, **overrides):
    data = {
        "idempotency_key": key,
        "algorithm": "forest",
        "metric": "score",
        "folds": "1",
        "grid-rows": "3",
        "grid-folds": "1",
        "action": "submit",
    }
    for i, (dataset, value) in enumerate(zip(DATASETS, ("0.7", "", "0.8"), strict=True)):
        data[f"grid-{i}-dataset"] = dataset
        data[f"grid-{i}-0"] = value
    data.update(overrides)
    return data


def test_the_form_says_what_a_blank_cell_will_do_before_storing(client, benchmark, researcher):
    page = client.post("/b/study/submit/", _grid())
    assert page.status_code == 200
    assert page.context["incomplete_note"] == NOT_RANKED
    body = page.content.decode()
    assert NOT_RANKED.replace("'", "&#x27;") in body and 'name="incomplete_confirmed"' in body
    assert not Submission.objects.filter(algorithm__name="forest").exists()
    stored = client.post("/b/study/submit/", _grid(incomplete_confirmed="1"))
    assert stored.status_code == 302 and stored.url == "/b/study/"
    assert Submission.objects.get(algorithm__name="forest").n_scores == 2
    board = client.get(stored.url).content.decode()
    assert "Stored and accepted forest" in board
    assert "forest: " + NOT_RANKED.replace("'", "&#x27;") in board  # left out, and why


def test_the_form_names_the_maintainers_choice(client, benchmark, researcher):
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    benchmark_update(benchmark=benchmark, user=maintainer, incomplete_submissions="drop_datasets")
    page = client.post("/b/study/submit/", _grid())
    assert page.context["incomplete_note"] == (
        "1 empty cell: under this benchmark's policy that dataset will be left out of the "
        "analysis for every algorithm."
    )


def test_a_full_row_is_stored_at_once(client, benchmark, researcher):
    response = client.post("/b/study/submit/", _grid(**{"grid-1-0": "0.75"}))
    assert response.status_code == 302


def test_the_file_preview_says_it_per_algorithm(client, benchmark, researcher):
    content = b"dataset,algorithm,score\nd1,alpha,0.9\nd3,alpha,0.8\nd1,beta,0.7\nd2,beta,0.7\nd3,beta,0.7\n"
    preview = client.post(
        "/b/study/submit/csv/",
        {"file": SimpleUploadedFile("r.csv", content, content_type="text/csv")},
    )
    assert preview.status_code == 200
    assert preview.context["incomplete_notes"] == [("alpha", NOT_RANKED)]
    token = preview.context["upload"].token
    stored = client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert stored.status_code == 302 and stored.url == "/b/study/"
    board = client.get(stored.url).content.decode()
    assert "Stored and accepted alpha, beta" in board
    assert "alpha: " + NOT_RANKED.replace("'", "&#x27;") in board and "beta: " not in board


def test_the_api_answer_carries_the_sentence(benchmark):
    api = client_for(make_user("someone"))
    body = {"algorithm": "forest", "scores": [{"dataset": "d1", "value": 0.7}]}
    response = post_json(api, "/api/benchmarks/study/submissions/create/", body)
    assert response.status_code == 201, response.json()
    assert response.json()["incomplete_note"] == (
        "2 empty cells: under this benchmark's policy your algorithm will not be ranked until "
        "it has results on all 3 datasets."
    )
    full = {"algorithm": "full", "scores": [{"dataset": d, "value": 0.7} for d in DATASETS]}
    assert (
        post_json(api, "/api/benchmarks/study/submissions/create/", full).json()["incomplete_note"]
        is None
    )


def test_the_maintainer_chooses_the_policy_on_the_settings_form_and_the_api(client, benchmark):
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    client.force_login(maintainer)
    page = client.get("/b/study/maintain/")
    assert page.status_code == 200 and 'name="incomplete_submissions"' in page.content.decode()
    api = client_for(maintainer)
    response = api.post(
        "/api/benchmarks/study/update/",
        {"incomplete_submissions": "rank_on_what_it_has"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["incomplete_submissions"] == "rank_on_what_it_has"
    refused = api.post(
        "/api/benchmarks/study/update/",
        {"incomplete_submissions": "ignore"},
        content_type="application/json",
    )
    assert refused.status_code == 400 and "incomplete_submissions" in str(refused.json())


PARTIAL_FILE = (
    b"dataset,algorithm,score\nd1,alpha,0.9\nd3,alpha,0.8\nd1,beta,0.7\nd2,beta,0.7\nd3,beta,0.7\n"
)


def test_the_api_upload_answer_carries_the_sentence_per_algorithm(benchmark):
    api = client_for(make_user("someone"))
    response = api.post(
        "/api/benchmarks/study/submissions/upload/",
        {"file": SimpleUploadedFile("r.csv", PARTIAL_FILE, content_type="text/csv")},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["incomplete_notes"] == [{"algorithm": "alpha", "note": NOT_RANKED}]


def test_the_background_upload_result_carries_it_on_the_api_and_the_page(
    client, benchmark, researcher
):
    from leaderboard.models import UploadJob
    from leaderboard.upload_jobs import upload_job_run
    from leaderboard.uploads import upload_job_create

    job = upload_job_create(
        benchmark=benchmark,
        submitter=researcher,
        content=PARTIAL_FILE,
        filename="r.csv",
        format=None,
        note="",
        idempotency_key="background-partial",
    )
    with pytest.MonkeyPatch.context() as patch:  # in this test's transaction
        patch.setattr("leaderboard.upload_jobs.close_old_connections", lambda: None)
        done = upload_job_run(job_id=job.pk)
    assert done.status == UploadJob.Status.DONE, done.result
    api = client_for(researcher)
    answer = api.get(f"/api/benchmarks/study/uploads/{job.pk}/").json()
    assert answer["result"]["incomplete_notes"] == [{"algorithm": "alpha", "note": NOT_RANKED}]
    page = client.get(f"/b/study/submit/csv/jobs/{job.pk}/")
    assert page.status_code == 200
    assert "alpha: " + NOT_RANKED.replace("'", "&#x27;") in page.content.decode()
