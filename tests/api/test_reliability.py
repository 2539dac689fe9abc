"""The API's failure answers: every query parameter checked, JSON for every
status, 503 with Retry-After for a database outage, typed bodies, and a stored
submission never answered with an error. The real outages (PostgreSQL and Redis
stopped under load) are in tests/reliability."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import Client

from config.cache import FailOpenRedisCache
from leaderboard.models import Submission
from leaderboard.services import ScoreInput, SubmissionInput, ValidationFailed, submission_create
from tests.api.conftest import client_for
from tests.factories import make_submission

SNAPSHOT_PATHS = [
    "snapshots/",
    "snapshots/latest/",
    "snapshots/status/",
    "snapshots/latest/export.csv",
    "snapshots/latest/export.json",
    "snapshots/latest/sections/board/",
    "snapshots/1/",
    "snapshots/1/export.csv",
    "snapshots/1/export.json",
    "snapshots/1/sections/wins/",
]


@pytest.mark.django_db
@pytest.mark.parametrize("path", SNAPSHOT_PATHS)
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("metric=a%00b", "control character U+0000"),
        ("metric=a%1Fb", "control character U+001F"),
        ("metric=score&metric=score", "given 2 times"),
        ("metric=", "is empty"),
    ],
)
def test_every_snapshot_and_export_endpoint_checks_metric(client, benchmark, path, query, message):
    response = client.get(f"/api/benchmarks/toy/{path}?{query}")
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    (problem,) = response.json()["problems"]
    assert problem["field"] == "metric" and message in problem["message"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("offset=", "offset"),
        ("offset=1&offset=2", "offset"),
        ("limit=0", "limit"),
        ("limit=x", "limit"),
        ("status=", "status"),
        ("status=accepted&status=pending", "status"),
        ("algorithm=a%00", "algorithm"),
        ("unknown=%00", "unknown"),
    ],
)
def test_list_parameters_are_checked(client, benchmark, query, field):
    response = client.get(f"/api/benchmarks/toy/submissions/?{query}")
    assert response.status_code == 400, response.content
    assert [p["field"] for p in response.json()["problems"]] == [field]


@pytest.mark.django_db
def test_every_api_status_is_json(client, benchmark, researcher):
    missing = client.get("/api/no/such/thing/")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
    assert "No API endpoint" in missing.json()["detail"]
    not_allowed = client_for(researcher).delete("/api/benchmarks/")
    assert not_allowed.status_code == 405 and "detail" in not_allowed.json()
    unauthenticated = client.post("/api/benchmarks/create/", {}, format="json")
    assert unauthenticated.status_code == 401 and "detail" in unauthenticated.json()


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.django_db
def test_an_unknown_api_url_is_the_json_404_with_debug_on_or_off(client, settings, debug):
    # make dev runs with DEBUG on, where Django answers an unmatched URL with HTML.
    settings.DEBUG = debug
    missing = client.get("/api/no/such/thing/")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
    assert missing.json() == {"detail": "No API endpoint at '/api/no/such/thing/'; see /api/docs/."}
    unknown = client.get("/api/benchmarks/no-such-benchmark/")  # the view's own 404
    assert unknown.status_code == 404 and "detail" in unknown.json()
    page = client.get("/no/such/page/")  # the site's pages keep their HTML 404
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


@pytest.mark.django_db
def test_the_api_root_links_to_where_a_client_starts(client):
    # The address a person types first: "/api" is redirected here (APPEND_SLASH).
    assert client.get("/api").url == "/api/"
    root = client.get("/api/", HTTP_ACCEPT="application/json")
    assert root.status_code == 200
    links = root.json()
    assert links == {
        "benchmarks": "http://testserver/api/benchmarks/",
        "docs": "http://testserver/api/docs/",
        "schema": "http://testserver/api/schema/",
        "contract": "http://testserver/api/contract/",
    }
    for link in links.values():
        assert client.get(link.removeprefix("http://testserver")).status_code == 200


@pytest.mark.django_db
def test_a_crash_is_a_json_500(benchmark, monkeypatch):
    from leaderboard.api import benchmarks

    def crash(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(benchmarks, "benchmark_list_visible", crash)
    response = Client(raise_request_exception=False).get("/api/benchmarks/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Server error; it has been logged."}


@pytest.mark.django_db
def test_a_database_outage_is_a_503_with_retry_after(benchmark, monkeypatch):
    from frontend.readers import views
    from leaderboard import lookups

    def down(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(lookups, "benchmark_get_visible", down)
    monkeypatch.setattr(views, "benchmark_get_visible", down)
    client = Client(raise_request_exception=False)
    api = client.get("/api/benchmarks/toy/snapshots/latest/")
    assert api.status_code == 503 and api["Content-Type"] == "application/json"
    assert api["Retry-After"] == "10" and "temporarily unavailable" in api.json()["detail"]
    page = client.get("/b/toy/")
    assert page.status_code == 503 and page["Retry-After"] == "10"
    assert "Temporarily unavailable" in page.content.decode()


@pytest.mark.django_db
def test_a_stored_submission_is_answered_201_when_the_reread_fails(
    benchmark, researcher, monkeypatch
):
    from leaderboard.api import submissions

    def down(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(submissions, "submission_list_by_ids", down)
    api = client_for(researcher)
    body = {"algorithm": "new", "scores": [{"dataset": "d1", "value": 0.5}]}
    first = api.post(
        "/api/benchmarks/toy/submissions/create/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert first.status_code == 201, first.content
    answer = first.json()
    assert (answer["algorithm"], answer["benchmark"], answer["n_scores"]) == ("new", "toy", 1)
    assert answer["submitter"] == "researcher" and answer["status"] == "pending"
    again = api.post(
        "/api/benchmarks/toy/submissions/create/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert again.status_code == 200 and again.json()["id"] == answer["id"]
    assert Submission.objects.filter(benchmark=benchmark).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("", 400),
        ("not a url", 400),
        ("ftp://example.org/x", 400),
        ("http://例え.jp/", 400),
        ("https://example.org/" + "x" * 200, 400),
        ("https://example.org/paper?id=1", 201),
    ],
)
def test_algorithm_url_is_an_http_uri_or_absent(benchmark, researcher, url, status):
    body = {"algorithm": "a", "algorithm_url": url, "scores": [{"dataset": "d1", "value": 1}]}
    response = client_for(researcher).post(
        "/api/benchmarks/toy/submissions/create/", body, format="json"
    )
    assert response.status_code == status, response.content


@pytest.mark.django_db
def test_the_service_refuses_a_bad_url_from_any_entry_point(benchmark, researcher):
    entry = SubmissionInput(
        algorithm="a", scores=[ScoreInput("d", 0.5)], algorithm_url="javascript:alert(1)"
    )
    with pytest.raises(ValidationFailed, match="algorithm_url"):
        submission_create(benchmark=benchmark, submitter=researcher, entry=entry)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        ("true", "application/json", 400),
        ('{"note": 0}', "application/json", 400),
        ("note=fine", "application/x-www-form-urlencoded", 415),
        ('{"note": "fine"}', "application/json", 200),
    ],
)
def test_decisions_take_a_json_object(benchmark, maintainer, body, content_type, status):
    pending = make_submission(benchmark, "a", {"d": 0.5})
    response = client_for(maintainer).post(
        f"/api/benchmarks/toy/submissions/{pending.pk}/accept/", body, content_type=content_type
    )
    assert response.status_code == status, response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [
        {"algorithm": 0},
        {"allow_new_datasets": 0},
        {"allow_new_datasets": "true"},
        {"note": 1},
        {"scores": {}},
    ],
)
def test_bodies_take_the_documented_types(benchmark, researcher, change):
    body = {"algorithm": "a", "scores": [{"dataset": "d1", "value": 1}], **change}
    response = client_for(researcher).post(
        "/api/benchmarks/toy/submissions/create/", body, format="json"
    )
    assert response.status_code == 400, response.content
    assert [p["field"] for p in response.json()["problems"]] == list(change)


def test_the_cache_fails_open_when_redis_is_away():
    cache = FailOpenRedisCache("redis://127.0.0.1:1/0", {"OPTIONS": {"retry_seconds": 30}})
    assert cache.get("k", "fallback") == "fallback"
    assert cache.is_down  # no further connection attempts for retry_seconds
    cache.set("k", "v")
    assert cache.add("k", "v") is False
    assert cache.get_many(["a", "b"]) == {}
    with pytest.raises(ValueError):
        cache.incr("k")


def test_the_caches_max_timeout_bounds_every_entry():
    bounded = FailOpenRedisCache("redis://127.0.0.1:1/0", {"OPTIONS": {"max_timeout": 60}})
    assert bounded.get_backend_timeout(None) == 60  # "forever"
    assert bounded.get_backend_timeout(14 * 24 * 3600) == 60
    assert bounded.get_backend_timeout(5) == 5
    unbounded = FailOpenRedisCache("redis://127.0.0.1:1/0", {})
    assert unbounded.get_backend_timeout(None) is None


@pytest.mark.django_db
def test_the_schema_documents_every_status(client):
    schema = client.get("/api/schema/?format=json").json()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            assert {"429", "503"} <= codes, (method, path)
            if method == "post":
                assert {"400", "401", "403"} <= codes, (method, path)
            assert "Retry-After" in operation["responses"]["503"]["headers"]
