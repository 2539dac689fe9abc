"""Junk query strings cannot fill the page cache or evict counters with it.

The review sent anonymous requests with junk query strings: each forced a full render
and stored three codings (~105 KiB) for 600 s in the Redis that also held the broker,
the throttles and allauth's limits; 220 of them evicted the sign-up limit's counter.
Now pages are keyed by the parameters readers' views read (others are dropped), misses
are limited per address, and entries go to a cache of their own. Real Redis.
"""

from __future__ import annotations

import pytest
import redis
from django.conf import settings
from django.test import Client

from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


def _page_keys(alias: str) -> list[bytes]:
    """The page entries under ``alias``'s Redis and key prefix (the default's if there is
    no such alias, as before the page cache had one)."""
    config = settings.CACHES.get(alias, settings.CACHES["default"])
    client = redis.Redis.from_url(config["LOCATION"])
    return list(client.scan_iter(match=f"{config['KEY_PREFIX']}:*:page:*", count=1000))


@pytest.fixture
def board():
    benchmark = make_benchmark("open-board")
    make_submission(benchmark, "alpha", {"d1": 0.9, "d2": 0.8})
    return benchmark


@pytest.fixture
def miss_rate(settings):
    def set_rate(rate: str | None) -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {
                **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                "page_miss": rate,
            },
        }

    return set_rate


def test_junk_query_parameters_share_one_entry(board):
    reader = Client()
    first = reader.get("/b/open-board/", HTTP_ACCEPT_ENCODING="gzip")
    assert first.status_code == 200
    stored = len(_page_keys("pages"))
    assert stored >= 1
    for i in range(30):
        junk = reader.get(f"/b/open-board/?utm_source=x{i}&_={i}", HTTP_ACCEPT_ENCODING="gzip")
        assert junk.status_code == 200
        assert junk.content == first.content
        assert b"utm_source" not in junk.content
    assert len(_page_keys("pages")) == stored
    # The parameters a reader's page reads still make pages of their own, in any order.
    assert reader.get("/b/open-board/?sort=name&order=asc").status_code == 200
    before = len(_page_keys("pages"))
    assert reader.get("/b/open-board/?order=asc&junk=1&sort=name").status_code == 200
    assert len(_page_keys("pages")) == before


def test_anonymous_misses_are_limited_per_address(board, miss_rate):
    miss_rate("5/minute")
    reader = Client()
    answers = [reader.get(f"/b/open-board/?page={i}").status_code for i in range(1, 11)]
    assert answers == [200] * 5 + [429] * 5
    refused = reader.get("/b/open-board/?page=99")
    assert 0 < int(refused["Retry-After"]) <= 60
    # A hit costs no render and is never refused; another address has its own budget.
    assert reader.get("/b/open-board/?page=1").status_code == 200
    assert Client(REMOTE_ADDR="192.0.2.9").get("/b/open-board/?page=42").status_code == 200


def test_pages_are_kept_apart_from_the_counters(board, settings):
    # Give the page cache a key space of its own, as a Redis of its own would be.
    pages = {
        **settings.CACHES["pages"],
        "KEY_PREFIX": settings.CACHES["pages"]["KEY_PREFIX"] + "-p",
    }
    settings.CACHES = {**settings.CACHES, "pages": pages}
    assert Client().get("/b/open-board/").status_code == 200
    assert _page_keys("pages")
    assert not _page_keys("default")
