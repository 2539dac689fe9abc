"""No web request runs long on any input.

19.7 MiB of JSON (390k scores, inside every limit then) posted to
``.../submissions/create/`` ran 164.7 s until gunicorn killed the worker. JSON
submissions are now bounded like results files (413 naming the limit and the upload
path), and the largest input every write endpoint accepts is answered here with a
bounded amount of work: CPU seconds of the request's thread (the test client runs the
view in it; the 164.7 s were Python's), SQL statements (no statement per row: the
database's share of the time), and a bounded rise of the process's resident memory
(sampled every few milliseconds from /proc: ``tracemalloc`` would slow the Python code
it measures by half again). Not wall seconds: on a machine shared with other work those
measure the load. Each CPU bound is ten times or more what the request takes
here on one core (measured figures beside each), well inside gunicorn's timeout; the
speed itself is bench's (``python -m bench ingest``). Request bodies are encoded before
the measurement starts, so the test client's own copy of a large body is not counted.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from dataclasses import dataclass

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from rest_framework.test import APIClient

from leaderboard.models import Algorithm, Benchmark, Submission, UploadJob
from leaderboard.services import MAX_BULK_DECISIONS, MAX_METRICS, MAX_TEXT_LENGTH
from tests.factories import make_benchmark, make_user
from tests.security.test_upload_bounds import MiB

pytestmark = pytest.mark.django_db

# CPU seconds of the request's thread that the largest inputs stay under (about 1 s
# measured for the largest JSON, CSV and background upload, 2026-12-05; gunicorn's
# timeout is 160 s).
CPU_SECONDS = 10
# SQL statements a request at its largest input stays under, beyond a few per item where
# the items are capped (metrics, bulk decisions): 8 to 33 measured; one a score row would
# be hundreds of thousands.
STATEMENTS = 100
# The tests of work need the largest inputs (about 15 s between them, mostly building
# them): they run in `make test`, not in the edit-test loop (`make check`); the 413
# tests stay in both.
AT_FULL_SIZE = pytest.mark.integration
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


@dataclass(frozen=True)
class Cost:
    """What ``action`` took: the most the resident memory rose by (MiB), the CPU seconds
    of the calling thread, the SQL statements it ran through Django, and its result."""

    peak_mib: float
    cpu_seconds: float
    statements: int
    outcome: object


def cost_of(action) -> Cost:
    gc.collect()
    start = _rss()
    peak = [start]
    statements = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], _rss())

    def count(execute, sql, params, many, context):
        statements[0] += 1
        return execute(sql, params, many, context)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    # This thread's CPU only: the sampler's wake-ups are not the request's.
    started = time.thread_time()
    try:
        with connection.execute_wrapper(count):
            outcome = action()
    finally:
        cpu = time.thread_time() - started
        done.set()
        sampler.join()
    return Cost((max(peak[0], _rss()) - start) / MiB, cpu, statements[0], outcome)


def _said(cost: Cost) -> str:
    return (
        f"{cost.cpu_seconds:.2f} CPU s, {cost.statements} statements, "
        f"+{cost.peak_mib:.0f} MiB resident"
    )


def _multipart(**fields) -> bytes:
    return encode_multipart(BOUNDARY, fields)


@pytest.fixture(autouse=True)
def no_throttles(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}


def _api(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _json_body(n_scores: int, pad: int = 0) -> bytes:
    scores = [{"dataset": f"d{i % 1000}", "value": 0.5, "fold": i // 1000} for i in range(n_scores)]
    return json.dumps(
        {"algorithm": "a", "allow_new_datasets": True, "note": "x" * pad, "scores": scores}
    ).encode()


def _largest_json(limit_bytes: int, max_scores: int) -> bytes:
    """As many scores as allowed, padded with a note up to the byte limit."""
    body = _json_body(max_scores)
    while len(body) > limit_bytes:  # the score cap did not fit: fewer scores
        max_scores = int(max_scores * 0.9)
        body = _json_body(max_scores)
    pad = min(limit_bytes - len(body), MAX_TEXT_LENGTH)
    return _json_body(max_scores, pad)


def test_a_json_submission_over_the_size_limit_is_a_413_that_names_it():
    make_benchmark("own", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    limit = django_settings.PODIUM_MAX_JSON_SUBMISSION_BYTES
    body = _json_body(30_000)
    assert len(body) > limit
    api = _api(make_user("flooder"))
    cost = cost_of(
        lambda: api.post(
            "/api/benchmarks/own/submissions/create/", body, content_type="application/json"
        )
    )
    response = cost.outcome
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert f"the limit is {limit} bytes" in detail and "submissions/upload/" in detail
    # Refused before the body is parsed or a row is read for it.
    assert cost.cpu_seconds < 4, cost  # 0.4 measured
    assert cost.statements <= 10, cost
    assert not Submission.objects.exists()


def test_a_json_submission_with_too_many_scores_is_a_413(settings):
    settings.PODIUM_MAX_JSON_SUBMISSION_BYTES = 20 * MiB
    make_benchmark("own", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    response = _api(make_user("flooder")).post(
        "/api/benchmarks/own/submissions/create/",
        _json_body(settings.PODIUM_MAX_JSON_SCORES + 1),
        content_type="application/json",
    )
    assert response.status_code == 413
    assert f"the limit is {settings.PODIUM_MAX_JSON_SCORES}" in response.json()["detail"]


@AT_FULL_SIZE
def test_the_largest_accepted_json_submission_is_answered_in_time():
    make_benchmark("own", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    limit = django_settings.PODIUM_MAX_JSON_SUBMISSION_BYTES
    body = _largest_json(limit, django_settings.PODIUM_MAX_JSON_SCORES)
    api = _api(make_user("flooder"))
    cost = cost_of(
        lambda: api.post(
            "/api/benchmarks/own/submissions/create/", body, content_type="application/json"
        )
    )
    response = cost.outcome
    assert response.status_code == 201, response.content[:500]
    assert cost.cpu_seconds < CPU_SECONDS, f"{len(body)} B of JSON: {cost}"
    assert cost.statements < STATEMENTS, f"{len(body)} B of JSON: {cost}"
    assert cost.peak_mib < 128, f"{len(body)} B of JSON: {cost}"
    print(f"largest JSON, {len(body)} B: {_said(cost)}")


def _long_csv(limit_bytes: int) -> bytes:
    """Whole algorithms of 200 datasets x 5 folds, as many as fit in ``limit_bytes``."""
    header = "dataset,algorithm,score,fold\n"
    rows, size, k = [header], len(header), 0
    while True:
        block = "".join(f"d{j},alg-{k},0.5,{f}\n" for j in range(200) for f in range(5))
        if size + len(block) > limit_bytes:
            return "".join(rows).encode()
        rows.append(block)
        size += len(block)
        k += 1


@AT_FULL_SIZE
def test_the_largest_results_file_answered_within_the_request_is_in_time():
    make_benchmark("own", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    content = _long_csv(django_settings.PODIUM_BACKGROUND_UPLOAD_BYTES)
    body = _multipart(
        file=SimpleUploadedFile("r.csv", content, content_type="text/csv"),
        allow_new_datasets="true",
    )
    api = _api(make_user("flooder"))
    cost = cost_of(
        lambda: api.post(
            "/api/benchmarks/own/submissions/upload/", body, content_type=MULTIPART_CONTENT
        )
    )
    response = cost.outcome
    assert response.status_code == 201, response.content[:500]
    assert cost.cpu_seconds < CPU_SECONDS, f"{len(content)} B of CSV: {cost}"
    assert cost.statements < STATEMENTS, f"{len(content)} B of CSV: {cost}"
    assert cost.peak_mib < 256, f"{len(content)} B of CSV: {cost}"
    print(f"largest CSV in the request, {len(content)} B: {_said(cost)}")


@AT_FULL_SIZE
def test_the_largest_results_file_goes_to_the_background_in_time(settings):
    settings.PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT = 5
    make_benchmark("own", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    size = django_settings.PODIUM_MAX_UPLOAD_BYTES - 1024  # room for the multipart framing
    content = b"dataset,algorithm,score\n" + b"d1,a,0.5\n" * ((size - 24) // 9)
    body = _multipart(file=SimpleUploadedFile("r.csv", content, content_type="text/csv"))
    del content
    api = _api(make_user("flooder"))
    # The job is handed to a worker on commit, which the test transaction never does.
    cost = cost_of(
        lambda: api.post(
            "/api/benchmarks/own/submissions/upload/", body, content_type=MULTIPART_CONTENT
        )
    )
    response = cost.outcome
    assert response.status_code == 202, response.content[:500]
    assert cost.cpu_seconds < CPU_SECONDS, f"{size} B queued: {cost}"
    assert cost.statements < STATEMENTS, f"{size} B queued: {cost}"
    # The file is held a few times while it is stored; never parsed in the request.
    assert cost.peak_mib < 4 * size / MiB + 64, f"{size} B queued: {cost}"
    print(f"background upload of {size} B: {_said(cost)}")
    assert UploadJob.objects.get().size > size - 9


@AT_FULL_SIZE
def test_the_other_write_endpoints_at_their_largest_inputs_are_in_time():
    maintainer = make_user("maintainer")
    api = _api(maintainer)
    text = "x" * MAX_TEXT_LENGTH
    metrics = [{"name": f"m{i:02d}" + "y" * 90, "direction": "higher"} for i in range(MAX_METRICS)]
    calls = [
        (
            "benchmark create",
            lambda: api.post(
                "/api/benchmarks/create/",
                {
                    "slug": "b" * 80,
                    "title": "t" * 200,
                    "description": text,
                    "citation": text,
                    "metrics": metrics,
                    "submission_policy": "moderated",
                },
                format="json",
            ),
            201,
        ),
        (
            "benchmark update",
            lambda: api.post(
                f"/api/benchmarks/{'b' * 80}/update/",
                {"description": text, "bootstrap_size": django_settings.PODIUM_MAX_BOOTSTRAP},
                format="json",
            ),
            200,
        ),
        ("token create", lambda: api.post("/api/tokens/create/", {"name": "n" * 100}), 201),
    ]
    for name, call, expected in calls:
        cost = cost_of(call)
        response = cost.outcome
        assert response.status_code == expected, (name, response.content[:300])
        assert cost.cpu_seconds < CPU_SECONDS, (name, cost)
        # benchmark create: 127 measured, two or three statements a metric
        assert cost.statements < STATEMENTS + 3 * MAX_METRICS, (name, cost)
        assert cost.peak_mib < 64, (name, cost)
        print(f"{name}: {_said(cost)}")


@AT_FULL_SIZE
def test_bulk_moderation_of_the_most_submissions_at_once_is_in_time():
    benchmark = make_benchmark("mod")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    submitter = make_user("submitter")
    submitter.email = "submitter@example.org"
    submitter.save()
    algorithms = Algorithm.objects.bulk_create(
        [Algorithm(benchmark=benchmark, name=f"alg-{i}") for i in range(MAX_BULK_DECISIONS)]
    )
    pending = Submission.objects.bulk_create(
        [Submission(benchmark=benchmark, algorithm=a, submitter=submitter) for a in algorithms]
    )
    web = Client()
    web.force_login(maintainer)
    cost = cost_of(
        lambda: web.post(
            "/b/mod/maintain/moderation/bulk/",
            {"decision": "reject", "note": "n", "submission": [s.pk for s in pending]},
        )
    )
    assert cost.outcome.status_code == 302, cost
    assert cost.cpu_seconds < CPU_SECONDS, cost
    # 507 measured: a statement a decision (capped at MAX_BULK_DECISIONS), not more
    assert cost.statements < STATEMENTS + 2 * MAX_BULK_DECISIONS, cost
    assert cost.peak_mib < 128, cost
    print(f"bulk rejection of {MAX_BULK_DECISIONS}: {_said(cost)}")
    assert not Submission.objects.filter(status=Submission.Status.PENDING).exists()
