"""What a bad row or a fold gap does to an uploaded file: refused by default, or, when
the uploader asks, the rest stored and what was left out listed, the same through the
API, the background job and the web form."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from leaderboard.models import Submission, UploadJob
from leaderboard.upload_jobs import upload_job_run
from leaderboard.uploads import upload_job_create
from tests.api.conftest import client_for
from tests.api.test_upload import upload
from tests.factories import stored_scores

pytestmark = pytest.mark.django_db

ONE_BAD_ROW = b"dataset,algorithm,score\nd1,alg-a,0.9\nd2,alg-a,oops\nd1,alg-b,0.5\n"
# alg-b lacks fold 1 on d1, which alg-a has there.
FOLD_GAP = (
    b"dataset,algorithm,fold,score\n"
    b"d1,alg-a,0,0.9\nd1,alg-a,1,0.8\nd1,alg-b,0,0.5\n"
    b"d2,alg-a,0,0.7\nd2,alg-b,0,0.6\n"
)


def test_a_bad_row_refuses_the_file_by_default(researcher, benchmark):
    response = upload(client_for(researcher), ONE_BAD_ROW)
    assert response.status_code == 400, response.json()
    assert [(p["line"], p["field"]) for p in response.json()["problems"]] == [(3, "score")]
    assert not stored_scores()


def test_on_error_skip_stores_the_valid_rows_and_lists_the_rest(researcher, benchmark):
    response = upload(client_for(researcher), ONE_BAD_ROW, on_error="skip")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["n_scores"] == 2 and body["n_left_out"] == 1
    assert body["left_out"] == [
        {"field": 'line 3, column "score"', "message": "'oops' is not a number"}
    ]
    assert sorted((r.algorithm, r.dataset) for r in stored_scores()) == [
        ("alg-a", "d1"),
        ("alg-b", "d1"),
    ]


def test_incomplete_drop_leaves_out_an_algorithm_where_it_lacks_folds(researcher, benchmark):
    api = client_for(researcher)
    refused = upload(api, FOLD_GAP)
    assert refused.status_code == 400 and "lacks fold 1" in str(refused.json())
    response = upload(api, FOLD_GAP, incomplete="drop")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["n_left_out"] == 1
    (left_out,) = body["left_out"]
    assert left_out["field"] == 'line 4, column "fold"'
    assert 'algorithm "alg-b" on dataset "d1" lacks fold 1' in left_out["message"]
    assert sorted((r.algorithm, r.dataset) for r in stored_scores() if r.fold in (0, None)) == [
        ("alg-a", "d1"),
        ("alg-a", "d2"),
        ("alg-b", "d2"),
    ]


def test_a_choice_out_of_its_list_is_refused_at_its_field(researcher, benchmark):
    response = upload(client_for(researcher), ONE_BAD_ROW, on_error="maybe", incomplete="x")
    assert response.status_code == 400
    assert {p["field"] for p in response.json()["problems"]} == {"on_error", "incomplete"}


def test_the_background_job_takes_the_uploaders_choice(client, researcher, benchmark, monkeypatch):
    monkeypatch.setattr("leaderboard.upload_jobs.close_old_connections", lambda: None)
    monkeypatch.setattr("leaderboard.uploads._dispatch", lambda job_id: None)
    jobs = {
        on_error: upload_job_create(
            benchmark=benchmark,
            submitter=researcher,
            content=ONE_BAD_ROW,
            format=None,
            note="",
            idempotency_key=f"choice-{on_error}",
            on_error=on_error,
        )
        for on_error in ("refuse", "skip")
    }
    refused = upload_job_run(job_id=jobs["refuse"].pk)
    assert refused.status == UploadJob.Status.FAILED and refused.http_status == 400
    assert not stored_scores()
    done = upload_job_run(job_id=jobs["skip"].pk)
    assert done.status == UploadJob.Status.DONE and done.http_status == 201, done.result
    assert done.result["n_scores"] == 2 and done.result["n_left_out"] == 1
    assert done.result["left_out"][0]["field"] == 'line 3, column "score"'
    assert len(stored_scores()) == 2
    body = client_for(researcher).get(f"/api/benchmarks/toy/uploads/{done.pk}/").json()
    assert body["result"]["n_left_out"] == 1 and body["result"]["n_scores"] == 2
    client.force_login(researcher)
    page = client.get(reverse("contribute-upload-job", args=["toy", done.pk])).content.decode()
    assert 'data-testid="upload-job-left-out"' in page
    assert "line 3, column &quot;score&quot;: &#x27;oops&#x27; is not a number" in page


def test_the_web_form_drops_what_lacks_folds_once_confirmed(client, researcher, benchmark):
    client.force_login(researcher)
    preview = client.post(
        "/b/toy/submit/csv/",
        {"file": SimpleUploadedFile("gap.csv", FOLD_GAP), "incomplete": "drop"},
    ).content.decode()
    assert preview.count('data-testid="left-out-item"') == 1
    assert "lacks fold 1" in preview
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview).group(1)
    unconfirmed = client.post("/b/toy/submit/csv/confirm/", {"token": token})
    assert unconfirmed.status_code == 200 and not Submission.objects.exists()
    confirmed = client.post(
        "/b/toy/submit/csv/confirm/",
        {"token": token, "confirm_left_out": "1", "confirm_new_datasets": "1"},
    )
    assert confirmed.status_code == 302, confirmed.content.decode()[:2000]
    assert sorted((r.algorithm, r.dataset) for r in stored_scores() if r.fold in (0, None)) == [
        ("alg-a", "d1"),
        ("alg-a", "d2"),
        ("alg-b", "d2"),
    ]
