"""A large file uploaded on the web is stored by a real Celery worker, like the API's.

The threshold is lowered so a small file counts as large. The preview says so (and
skips the trial store, which would cost the request as much as the store); the confirm
answers at once with a page that follows the job (a meta refresh while it runs) and
then shows the outcome: the stored submissions, or every refused row.
"""

import re
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Submission, UploadJob
from tests.factories import make_benchmark, make_user, stored_scores

pytestmark = pytest.mark.django_db(transaction=True)

GOOD_CSV = b"dataset,algorithm,score\nd1,alpha,0.9\nd2,alpha,0.8\nd1,beta,0.7\nd2,beta,0.75\n"


@pytest.fixture
def researcher(client, settings):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 10
    user = make_user("researcher")
    client.force_login(user)
    return user


def preview_then_confirm(client, slug: str, content: bytes):
    preview = client.post(
        f"/b/{slug}/submit/csv/",
        {"file": SimpleUploadedFile("results.csv", content, content_type="text/csv")},
    )
    body = preview.content.decode()
    assert preview.status_code == 200
    assert 'data-testid="upload-background-note"' in body
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)
    confirmed = client.post(f"/b/{slug}/submit/csv/confirm/", {"token": token})
    assert confirmed.status_code == 302
    assert re.fullmatch(rf"/b/{slug}/submit/csv/jobs/\d+/", confirmed.url), confirmed.url
    return token, confirmed.url


def followed(client, url: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url).content.decode()
        if 'data-status="done"' in body or 'data-status="failed"' in body:
            assert 'http-equiv="refresh"' not in body  # finished: no more reloads
            return body
        assert 'http-equiv="refresh"' in body
        time.sleep(0.2)
    raise AssertionError(f"the upload did not finish in {timeout} s")


def test_a_large_web_upload_is_stored_in_the_background(celery_worker, client, researcher):
    make_benchmark("study", submission_policy="open")
    token, url = preview_then_confirm(client, "study", GOOD_CSV)
    body = followed(client, url)
    assert 'data-testid="upload-job-done"' in body and "Stored 2 submissions (4 scores)" in body
    stored = Submission.objects.filter(submitter=researcher)
    assert stored.count() == 2 and {s.source for s in stored} == {Submission.Source.CSV}
    assert len(stored_scores()) == 4
    # Confirming again goes back to the same job; nothing is stored twice.
    again = client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert again.status_code == 302 and again.url == url
    assert UploadJob.objects.count() == 1 and len(stored_scores()) == 4


def test_a_refused_large_web_upload_lists_its_rows_and_stores_nothing(
    celery_worker, client, researcher
):
    benchmark = make_benchmark("listed", allow_new_datasets=False)
    benchmark.datasets.create(name="d1", declared=True)
    _, url = preview_then_confirm(
        client, "listed", b"dataset,algorithm,score\nd1,alpha,0.5\nd9,alpha,0.4\n"
    )
    body = followed(client, url)
    assert 'data-testid="upload-job-failed"' in body
    assert 'data-testid="upload-problem" data-line="3"' in body
    assert "only takes listed datasets" in body
    assert Submission.objects.count() == 0 and len(stored_scores()) == 0


def test_another_users_job_is_not_found(client, researcher):
    owner = make_user("owner")
    benchmark = make_benchmark("study")
    job = UploadJob.objects.create(benchmark=benchmark, submitter=owner, content=b"", size=0)
    assert client.get(f"/b/study/submit/csv/jobs/{job.pk}/").status_code == 404


def test_a_mapped_large_web_upload_shows_what_its_mapping_left_out(
    celery_worker, client, researcher
):
    """The job's notes (as the API's job result has them) on its page, escaped."""
    make_benchmark("mapped")
    content = b"task,framework,<i>secs</i>,result\nadult,lightgbm,12.5,0.91\nadult,rf,3.1,0.88\n"
    refused = client.post(
        "/b/mapped/submit/csv/",
        {"file": SimpleUploadedFile("amlb.csv", content, content_type="text/csv")},
    ).content.decode()
    token = re.search(r'name="token" value="([0-9a-f]+)"', refused).group(1)
    mapping = {"token": token, "dataset": "task", "algorithm": "framework", "score": "result"}
    preview = client.post("/b/mapped/submit/csv/map/", mapping).content.decode()
    assert 'data-testid="upload-background-note"' in preview
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview).group(1)
    confirmed = client.post("/b/mapped/submit/csv/confirm/", {"token": token})
    body = followed(client, confirmed.url)
    assert 'data-testid="upload-job-done"' in body and "Stored 2 submissions (2 scores)" in body
    assert UploadJob.objects.get().result["notes"] == ["columns left out (not mapped): <i>secs</i>"]
    notes = re.search(r'<ul class="notice" data-testid="upload-notes">(.*?)</ul>', body).group(1)
    assert notes == "<li>columns left out (not mapped): &lt;i&gt;secs&lt;/i&gt;</li>"
