"""The reader pages' cache (frontend/page_cache.py): anonymous answers from one cache
read, conditional GETs, dropped by a new snapshot version, never a private benchmark's."""

from __future__ import annotations

import gzip

import brotli
import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.models import Algorithm, Benchmark
from tests.factories import make_benchmark, make_user
from tests.frontend.test_readers_support import large_payload, store_snapshot, submit

pytestmark = pytest.mark.django_db

PAGES = [
    "/b/{slug}/",
    "/b/{slug}/board/",
    "/b/{slug}/v1/",
    "/b/{slug}/v1/board/",
    "/b/{slug}/v1/export.csv",
    "/b/{slug}/v1/export.json",
    "/b/{slug}/charts/",
    "/b/{slug}/embed/",
    "/b/{slug}/badge/algo-000.svg",
]


@pytest.fixture
def board():
    benchmark = make_benchmark("cached")
    store_snapshot(benchmark, large_payload(5))
    submit(benchmark, "algo-000", {"d00": 0.5})  # an accepted algorithm: its badge
    return benchmark


def _queries(client, path: str, **headers):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, headers=headers)
    return response, len(queries)


@pytest.mark.parametrize("page", PAGES)
def test_a_second_anonymous_request_is_one_cache_read(client, board, page):
    path = page.format(slug=board.slug)
    first, _ = _queries(client, path)
    assert first.status_code == 200
    second, queries = _queries(client, path)
    assert queries == 0
    assert second.status_code == 200
    assert second.content == first.content
    assert second["ETag"] == first["ETag"]
    for header in ("Content-Type", "Cache-Control", "X-Frame-Options", "X-Robots-Tag"):
        assert second.get(header) == first.get(header), header
    # a conditional GET: 304 by ETag (weakly compared) and by date
    again, queries = _queries(client, path, if_none_match=f"W/{first['ETag']}")
    assert again.status_code == 304 and queries == 0
    assert again["ETag"] == first["ETag"]
    dated, _ = _queries(client, path, if_modified_since=first["Last-Modified"])
    assert dated.status_code == 304


def test_compressed_bodies_are_the_same_page(client, board):
    plain = client.get("/b/cached/").content
    zipped = client.get("/b/cached/", headers={"accept_encoding": "gzip"})
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content) == plain
    assert zipped["ETag"].startswith("W/")
    br = client.get("/b/cached/", headers={"accept_encoding": "gzip, br"})
    assert br["Content-Encoding"] == "br"
    assert brotli.decompress(br.content) == plain
    assert "Accept-Encoding" in br["Vary"]


def test_a_new_version_drops_every_cached_page(client, board):
    before = {page: client.get(page.format(slug="cached")) for page in PAGES}
    before = {page.replace("{slug}", "cached"): answer for page, answer in before.items()}
    store_snapshot(board, large_payload(6), version=2)
    page = client.get("/b/cached/")
    assert page.status_code == 200
    assert page["ETag"] != before["/b/cached/"]["ETag"]
    assert b"algo-005" in page.content and b"algo-005" not in before["/b/cached/"].content
    assert client.get("/b/cached/v2/export.csv").status_code == 200
    stale = client.get("/b/cached/", headers={"if_none_match": before["/b/cached/"]["ETag"]})
    assert stale.status_code == 200
    badge = client.get("/b/cached/badge/algo-000.svg")
    assert badge.content != before["/b/cached/badge/algo-000.svg"].content  # v2 on it


def test_an_algorithm_edit_drops_its_badge(client, board):
    first = client.get("/b/cached/badge/algo-000.svg").content
    algorithm = Algorithm.objects.get(benchmark=board, name="algo-000")
    algorithm.version = "9.9.9"
    algorithm.save()
    assert b"9.9.9" in client.get("/b/cached/badge/algo-000.svg").content
    assert b"9.9.9" not in first


@pytest.mark.parametrize("visibility", ["private", "unlisted"])
def test_a_benchmark_not_public_is_never_cached(client, board, visibility):
    board.visibility = visibility
    board.save()
    maintainer = make_user("keeper")
    board.maintainers.add(maintainer)
    client.force_login(maintainer)
    for page in PAGES:
        assert client.get(page.format(slug="cached")).status_code == 200, page
    client.logout()
    client.cookies.clear()
    for page in PAGES:
        path = page.format(slug="cached")
        response, queries = _queries(client, path)
        if visibility == "private":
            assert response.status_code == 404, page
        assert queries > 0, page  # rendered, not read from a cache
        response, queries = _queries(client, path)
        assert queries > 0, page


def test_a_page_cached_while_public_is_gone_once_private(client, board):
    for page in PAGES:
        assert client.get(page.format(slug="cached")).status_code == 200
    Benchmark.objects.get(pk=board.pk).save()  # nothing changed: still public
    board.visibility = Benchmark.Visibility.PRIVATE
    board.save()
    for page in PAGES:
        assert client.get(page.format(slug="cached")).status_code == 404, page


def test_a_reader_with_a_session_gets_the_cached_board_with_their_own_nav(client, board):
    """A session reads the entry and draws only the reader's part (the view does not run:
    tests/frontend/test_signed_in_readers.py)."""
    anonymous = client.get("/b/cached/")
    client.cookies[settings.SESSION_COOKIE_NAME] = "no-session"
    response, queries = _queries(client, "/b/cached/")
    assert queries <= 2 and response.status_code == 200
    assert response.content == anonymous.content  # no one signed in: the same page
    assert "private" in response["Cache-Control"] and "ETag" not in response


def test_the_embed_keeps_its_framing_rules_from_the_cache(client, board):
    url = reverse("embed-leaderboard", kwargs={"slug": "cached"})
    first = client.get(url)
    second = client.get(url)
    assert "frame-ancestors *" in second["Content-Security-Policy"]
    assert second["Content-Security-Policy"] == first["Content-Security-Policy"]
    assert "X-Frame-Options" not in second
    page = client.get("/b/cached/")
    page = client.get("/b/cached/")
    assert page["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]


BADGE = "/b/cached/badge/algo-000.svg"


def test_a_reader_with_a_session_gets_the_badge_from_the_cache(client, board):
    """The badge is the same bytes for every reader of a public benchmark: a session (or
    a token) does not send it to the view."""
    anonymous = client.get(BADGE)
    client.cookies[settings.SESSION_COOKIE_NAME] = "no-session"
    response, queries = _queries(client, BADGE)
    assert queries == 0 and response.status_code == 200
    assert response.content == anonymous.content and response["ETag"] == anonymous["ETag"]
    assert response.cookies == {}  # no session was touched
    _, queries = _queries(client, BADGE, authorization="Token nothing")
    assert queries == 0


def test_a_private_benchmarks_badge_is_rendered_for_its_maintainer(client, board):
    board.visibility = Benchmark.Visibility.PRIVATE
    board.save()
    maintainer = make_user("badge-keeper")
    board.maintainers.add(maintainer)
    client.force_login(maintainer)
    for _ in range(2):
        response, queries = _queries(client, BADGE)
        assert response.status_code == 200 and queries > 0
        assert "private" in response["Cache-Control"]
    client.logout()
    client.cookies.clear()
    assert client.get(BADGE).status_code == 404


def test_a_conditional_hit_is_the_304_of_the_entry(client, board):
    first = client.get(BADGE)
    response, queries = _queries(client, BADGE, if_none_match=f'"x", {first["ETag"]}')
    assert response.status_code == 304 and queries == 0 and response.content == b""
    for header in ("ETag", "Cache-Control", "Last-Modified", "Vary"):
        assert response[header] == first[header], header
    assert "Content-Type" not in response
    assert response["Content-Security-Policy"] == first["Content-Security-Policy"]
    # If-None-Match decides alone: another tag is a 200, whatever If-Modified-Since says.
    other, _ = _queries(
        client, BADGE, if_none_match='"other"', if_modified_since=first["Last-Modified"]
    )
    assert other.status_code == 200 and other.content == first.content
    star, _ = _queries(client, BADGE, if_none_match="*")
    assert star.status_code == 304
