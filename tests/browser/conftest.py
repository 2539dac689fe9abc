"""Real-browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

Every test here is marked ``browser``. The pieces, each a fixture:

* ``browser``: one headless Chromium (``/usr/bin/chromium``, installed by
  ``scripts/ensure_browser.sh``) for the whole ``tests/browser`` package;
* ``demo_site``: the live server (a thread serving the app against the test PostgreSQL
  database) with the demo benchmarks and their ready snapshots loaded;
* ``page`` (desktop, 1280x900), ``phone_page`` (375x740, mobile), ``no_js_page``
  (JavaScript off) and ``new_page(**context_options)`` for anything else; each page
  records its requests, console errors and uncaught exceptions in ``page_log``, refuses
  (and records) every request to a host other than the live server, and every
  Content-Security-Policy violation (a ``securitypolicyviolation`` event or the browser's
  CSP console error), and a test fails at teardown if any such request, violation or
  error happened (``page_log.allow_console_errors()`` opts a test out of the console
  part, never out of the CSP part);
* ``screenshot(page, name)``: a full-page PNG at ``var/screenshots/<test>-<name>.png``;
  ``PODIUM_SCREENSHOTS=0`` turns them off;
* ``log_in(page, user)``: a Django session for ``user`` in the page's browser context;
* ``celery_worker`` (tests/conftest.py): a real Celery worker over Redis, for live updates.

A new flow is usually a few lines::

    def test_something(demo_site, page, screenshot):
        page.goto(demo_site.url("benchmark-leaderboard", "demsar-2006"))
        expect(page.get_by_role("table").first).to_contain_text("C4.5+m+cf")
        screenshot(page, "leaderboard")
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browser.helpers import DEMO_SLUGS

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PODIUM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT_DIR = Path(os.environ.get("PODIUM_SCREENSHOT_DIR", ROOT / "var" / "screenshots"))
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}
# How long a step may wait (a page's load, an element to appear): not a measure of speed
# (that is bench's), so wide enough for a machine at load 20, where a page took over 10 s.
TIMEOUT_MS = 60_000
# URL schemes that never leave the browser.
LOCAL_SCHEMES = ("data", "blob", "about", "chrome-error")
# Reports every Content-Security-Policy violation of a page to the test (Playwright adds it
# to each document outside the page's CSP, before the page's own markup is parsed).
CSP_LISTENER = """
document.addEventListener('securitypolicyviolation', (e) => {
    window.podiumCspViolation(`${e.effectiveDirective} refused ${e.blockedURI || 'inline'}`
        + ` at ${e.sourceFile || document.URL}:${e.lineNumber}: ${e.sample || ''}`);
}, true);
"""
# How Chromium words the console error of a violation.
CSP_CONSOLE = re.compile(r"Content Security Policy", re.IGNORECASE)

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


# --- the browser ------------------------------------------------------------------------


@pytest.fixture(scope="package")
def browser() -> Iterator:
    """One headless Chromium for every test of this package.

    Package scope, not session scope: between calls, Playwright's sync API marks an
    asyncio loop as running in the test thread, and Django then refuses ORM calls from
    that thread (``SynchronousOnlyOperation``). The browser tests make no ORM call from
    async code, so the guard is switched off (``DJANGO_ALLOW_ASYNC_UNSAFE``) exactly
    while the browser lives, and the rest of the suite runs with it on.
    """
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.fail("Playwright is not installed: pip install -r requirements-dev.txt")
    expect.set_options(timeout=TIMEOUT_MS)  # its assertions wait as long as a page may
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"no Chromium at {CHROMIUM}: run scripts/ensure_browser.sh (or `make test`)")
    with mock.patch.dict(os.environ, {"DJANGO_ALLOW_ASYNC_UNSAFE": "true"}):
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            yield chromium
            chromium.close()


# --- the app and its data ---------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    """The live server's address, and its URLs by name."""

    base_url: str

    def path(self, name: str, *args, **query) -> str:
        from urllib.parse import urlencode

        from django.urls import reverse

        return reverse(name, args=args) + (f"?{urlencode(query)}" if query else "")

    def url(self, name: str, *args, **query) -> str:
        return self.base_url + self.path(name, *args, **query)

    def is_own(self, url: str) -> bool:
        parts = urlsplit(url)
        own = urlsplit(self.base_url)
        return parts.scheme in LOCAL_SCHEMES or (parts.hostname, parts.port) == (
            own.hostname,
            own.port,
        )


@pytest.fixture(scope="session")
def demo_fixture_file(django_db_setup, django_db_blocker, tmp_path_factory) -> Path:
    """The demo benchmarks with ready snapshots, as a loaddata fixture; built once.

    ``leaderboard.demo.demo_load`` imports them through the services, and
    ``estimation.services.recompute_run`` computes their snapshots here, synchronously
    (the recompute the services would queue is not sent). The rows are dumped and the
    tables emptied again. Every live-server test starts and ends with an empty database,
    so each loads the dump (``load_rows``: a fraction of a second, against seconds for
    the import and the analysis).
    """
    from django.core.management import call_command

    from estimation.services import recompute_run
    from leaderboard.demo import demo_load

    path = tmp_path_factory.mktemp("browser-demo") / "demo.json"
    with django_db_blocker.unblock():
        with mock.patch("estimation.tasks.recompute_benchmark"):
            benchmarks = demo_load()
        assert [b.slug for b in benchmarks] == list(DEMO_SLUGS), "demo set changed?"
        for benchmark in benchmarks:
            recompute_run(benchmark_id=benchmark.pk, owner="browser-tests")
        call_command("dumpdata", "leaderboard", "estimation", output=str(path), verbosity=0)
        call_command("flush", interactive=False, verbosity=0)
    return path


@pytest.fixture
def demo_site(live_server, demo_fixture_file) -> Site:
    """The live server with the demo benchmarks and their ready snapshots."""
    load_rows(demo_fixture_file)
    return Site(live_server.url)


def load_rows(path: Path) -> None:
    """``loaddata``, in bulk and under new primary keys.

    One INSERT per table (loaddata saves row by row, ~10x slower). The rows get fresh
    ids from the sequences, with their foreign keys remapped, so that no id is ever
    reused within a run: a cache keyed by id (snapshots' extracts) must never see the
    same id with other content.
    """
    from django.core import serializers
    from django.db import transaction

    from leaderboard.models import Dataset, ScorePack

    by_model: dict[type, list] = {}
    many_to_many = []
    for row in serializers.deserialize("json", path.read_text(encoding="utf-8")):
        by_model.setdefault(type(row.object), []).append(row.object)
        if row.m2m_data:
            many_to_many.append(row)
    new_pk: dict[tuple[type, object], object] = {}

    def foreign_keys(model):
        return [
            f for f in model._meta.concrete_fields if f.is_relation and f.related_model in by_model
        ]

    def depends_on(model) -> set[type]:
        # A score pack names its datasets by key, inside the row: they come first.
        named = {Dataset} if model is ScorePack else set()
        return {f.related_model for f in foreign_keys(model)} | named

    pending = list(by_model)
    with transaction.atomic():
        while pending:
            ready = [
                model
                for model in pending
                if all(parent not in pending or parent is model for parent in depends_on(model))
            ]
            assert ready, f"circular foreign keys between {pending}"
            for model in ready:
                pending.remove(model)
                instances = by_model[model]
                old_pks = [obj.pk for obj in instances]
                for obj in instances:
                    for f in foreign_keys(model):
                        old = getattr(obj, f.attname)
                        if old is not None:
                            setattr(obj, f.attname, new_pk[(f.related_model, old)])
                    if model is ScorePack:
                        obj.datasets = [new_pk[(Dataset, key)] for key in obj.datasets]
                        # new keys follow the old ones' order (one bulk INSERT, by key)
                        assert obj.datasets == sorted(obj.datasets)
                    if not model._meta.pk.is_relation:
                        obj.pk = None
                model.objects.bulk_create(instances)
                new_pk.update(
                    {(model, old): obj.pk for old, obj in zip(old_pks, instances, strict=True)}
                )
        for row in many_to_many:
            for name, values in row.m2m_data.items():
                target = row.object._meta.get_field(name).related_model
                getattr(row.object, name).set([new_pk.get((target, v), v) for v in values])


@pytest.fixture
def empty_site(live_server) -> Site:
    """The live server on an empty database."""
    return Site(live_server.url)


# --- pages ------------------------------------------------------------------------------


@dataclass
class PageLog:
    """What the pages of one test did: requests, refused requests, errors."""

    requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    check_console: bool = True

    def allow_console_errors(self) -> None:
        self.check_console = False

    def problems(self) -> list[str]:
        found = [f"request to another host: {url}" for url in self.foreign_requests]
        found += [f"Content-Security-Policy violation: {text}" for text in self.csp_violations]
        if self.check_console:
            found += [f"console error: {text}" for text in self.console_errors]
            found += [f"uncaught exception: {text}" for text in self.page_errors]
        return found


@pytest.fixture
def page_log() -> PageLog:
    return PageLog()


@pytest.fixture
def new_page(request, browser, page_log) -> Iterator[Callable]:
    """``new_page(**context_options)``: a page in a fresh browser context (own cookies).

    The live server must be running (any of the ``*_site`` fixtures) before a page
    goes anywhere; requests elsewhere are aborted and recorded.
    """
    contexts = []

    def open_page(**options):
        options.setdefault("viewport", DESKTOP)
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        site = Site(request.getfixturevalue("live_server").url)

        def route(route):
            if site.is_own(route.request.url):
                route.continue_()
            else:
                page_log.foreign_requests.append(route.request.url)
                route.abort()

        context.route("**/*", route)
        context.expose_function(
            "podiumCspViolation", lambda text: page_log.csp_violations.append(text)
        )
        context.add_init_script(CSP_LISTENER)
        page = context.new_page()
        page.on("request", lambda req: page_log.requests.append(req.url))
        page.on("console", lambda msg: record_console(page_log, msg))
        page.on("pageerror", lambda exc: page_log.page_errors.append(str(exc)))
        return page

    yield open_page
    for context in contexts:
        context.close()
    problems = page_log.problems()
    if problems and not getattr(request.node, "rep_call_failed", False):
        pytest.fail("the pages of this test misbehaved:\n  " + "\n  ".join(problems))


def record_console(page_log: PageLog, msg) -> None:
    text = f"{msg.text} ({msg.location})"
    # A refused frame (frame-ancestors) is the framed page's policy at work against a
    # foreign parent, not markup of ours breaking the policy: an ordinary console error.
    if CSP_CONSOLE.search(msg.text) and "frame-ancestors" not in msg.text:
        page_log.csp_violations.append(text)
    elif msg.type == "error":
        page_log.console_errors.append(text)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when in ("setup", "call"):
        # Failed, skipped or xfailed: the teardown check would only add noise.
        item.rep_call_failed = not report.passed or hasattr(report, "wasxfail")
    return report


@pytest.fixture
def page(new_page):
    """A desktop page (1280x900)."""
    return new_page()


@pytest.fixture
def phone_page(new_page):
    """A phone page: 375x740 CSS pixels, mobile viewport rules, touch."""
    return new_page(viewport=PHONE, is_mobile=True, has_touch=True)


@pytest.fixture
def no_js_page(new_page):
    """A desktop page with JavaScript switched off."""
    return new_page(java_script_enabled=False)


# --- helpers ----------------------------------------------------------------------------


def screenshots_enabled() -> bool:
    return os.environ.get("PODIUM_SCREENSHOTS", "1").lower() not in ("0", "false", "no", "off")


@pytest.fixture
def screenshot(request) -> Callable:
    """``screenshot(page, name)``: save a full-page PNG (``full_page=False``: the viewport
    alone, what a reader sees first); returns its path (None when off)."""
    test_name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name).strip("-")

    def save(page, name: str, *, full_page: bool = True) -> Path | None:
        if not screenshots_enabled():
            return None
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOT_DIR / f"{test_name}-{name}.png"
        # Chromium refuses a capture while a navigation is committing ("Unable to capture
        # screenshot"): wait for the page to load, and try once more if it still refuses.
        page.wait_for_load_state("load")
        try:
            page.screenshot(path=str(path), full_page=full_page)
        except PlaywrightError:
            page.wait_for_load_state("load")
            page.screenshot(path=str(path), full_page=full_page)
        return path

    return save


@pytest.fixture
def log_in(live_server) -> Callable:
    """``log_in(page, user)``: give the page's browser context a session of ``user``."""

    def log_in_as(page, user) -> None:
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        page.context.add_cookies(
            [{"name": cookie.key, "value": cookie.value, "url": live_server.url}]
        )

    return log_in_as
