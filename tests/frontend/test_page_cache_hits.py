"""What a page-cache hit skips and what it keeps (a badge as cheap as a static file):
no session, authentication or view; the same headers as the rendered answer;
a request naming another host never gets an entry made for an allowed one."""

from __future__ import annotations

import pytest
from django.test import override_settings

from tests.factories import make_benchmark
from tests.frontend.test_readers_support import large_payload, store_snapshot, submit

pytestmark = pytest.mark.django_db

BADGE = "/b/hits/badge/algo-000.svg"
KEPT = (
    "Content-Type",
    "Cache-Control",
    "Content-Security-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-Frame-Options",
    "ETag",
)


@pytest.fixture
def board():
    benchmark = make_benchmark("hits")
    store_snapshot(benchmark, large_payload(5))
    submit(benchmark, "algo-000", {"d00": 0.5})
    return benchmark


@pytest.mark.parametrize("page", [BADGE, "/b/hits/", "/b/hits/v1/export.csv"])
def test_a_hit_answers_before_sessions_and_the_view(client, board, page):
    rendered = client.get(page)
    assert hasattr(rendered.wsgi_request, "session")  # the first went down the chain
    hit = client.get(page)
    assert hit.status_code == 200 and hit.content == rendered.content
    assert not hasattr(hit.wsgi_request, "session")
    assert not hasattr(hit.wsgi_request, "user")
    assert hit.wsgi_request.resolver_match is None  # no URL resolution, no view
    for header in KEPT:
        assert hit.get(header) == rendered.get(header), header
    assert "Accept-Encoding" in hit["Vary"]
    assert hit["Last-Modified"]


def test_a_hit_with_if_none_match_is_a_304_with_its_validators(client, board):
    first = client.get(BADGE)
    again = client.get(BADGE, headers={"if_none_match": first["ETag"]})
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["Content-Security-Policy"] == first["Content-Security-Policy"]
    other = client.get(BADGE, headers={"if_none_match": '"not-this-one"'})
    assert other.status_code == 200 and other.content == first.content


def test_another_host_never_gets_the_entry_of_an_allowed_one(client, board):
    assert client.get(BADGE).status_code == 200
    assert client.get(BADGE).wsgi_request.resolver_match is None  # cached
    refused = client.get(BADGE, headers={"host": "evil.example"})
    assert refused.status_code == 400


@override_settings(ALLOWED_HOSTS=["testserver", "mirror.example"])
def test_each_allowed_host_has_its_own_entry(client, board):
    """Pages can print absolute URLs (an export's permalink): one host's body is not
    served to another."""
    here = client.get("/b/hits/v1/export.json")
    there = client.get("/b/hits/v1/export.json", headers={"host": "mirror.example"})
    assert there.wsgi_request.resolver_match is not None  # rendered, not the first's entry
    assert b"mirror.example" in there.content and b"mirror.example" not in here.content
    again = client.get("/b/hits/v1/export.json", headers={"host": "mirror.example"})
    assert again.wsgi_request.resolver_match is None and again.content == there.content
