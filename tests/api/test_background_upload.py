"""Large uploads: stored, answered 202, processed by a real Celery worker (Redis).

The threshold is lowered so that a small file counts as large; the file then goes
through the same parse -> validate -> store path, all or nothing, and the job reports
what the direct upload would have answered (the submissions, or every bad row).
"""

import pytest

from leaderboard.models import Submission, UploadJob
from leaderboard.services import benchmark_datasets_add
from tests.api.background_helpers import finished
from tests.api.conftest import client_for
from tests.api.test_upload import GOOD_LONG, UPLOAD, upload
from tests.factories import stored_scores

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def small_threshold(settings):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 10


def test_a_large_file_is_stored_by_the_worker(
    celery_worker, small_threshold, researcher, benchmark
):
    api = client_for(researcher)
    response = upload(api, GOOD_LONG, note="big")
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["status"] == "queued" and job["size"] == len(GOOD_LONG)
    assert response["Location"].endswith(f"/api/benchmarks/toy/uploads/{job['id']}/")
    body = finished(api, response["Location"])
    assert body["status"] == "done" and body["http_status"] == 201
    assert body["progress"] == 1.0
    result = body["result"]
    assert result["n_scores"] == 4
    assert [(s["algorithm"], s["note"], s["n_scores"]) for s in result["submissions"]] == [
        ("alg-a", "big", 2),
        ("alg-b", "big", 2),
    ]
    assert len(stored_scores()) == 4
    assert UploadJob.objects.get().content in (b"", memoryview(b""))  # not kept


def test_a_refused_large_file_reports_every_bad_row_and_stores_nothing(
    celery_worker, small_threshold, researcher, benchmark
):
    api = client_for(researcher)
    bad = b"dataset,algorithm,score\nd1,alg-a,0.9\nd2,alg-a,oops\nd3,alg-a,\n"
    response = upload(api, bad)
    assert response.status_code == 202
    body = finished(api, response["Location"])
    assert body["status"] == "failed" and body["http_status"] == 400
    assert [p["line"] for p in body["result"]["problems"]] == [3, 4]
    assert body["result"]["problems_total"] == 2
    assert not Submission.objects.exists() and not stored_scores()


def test_an_upload_job_is_seen_by_its_uploader_only(
    celery_worker, small_threshold, researcher, stranger, benchmark
):
    response = upload(client_for(researcher), GOOD_LONG)
    location = response["Location"]
    assert client_for(stranger).get(location).status_code == 404
    finished(client_for(researcher), location)


def test_a_small_file_is_still_answered_at_once(researcher, benchmark):
    response = upload(client_for(researcher), GOOD_LONG)
    assert response.status_code == 201
    assert not UploadJob.objects.exists()


def test_upload_path_unknown_job_is_404(researcher, benchmark):
    response = client_for(researcher).get(UPLOAD.replace("submissions/upload/", "uploads/999/"))
    assert response.status_code == 404


def test_embedded_mode_processes_the_file_in_a_thread(
    settings, small_threshold, researcher, benchmark
):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no broker: the server's own thread
    api = client_for(researcher)
    response = upload(api, GOOD_LONG)
    assert response.status_code == 202
    body = finished(api, response["Location"])
    assert body["status"] == "done" and body["result"]["n_scores"] == 4


def test_a_large_file_carries_the_new_dataset_confirmation_to_the_worker(
    celery_worker, small_threshold, researcher, maintainer, benchmark
):
    """The typo guard applies in the background too: d2 is new to a benchmark that has
    d1, so it needs the uploader's confirmation, which the job keeps for the worker."""
    benchmark_datasets_add(benchmark=benchmark, user=maintainer, names=["d1"])
    api = client_for(researcher)

    refused = finished(api, upload(api, GOOD_LONG)["Location"])
    assert refused["status"] == "failed" and refused["http_status"] == 400
    (problem,) = refused["result"]["problems"]
    assert problem["line"] == 3 and "'d2' is new to this benchmark" in problem["message"]
    assert len(stored_scores()) == 0

    response = upload(api, GOOD_LONG, allow_new_datasets="true")
    assert response.status_code == 202, response.json()
    stored = finished(api, response["Location"])
    assert stored["status"] == "done" and stored["http_status"] == 201
    assert len(stored_scores()) == 4
