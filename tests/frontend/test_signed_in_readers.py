"""Signed-in readers get the cached board with their own part drawn around it
(frontend/page_cache.py, frontend/page_shell.py), and nobody's part reaches anyone else.

Two signed-in readers and an anonymous one read the same pages in every order: each
answer holds its reader's own name and CSRF token and nobody else's, the board is the
same bytes for all three, and after the first reader no board template is rendered
again (the renders and queries are counted)."""

from __future__ import annotations

import itertools
import re
import uuid

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.signals import template_rendered
from django.test.utils import CaptureQueriesContext

from frontend.page_regions import regions_replaced
from frontend.page_shell import MESSAGES, PAGE_ACTIONS, SITE_NAV
from leaderboard.models import Benchmark
from tests.factories import cache_clear_own, make_benchmark, make_user
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db

SHELL_PAGES = ["/b/{slug}/", "/b/{slug}/v1/", "/b/{slug}/charts/"]
SAME_FOR_EVERYONE = [
    "/b/{slug}/board/",
    "/b/{slug}/v1/board/",
    "/b/{slug}/v1/export.csv",
    "/b/{slug}/v1/export.json",
    "/b/{slug}/embed/",
]
TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def board():
    benchmark = make_benchmark("shared")
    store_snapshot(benchmark, large_payload(5))
    return benchmark


@pytest.fixture
def readers():
    """Two signed-in readers (Ada maintains the board) and an anonymous one."""
    ada, bob = make_user("ada-maintainer"), make_user("bob-reader")
    Benchmark.objects.get(slug="shared").maintainers.add(ada)
    clients = {"ada-maintainer": Client(), "bob-reader": Client(), "anonymous": Client()}
    clients["ada-maintainer"].force_login(ada)
    clients["bob-reader"].force_login(bob)
    return clients


class Renders:
    """The templates rendered and the queries made while the block runs."""

    def __enter__(self):
        self.templates: list[str] = []
        template_rendered.connect(self._rendered)
        self._queries = CaptureQueriesContext(connection).__enter__()
        return self

    def _rendered(self, sender, template, **kwargs):
        self.templates.append(template.name)

    def __exit__(self, *exc):
        template_rendered.disconnect(self._rendered)
        self._queries.__exit__(*exc)

    @property
    def queries(self) -> int:
        return len(self._queries)


def _without_regions(body: bytes) -> bytes:
    """The page with the inside of every reader's region taken out: the shared part."""
    for name in (SITE_NAV, PAGE_ACTIONS, MESSAGES):
        body = re.sub(
            rf"<!--podium:{name}-->.*?<!--/podium:{name}-->".encode(), b"", body, flags=re.S
        )
    return body


def _secrets(name: str, client: Client, body: bytes) -> tuple[list[bytes], list[bytes]]:
    """What this reader's page shows of them (their name, the CSRF token of their log-out
    form), and what nobody else's answer may hold: that, and their CSRF cookie's
    secret."""
    if name == "anonymous":
        return [], []
    found = TOKEN.findall(body)
    assert len(found) == 1, name  # the log-out form
    shown = [name.encode(), found[0]]
    return shown, [*shown, client.cookies[settings.CSRF_COOKIE_NAME].value.encode()]


@pytest.mark.parametrize("page", SHELL_PAGES)
@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_each_reader_sees_their_own_part_and_nobody_elses(board, readers, page, order):
    path = page.format(slug=board.slug)
    names = list(readers)
    bodies = {}
    for index in order:
        name = names[index]
        response = readers[name].get(path)
        assert response.status_code == 200, name
        bodies[name] = response.content
    secrets = {name: _secrets(name, readers[name], bodies[name]) for name in names}
    for name, body in bodies.items():
        for own in secrets[name][0]:
            assert own in body
        for other, (_, theirs) in secrets.items():
            if other != name:
                for secret in theirs:
                    assert secret not in body, (name, other, secret)
    shared = {_without_regions(body) for body in bodies.values()}
    assert len(shared) == 1  # the board is the same bytes for the three
    if path == f"/b/{board.slug}/":  # the maintainer's links (cached per reader) are Ada's
        assert b'data-testid="edit-link"' in bodies["ada-maintainer"]
        assert b'data-testid="edit-link"' not in bodies["bob-reader"]
        assert b'data-testid="edit-link"' not in bodies["anonymous"]


def _give_message(client: Client, text: str) -> None:
    """A message for the reader of ``client``, as a view's redirect leaves it (the
    messages cookie)."""
    from django.contrib.messages import constants
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.http import HttpRequest, HttpResponse

    storage = CookieStorage(HttpRequest())
    storage.add(constants.SUCCESS, text)
    response = HttpResponse()
    storage.update(response)
    client.cookies[storage.cookie_name] = response.cookies[storage.cookie_name].value


def test_a_readers_messages_show_on_the_cached_board_to_them_alone_and_once(board, readers):
    readers["anonymous"].get("/b/shared/")  # the anonymous entry exists: readers get shells
    _give_message(readers["bob-reader"], "Stored bob-algorithm; waiting for review.")
    bob = readers["bob-reader"].get("/b/shared/")
    assert b"Stored bob-algorithm" in bob.content
    region = re.search(rb"<!--podium:messages-->(.*?)<!--/podium:messages-->", bob.content, re.S)
    assert region is not None and b"Stored bob-algorithm" in region.group(1)
    assert "private" in bob["Cache-Control"]
    for name in ("ada-maintainer", "anonymous", "bob-reader"):  # Bob's is used up
        assert b"Stored bob-algorithm" not in readers[name].get("/b/shared/").content, name
    # A message arriving before anything is cached is not stored with the board either.
    cache_clear_own()  # the page entries with the rest of this process's keys
    _give_message(readers["ada-maintainer"], "Stored ada-algorithm.")
    assert b"Stored ada-algorithm" in readers["ada-maintainer"].get("/b/shared/").content
    for name in ("bob-reader", "anonymous", "ada-maintainer"):
        assert b"Stored ada-algorithm" not in readers[name].get("/b/shared/").content, name


def test_the_maintainer_alone_gets_the_maintainer_links(board, readers):
    bodies = {name: client.get("/b/shared/").content for name, client in readers.items()}
    assert b'data-testid="edit-link"' in bodies["ada-maintainer"]
    assert b'data-testid="moderation-link"' in bodies["ada-maintainer"]
    for name in ("bob-reader", "anonymous"):
        assert b'data-testid="edit-link"' not in bodies[name]
        assert b"/b/shared/moderation/" not in bodies[name]


def test_a_closed_benchmark_offers_submitting_to_its_maintainer_only(board, readers):
    board.submission_policy = "closed"
    board.save()
    bodies = {name: client.get("/b/shared/").content for name, client in readers.items()}
    assert b'data-testid="submit-link"' in bodies["ada-maintainer"]
    assert b'data-testid="submit-link"' not in bodies["bob-reader"]
    assert b'data-testid="submit-link"' not in bodies["anonymous"]


@pytest.mark.parametrize("page", SHELL_PAGES)
def test_after_the_first_reader_no_board_is_rendered(board, readers, page):
    path = page.format(slug=board.slug)
    with Renders() as first:
        readers["ada-maintainer"].get(path)
    assert len(first.templates) > 3  # the page, made once (anonymously) and stored
    for name in ("bob-reader", "ada-maintainer"):
        with Renders() as again:
            response = readers[name].get(path)
        assert response.status_code == 200
        regions = {
            "frontend/_site_nav.html",
            "frontend/readers/_page_actions.html",
            "frontend/accounts/_messages.html",
        }
        # the reader's regions (the navigation's pattern is drawn once a process), no board
        assert set(again.templates) <= regions
        # the user (the session is read from the cache), and on a reader's first
        # leaderboard whether they maintain something and this board
        assert again.queries <= 3, name
        assert "private" in response["Cache-Control"]
        assert "ETag" not in response and "Last-Modified" not in response
    with Renders() as anonymous:
        readers["anonymous"].get(path)
    assert anonymous.templates == [] and anonymous.queries == 0


@pytest.mark.parametrize("page", SAME_FOR_EVERYONE)
def test_pages_without_a_reader_part_are_the_anonymous_entry(board, readers, page):
    path = page.format(slug=board.slug)
    first = readers["bob-reader"].get(path)
    assert first.status_code == 200
    for name, client in readers.items():
        with Renders() as hit:
            response = client.get(path)
        assert (hit.templates, hit.queries) == ([], 0), name
        assert response.content == first.content and response["ETag"] == first["ETag"]
        assert b"bob-reader" not in response.content and not response.cookies


def test_a_private_board_is_read_through_the_view_every_time(board, readers):
    board.visibility = Benchmark.Visibility.PRIVATE
    board.title = "Secret board of Ada"
    board.save()
    for page in SHELL_PAGES + SAME_FOR_EVERYONE:
        path = page.format(slug=board.slug)
        for _ in range(2):
            with Renders() as rendered:
                response = readers["ada-maintainer"].get(path)
            assert response.status_code == 200, path
            assert rendered.queries > 3, path  # the view, which checks the reader
        for name in ("bob-reader", "anonymous"):
            response = readers[name].get(path)
            assert response.status_code == 404, (name, path)
            assert b"Secret board" not in response.content


def test_a_board_made_private_stops_being_served_to_signed_in_readers(board, readers):
    for page in SHELL_PAGES + SAME_FOR_EVERYONE:
        assert readers["bob-reader"].get(page.format(slug=board.slug)).status_code == 200
    board.visibility = Benchmark.Visibility.PRIVATE
    board.save()
    for page in SHELL_PAGES + SAME_FOR_EVERYONE:
        path = page.format(slug=board.slug)
        assert readers["bob-reader"].get(path).status_code == 404, path
        assert readers["ada-maintainer"].get(path).status_code == 200, path


def test_regions_are_replaced_in_page_order_and_a_missing_one_gives_none():
    page = (
        b"<h1>board</h1><!--podium:site-nav-->anon nav<!--/podium:site-nav-->"
        b"<p>rows</p><!--podium:page-actions-->links<!--/podium:page-actions-->end"
    )
    mine = regions_replaced(page, {SITE_NAV: "my nav", PAGE_ACTIONS: "my links"})
    assert mine == (
        b"<h1>board</h1><!--podium:site-nav-->my nav<!--/podium:site-nav-->"
        b"<p>rows</p><!--podium:page-actions-->my links<!--/podium:page-actions-->end"
    )
    assert regions_replaced(page, {SITE_NAV: "my nav"}) is not None
    assert regions_replaced(b"<p>no regions</p>", {SITE_NAV: "my nav"}) is None
    unclosed = b"<!--podium:site-nav-->anon nav"
    assert regions_replaced(unclosed, {SITE_NAV: "my nav"}) is None
    assert regions_replaced(page, {SITE_NAV: ""}) == (  # "" is a drawing too
        b"<h1>board</h1><!--podium:site-nav--><!--/podium:site-nav-->"
        b"<p>rows</p><!--podium:page-actions-->links<!--/podium:page-actions-->end"
    )


def test_a_reader_who_maintains_nothing_costs_no_maintainer_query(board, readers):
    readers["anonymous"].get("/b/shared/")  # the anonymous entry exists
    readers["bob-reader"].get("/b/shared/")  # what Bob maintains is now known
    with Renders() as again:
        response = readers["bob-reader"].get("/b/shared/")
    assert b"bob-reader" in response.content
    assert again.queries == 0  # his user, his session and what he maintains: all cached


def test_a_maintainer_known_to_maintain_the_board_costs_no_maintainer_query(board, readers):
    readers["anonymous"].get("/b/shared/")
    readers["ada-maintainer"].get("/b/shared/")  # what Ada maintains, and this board, known
    for _ in range(2):
        with Renders() as again:
            response = readers["ada-maintainer"].get("/b/shared/")
        assert b'data-testid="edit-link"' in response.content
        assert again.queries == 0  # her user copy too (frontend/accounts/user_copies.py)


def test_a_cleared_list_of_maintainers_shows_on_the_next_page(board, readers):
    from django.contrib.auth import get_user_model

    ada = get_user_model().objects.get(username="ada-maintainer")
    readers["anonymous"].get("/b/shared/")
    assert b'data-testid="edit-link"' in readers["ada-maintainer"].get("/b/shared/").content
    board.maintainers.clear()
    assert b'data-testid="edit-link"' not in readers["ada-maintainer"].get("/b/shared/").content
    board.maintainers.add(ada)
    assert b'data-testid="edit-link"' in readers["ada-maintainer"].get("/b/shared/").content
    ada.maintained_benchmarks.clear()
    assert b'data-testid="edit-link"' not in readers["ada-maintainer"].get("/b/shared/").content


def test_a_superuser_gets_the_maintainer_links_from_the_next_page(board, readers):
    from django.contrib.auth import get_user_model

    bob = get_user_model().objects.get(username="bob-reader")
    readers["anonymous"].get("/b/shared/")
    assert b'data-testid="edit-link"' not in readers["bob-reader"].get("/b/shared/").content
    bob.is_superuser = True
    bob.save()
    assert b'data-testid="edit-link"' in readers["bob-reader"].get("/b/shared/").content
    bob.is_superuser = False
    bob.save()
    assert b'data-testid="edit-link"' not in readers["bob-reader"].get("/b/shared/").content


def test_becoming_or_ceasing_to_be_a_maintainer_shows_on_the_next_page(board, readers):
    from django.contrib.auth import get_user_model

    bob = get_user_model().objects.get(username="bob-reader")
    other = make_benchmark("other")
    readers["anonymous"].get("/b/shared/")
    assert b'data-testid="edit-link"' not in readers["bob-reader"].get("/b/shared/").content
    board.maintainers.add(bob)
    assert b'data-testid="edit-link"' in readers["bob-reader"].get("/b/shared/").content
    board.maintainers.remove(bob)
    assert b'data-testid="edit-link"' not in readers["bob-reader"].get("/b/shared/").content
    bob.maintained_benchmarks.add(other)  # maintaining another board shows nothing here
    assert b'data-testid="edit-link"' not in readers["bob-reader"].get("/b/shared/").content
    bob.maintained_benchmarks.add(board)
    assert b'data-testid="edit-link"' in readers["bob-reader"].get("/b/shared/").content


@pytest.mark.parametrize("page", SHELL_PAGES)
def test_a_cookie_of_no_session_gets_the_anonymous_page_as_it_stands(board, readers, page):
    path = page.format(slug=board.slug)
    anonymous = readers["anonymous"].get(path)
    stale = Client()
    key = f"no-such-session-{uuid.uuid4().hex}"
    stale.cookies[settings.SESSION_COOKIE_NAME] = key
    with Renders() as again:
        response = stale.get(path)
    assert response.status_code == 200
    assert response.content == anonymous.content
    assert again.templates == []  # not even the navigation: the entry's is theirs
    assert again.queries == 1  # the session asked for, and not found
    again_stale = Client()  # a client that keeps sending it (a browser drops it)
    again_stale.cookies[settings.SESSION_COOKIE_NAME] = key
    with Renders() as later:  # the key remembered as absent (config/sessions.py)
        assert again_stale.get(path).content == anonymous.content
    assert later.queries == 0
    assert "private" in response["Cache-Control"]
    # Django's session middleware deletes the cookie of no session; no other cookie
    assert set(response.cookies) == {settings.SESSION_COOKIE_NAME}
    assert response.cookies[settings.SESSION_COOKIE_NAME].value == ""
