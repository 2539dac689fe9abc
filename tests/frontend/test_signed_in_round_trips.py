"""A signed-in reader's cached page: how many times it asks Redis and the database.
The page's entry and the reader's session come in one round trip (config/sessions.py),
the reader's user and whether they maintain anything in a second
(frontend/accounts/user_copies.py, frontend/page_shell.py), and nothing else."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from redis.client import Redis

from tests.factories import make_benchmark, make_user
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db


@contextmanager
def redis_commands():
    """The commands sent to Redis while the block runs (each one round trip)."""
    sent: list[str] = []
    real = Redis.execute_command

    def counted(self, *args, **options):
        sent.append(str(args[0]))
        return real(self, *args, **options)

    Redis.execute_command = counted
    try:
        yield sent
    finally:
        Redis.execute_command = real


@pytest.mark.parametrize("page", ["/b/shared/charts/", "/b/shared/"])
def test_a_signed_in_page_asks_redis_twice_and_the_database_never(page):
    store_snapshot(make_benchmark("shared"), large_payload(5))
    Client().get(page)  # the anonymous entry
    reader = Client()
    reader.force_login(make_user("bob-reader"))
    reader.get(page)  # his user copied, what he maintains known
    with redis_commands() as sent, CaptureQueriesContext(connection) as queries:
        response = reader.get(page)
    assert response.status_code == 200 and b"bob-reader" in response.content
    assert len(queries) == 0
    # the entry with the session; the user with (on the board) what he maintains
    assert sent == ["MGET", "MGET"]


def test_a_body_that_is_not_the_heads_is_never_drawn_around():
    """The head names its body by hash: a process without the body reads the identity
    entry, and one of another body (replaced since the head was read) is not served."""
    from dataclasses import replace

    from django.test import RequestFactory

    from frontend import page_cache

    store_snapshot(make_benchmark("shared"), large_payload(5))
    Client().get("/b/shared/")  # the entries, the head among them
    reader = Client()
    reader.force_login(make_user("bob-reader"))
    key = page_cache._entry_key(
        "shared", page_cache._request_identity(RequestFactory().get("/b/shared/")), ""
    )
    entry = page_cache.pages_cache.get(key)
    assert isinstance(entry, page_cache.PageEntry) and entry.digest
    forged = b"<p>not this page</p><!--podium:site-nav--><!--/podium:site-nav-->"
    page_cache.pages_cache.set(key, replace(entry, body=forged, digest="another"), 600)
    page_cache._cut_pages.clear()  # this process holds no body
    response = reader.get("/b/shared/")
    assert response.status_code == 200 and b"bob-reader" in response.content
    assert b"not this page" not in response.content
