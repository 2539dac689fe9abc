"""Conditional GETs (ETag, Last-Modified, 304), the polling status endpoint and gzip."""

import gzip
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from estimation.core.contract import SCHEMA_VERSION
from estimation.models import ResultSnapshot
from tests.api import test_snapshots

BASE = test_snapshots.BASE
computed = test_snapshots.computed  # fixtures shared with the snapshot tests
computing = test_snapshots.computing

pytestmark = pytest.mark.django_db


def reads_a_section(queries) -> bool:
    return any("snapshotsection" in q["sql"] and '"body"' in q["sql"] for q in queries)


def test_latest_has_validators_and_answers_304_without_reading_a_section(client, computed):
    first = client.get(f"{BASE}latest/")
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    assert first["Last-Modified"]
    assert "no-cache" in first["Cache-Control"]
    with CaptureQueriesContext(connection) as queries:
        again = client.get(f"{BASE}latest/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag
    assert not reads_a_section(queries.captured_queries)
    # A weak form of the same tag (what a gzip-ing proxy hands back) matches too.
    assert client.get(f"{BASE}latest/", HTTP_IF_NONE_MATCH=f"W/{etag}").status_code == 304
    modified = client.get(f"{BASE}latest/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert modified.status_code == 304
    assert client.get(f"{BASE}latest/", HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_latest_etag_moves_with_progress_of_a_newer_version(client, computing):
    etag = client.get(f"{BASE}latest/")["ETag"]
    ResultSnapshot.objects.filter(pk=computing.pk).update(progress=0.75)
    response = client.get(f"{BASE}latest/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["computing"]["progress"] == 0.75
    assert response["ETag"] != etag


def test_a_section_answers_304_from_its_etag_and_is_gzipped_once(client, computed):
    url = f"{BASE}latest/sections/wins/"
    first = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert first.status_code == 200 and first["Content-Encoding"] == "gzip"
    plain = client.get(url)
    assert json.loads(gzip.decompress(first.content)) == plain.json()
    assert first["ETag"] == plain["ETag"] and not first["ETag"].startswith("W/")
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, HTTP_IF_NONE_MATCH=plain["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert not reads_a_section(queries.captured_queries)
    with CaptureQueriesContext(connection) as queries:
        cached = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert cached.content == first.content
    assert not reads_a_section(queries.captured_queries)


def test_html_pages_are_gzipped_too(client, computed):
    page = client.get("/b/toy/", HTTP_ACCEPT_ENCODING="gzip")
    assert page.status_code == 200
    assert page["Content-Encoding"] == "gzip"
    assert b"<html" in gzip.decompress(page.content).lower()


def test_a_computing_version_is_served_fresh(client, computing):
    first = client.get(f"{BASE}latest/", HTTP_ACCEPT_ENCODING="gzip")
    assert json.loads(gzip.decompress(first.content))["computing"]["progress"] == 0.5
    ResultSnapshot.objects.filter(pk=computing.pk).update(progress=0.9)
    second = client.get(f"{BASE}latest/", HTTP_ACCEPT_ENCODING="gzip")
    assert json.loads(gzip.decompress(second.content))["computing"]["progress"] == 0.9


def test_status_is_small_and_conditional(client, computing):
    response = client.get(f"{BASE}status/")
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 1
    assert body["newest"]["version"] == 2
    assert body["newest"]["status"] == "computing" and body["newest"]["progress"] == 0.5
    assert len(response.content) < 600
    etag = response["ETag"]
    assert client.get(f"{BASE}status/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    ResultSnapshot.objects.filter(pk=computing.pk).update(stage="tests", progress=0.6)
    moved = client.get(f"{BASE}status/", HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved.json()["newest"]["stage"] == "tests"
    ResultSnapshot.objects.filter(pk=computing.pk).update(
        status=ResultSnapshot.Status.READY, progress=1.0, schema_version=SCHEMA_VERSION
    )
    ready = client.get(f"{BASE}status/", HTTP_IF_NONE_MATCH=moved["ETag"])
    assert ready.status_code == 200 and ready.json()["version"] == 2


def test_status_before_any_result_and_of_a_hidden_benchmark(client, benchmark):
    response = client.get(f"{BASE}status/")
    assert response.status_code == 200
    assert response.json() == {
        "version": None,
        "finished_at": None,
        "newest": None,
        "failure": None,
        "recompute": {
            "state": "idle",
            "reason": "The results served are of the newest input.",
            "unserved_since": None,
            "unserved_seconds": None,
        },
    }
    assert client.get("/api/benchmarks/nope/snapshots/status/").status_code == 404


def test_large_json_is_gzipped_when_asked(client, computed):
    plain = client.get(f"{BASE}latest/")
    assert "Content-Encoding" not in plain
    packed = client.get(f"{BASE}latest/", HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert json.loads(gzip.decompress(packed.content)) == plain.json()
    assert len(packed.content) < len(plain.content)
    # Compressed once and cached: the same strong tag, and no payload read the next time.
    assert packed["ETag"] == plain["ETag"]
    with CaptureQueriesContext(connection) as queries:
        cached = client.get(f"{BASE}latest/", HTTP_ACCEPT_ENCODING="gzip")
    assert cached.content == packed.content
    assert not reads_a_section(queries.captured_queries)
    again = client.get(
        f"{BASE}latest/", HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=packed["ETag"]
    )
    assert again.status_code == 304
