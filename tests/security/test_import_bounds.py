"""A small zip of another tool's results cannot hold a web worker.

In-request or background was decided on the compressed size, and the importers read
every result with no cap: a 1.44 MiB zip of 600k results held a worker 110 s and
+430 MiB, a 3.85 MiB one got it killed. Now an upload goes to the background when it
unpacks past ``PODIUM_BACKGROUND_UPLOAD_BYTES`` (read from the zip's directory; the
unpacking stops at the bound whatever the directory says), and every importer stops at
the first result past the cap of where it runs (``PODIUM_MAX_UPLOAD_ROWS`` in a request,
``PODIUM_MAX_BACKGROUND_UPLOAD_ROWS`` in a job or ``manage.py import_results``), with a
400 that names the file, the key and the cap (``leaderboard.uploads.upload_limits``).
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from leaderboard.ingest.formats import (
    IMPORT_FORMATS,
    ResultsImportError,
    read_imported,
    unpacked_size,
)
from leaderboard.models import Submission, UploadJob
from leaderboard.services import api_token_create, benchmark_create
from leaderboard.upload_jobs import upload_job_run
from leaderboard.uploads import upload_job_create
from tests.factories import make_user, stored_scores
from tests.ingest.helpers import fixture_files, zipped

pytestmark = pytest.mark.django_db
KiB = 1024


@pytest.fixture(autouse=True)
def no_throttles(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}


@pytest.fixture
def board():
    return benchmark_create(slug="hf", title="hf", metrics=[("acc", "higher")])


def token_client(username: str = "attacker") -> APIClient:
    _, raw = api_token_create(user=make_user(username), name="script")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


def hf_files(n_files: int, per_file: int) -> dict[str, bytes]:
    """Hugging Face leaderboard files: one model each, ``per_file`` tasks of one score."""
    return {
        f"r{f:03d}.json": json.dumps(
            {
                "config": {"model_name": f"org/model-{f}"},
                "results": {f"task-{t}": {"acc": 0.5} for t in range(per_file)},
            }
        ).encode()
        for f in range(n_files)
    }


def post_upload(api: APIClient, content: bytes, name: str = "results.zip", fmt="hf-leaderboard"):
    return api.post(
        "/api/benchmarks/hf/submissions/upload/",
        {"file": SimpleUploadedFile(name, content), "format": fmt, "allow_new_datasets": "true"},
        format="multipart",
    )


# --- in the request or in the background: by the unpacked size -------------------------


def test_the_reported_zip_goes_to_the_background_without_being_read(board):
    """The report's attack at the default settings: 600k results in a zip of about
    1.4 MiB. The request only reads the zip's directory and stores the file."""
    content = zipped(hf_files(600, 1000))
    assert len(content) < 4 * 1024 * KiB < unpacked_size(content)
    api = token_client()
    started = time.process_time()
    response = post_upload(api, content)
    cpu = time.process_time() - started
    assert response.status_code == 202, response.content[:300]
    # Before: 110 s of a worker parsing and storing. A wide margin for a loaded machine.
    assert cpu < 5, f"the request took {cpu:.1f} s of CPU"
    job = UploadJob.objects.get()
    assert job.status == UploadJob.Status.QUEUED and job.size == len(content)
    assert not Submission.objects.exists()


def test_a_zip_small_when_compressed_but_large_unpacked_goes_to_the_background(settings, board):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 64 * KiB
    content = zipped(hf_files(20, 200))
    assert len(content) < 64 * KiB < unpacked_size(content)
    response = post_upload(token_client(), content)
    assert response.status_code == 202, response.content[:300]
    assert not Submission.objects.exists()


def test_a_zip_under_the_threshold_unpacked_is_still_answered_in_the_request(settings, board):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 64 * KiB
    content = zipped(hf_files(2, 100))
    assert unpacked_size(content) < 64 * KiB
    response = post_upload(token_client(), content)
    assert response.status_code == 201, response.content[:300]
    assert response.json()["n_scores"] == 200


def _understated(content: bytes, real: int, declared: int) -> bytes:
    """The zip with a member's size, in its local header and directory, as ``declared``."""
    data = bytearray(content)
    before, after = real.to_bytes(4, "little"), declared.to_bytes(4, "little")
    for start in range(len(data) - 4):
        if data[start : start + 4] == before:
            data[start : start + 4] = after
    return bytes(data)


def test_a_zip_that_understates_its_size_stops_at_the_request_bound(settings, board):
    """The directory says it is small (read in the request), the data inflate past the
    bound: unpacking stops there, and nothing is stored."""
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 64 * KiB
    document = hf_files(1, 20_000)["r000.json"]
    content = _understated(zipped({"r.json": document}), len(document), 1000)
    assert unpacked_size(content) == 1000 < len(document)
    response = post_upload(token_client(), content)
    assert response.status_code == 400, response.content[:300]
    assert "r.json" in response.content.decode()
    assert not stored_scores()


# --- the row cap, applied while the results are collected ------------------------------


@pytest.mark.parametrize("format", IMPORT_FORMATS)
def test_every_importer_stops_at_the_first_result_past_the_cap(format):
    files = fixture_files(format)
    total = read_imported(files, format=format).parsed.n_records
    assert read_imported(files, format=format, max_results=total).parsed.n_records == total
    with pytest.raises(ResultsImportError) as refused:
        read_imported(files, format=format, max_results=1)
    (problem,) = refused.value.errors
    assert "too many results: at most 1 per upload" in problem.message
    assert problem.column and ": " in problem.column  # "<file>: <key>"


def test_an_import_over_the_row_cap_is_a_400_that_names_it(settings, board):
    """The cap stops the reading: the refusal names the first result past it, in the
    third of ten files, so the seven after it were never read."""
    settings.PODIUM_MAX_UPLOAD_ROWS = 1000
    response = post_upload(token_client(), zipped(hf_files(10, 500)))
    assert response.status_code == 400, response.content[:300]
    (problem,) = response.json()["problems"]
    assert problem["field"] == "r002.json: results.task-0.acc"
    assert "too many results: at most 1000 per upload" in problem["message"]
    assert not Submission.objects.exists() and not stored_scores()


def test_one_file_of_another_tool_over_the_cap_is_a_400(settings, board):
    settings.PODIUM_MAX_UPLOAD_ROWS = 100
    response = post_upload(
        token_client(), hf_files(1, 101)["r000.json"], name="r.json", fmt="hf-leaderboard"
    )
    assert response.status_code == 400, response.content[:300]
    assert "too many results: at most 100" in response.content.decode()


def test_the_background_job_has_its_own_larger_cap(settings, board, monkeypatch):
    monkeypatch.setattr("leaderboard.upload_jobs.close_old_connections", lambda: None)
    settings.PODIUM_MAX_UPLOAD_ROWS = 100
    settings.PODIUM_MAX_BACKGROUND_UPLOAD_ROWS = 1000

    def run(content: bytes, key: str, fmt: str = "hf-leaderboard") -> UploadJob:
        job = upload_job_create(
            benchmark=board,
            submitter=make_user(f"user-{key}"),
            content=content,
            filename="results.zip",
            format=fmt,
            note="",
            idempotency_key=key,
            new_datasets_confirmed=True,
        )
        return upload_job_run(job_id=job.pk)

    refused = run(zipped(hf_files(4, 300)), "over")
    assert refused.status == UploadJob.Status.FAILED and refused.http_status == 400
    assert "too many results: at most 1000 per upload" in json.dumps(refused.result)
    assert not stored_scores()
    done = run(zipped(hf_files(3, 300)), "under")  # over the request's cap, within the job's
    assert done.status == UploadJob.Status.DONE, done.result
    assert done.result["n_scores"] == 900
    csv = b"dataset,algorithm,score\n" + b"".join(b"d%d,a,0.5\n" % i for i in range(1001))
    csv_job = run(csv, "csv", fmt="")
    assert csv_job.status == UploadJob.Status.FAILED and csv_job.http_status == 400
    assert "at most 1000" in json.dumps(csv_job.result)


def test_the_web_form_does_not_read_a_zip_that_unpacks_past_the_request_bound(
    client, settings, board
):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 64 * KiB
    client.force_login(make_user("web"))
    content = zipped(hf_files(20, 200))
    response = client.post(
        "/b/hf/submit/csv/",
        {"file": SimpleUploadedFile("results.zip", content), "format": "hf-leaderboard"},
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert f"unpack to {unpacked_size(content)} bytes" in body
    assert "submissions/upload/" in body
    assert not re.search(r'name="token" value="[0-9a-f]+"', body)  # no preview to confirm


def test_the_web_form_applies_the_row_cap_to_an_import(client, settings, board):
    settings.PODIUM_MAX_UPLOAD_ROWS = 100
    client.force_login(make_user("web"))
    response = client.post(
        "/b/hf/submit/csv/",
        {
            "file": SimpleUploadedFile("results.zip", zipped(hf_files(3, 50))),
            "format": "hf-leaderboard",
        },
    )
    body = response.content.decode()
    assert "too many results: at most 100 per upload" in body
    assert 'data-testid="upload-confirm"' not in body


def test_the_import_command_applies_the_background_cap(settings, tmp_path):
    settings.PODIUM_MAX_BACKGROUND_UPLOAD_ROWS = 100
    for name, data in hf_files(3, 50).items():
        (tmp_path / name).write_bytes(data)
    with pytest.raises(CommandError) as refused:
        call_command(
            "import_results",
            str(tmp_path),
            "--format",
            "hf-leaderboard",
            "--benchmark",
            "cmd",
            stdout=StringIO(),
            stderr=StringIO(),
        )
    assert "too many results: at most 100 per upload" in str(refused.value)
    assert not stored_scores()


def test_unpacked_size_reads_the_directory_of_a_file_object_and_rewinds_it():
    content = zipped(hf_files(2, 10))
    upload = io.BytesIO(content)
    declared = sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(content)).infolist())
    assert unpacked_size(upload) == declared == unpacked_size(content)
    assert upload.tell() == 0
    assert unpacked_size(b"dataset,algorithm,score\n") == 24
    assert unpacked_size(b"PK\x03\x04 not really a zip") == 21
