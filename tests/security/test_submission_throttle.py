"""Web and API submissions share one throttle; the web refuses an oversize body unread.

The review had the API answer 429, then stored five web upload+confirm cycles. The
web forms now count against the API's own counters (per user and benchmark, and per
benchmark), in real Redis.
"""

from __future__ import annotations

import re
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from frontend.middleware import web_body_limit
from leaderboard.models import Submission
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db

CSV = b"dataset,algorithm,score\nd1,alpha,0.9\nd2,alpha,0.8\n"


@pytest.fixture
def tight_rates(settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {
        **rest["DEFAULT_THROTTLE_RATES"],
        "submit": "3/hour",
        "benchmark_submit": "1000/hour",
    }
    settings.REST_FRAMEWORK = rest


def _api_submit(api: APIClient, algorithm: str):
    return api.post(
        "/api/benchmarks/toy/submissions/create/",
        {"algorithm": algorithm, "scores": [{"dataset": "d1", "value": 0.5}]},
        format="json",
    )


def _grid(algorithm: str) -> dict:
    return {
        "idempotency_key": uuid.uuid4().hex,
        "algorithm": algorithm,
        "metric": "score",
        "folds": "1",
        "grid-rows": "1",
        "grid-folds": "1",
        "grid-0-dataset": "d1",
        "grid-0-0": "0.7",
        "action": "submit",
    }


def _upload(web: Client, content: bytes = CSV):
    upload = SimpleUploadedFile("r.csv", content, content_type="text/csv")
    return web.post("/b/toy/submit/csv/", {"file": upload})


def test_after_the_api_says_429_the_web_refuses_too(tight_rates):
    make_benchmark("toy")
    user = make_user("flooder")
    api, web = APIClient(), Client()
    api.force_login(user)
    web.force_login(user)
    # A preview made while still under the limit, confirmed after it is reached.
    preview = _upload(web)
    assert preview.status_code == 200
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview.content.decode()).group(1)
    assert _api_submit(api, "a1").status_code == 201
    assert _api_submit(api, "a2").status_code == 201
    refused = _api_submit(api, "a3")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    stored = Submission.objects.count()

    for response in (
        web.post("/b/toy/submit/", _grid("web-grid")),
        _upload(web),
        web.post("/b/toy/submit/csv/confirm/", {"token": token}),
    ):
        assert response.status_code == 429
        assert int(response["Retry-After"]) > 0
        assert "Too many submissions" in response.content.decode()
    assert Submission.objects.count() == stored


def test_after_the_web_uses_the_quota_the_api_says_429(tight_rates):
    make_benchmark("toy")
    user = make_user("flooder")
    api, web = APIClient(), Client()
    api.force_login(user)
    web.force_login(user)
    for i in range(3):
        response = web.post("/b/toy/submit/", _grid(f"web-{i}"))
        assert response.status_code == 302, response.content[:300]
    assert web.post("/b/toy/submit/", _grid("web-4")).status_code == 429
    assert _api_submit(api, "api-1").status_code == 429
    # Another researcher has a quota of their own.
    other = APIClient()
    other.force_login(make_user("someone-else"))
    assert _api_submit(other, "theirs").status_code == 201


class _Unreadable:
    """A request body that fails the test if anything reads it."""

    def read(self, *args, **kwargs):
        raise AssertionError("the oversize body was read")

    readline = read


def test_web_upload_refuses_an_oversize_body_before_reading_it():
    make_benchmark("toy")
    web = Client()
    web.force_login(make_user("uploader"))
    size = web_body_limit() + 1
    response = web.generic(
        "POST",
        "/b/toy/submit/csv/",
        b"",
        content_type="multipart/form-data; boundary=xyz",
        CONTENT_LENGTH=str(size),
        **{"wsgi.input": _Unreadable()},
    )
    assert response.status_code == 413
    assert "Upload larger results files through the API" in response.content.decode()
    assert not Submission.objects.exists()
