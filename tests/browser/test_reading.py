"""A reader browses the benchmark list and the three demo leaderboards in a real Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from estimation.core.contract import NotApplicable
from tests.browser import helpers
from tests.browser.helpers import DEMO_SLUGS

PAGES = ("index", *DEMO_SLUGS)


def url_of(site, name: str) -> str:
    if name == "index":
        return site.url("benchmark-index")
    return site.url("benchmark-leaderboard", name)


def test_index_lists_the_demo_benchmarks_with_its_stylesheet(demo_site, page, screenshot):
    css_responses = []
    page.on(
        "response",
        lambda response: css_responses.append(response)
        if response.request.resource_type == "stylesheet"
        else None,
    )
    page.goto(url_of(demo_site, "index"))

    cards = helpers.benchmark_cards(page)
    expect(cards).to_have_count(len(DEMO_SLUGS))
    for slug in DEMO_SLUGS:
        card = page.locator(f"[data-testid=benchmark-card][data-slug={slug}]")
        link = card.locator(f"a[href='{demo_site.path('benchmark-leaderboard', slug)}']")
        expect(link).to_be_visible()

    # The stylesheet is served by the live server (static files through the finders)
    # and the browser applied it.
    assert css_responses, "the page links no stylesheet"
    for response in css_responses:
        assert response.status == 200, response.url
        assert response.headers["content-type"].startswith("text/css"), response.url
    sheets = helpers.stylesheets(page)
    assert sheets and all(sheet["rules"] > 0 for sheet in sheets), sheets
    screenshot(page, "desktop")


@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_leaderboard_shows_the_ranking_intervals_and_notes(demo_site, page, screenshot, slug):
    board = helpers.latest_board(slug)
    algorithms = board.algorithms
    page.goto(url_of(demo_site, slug))

    expect(page.locator("h1")).to_be_visible()
    rows = helpers.leaderboard_rows(page)
    expect(rows).to_have_count(len(algorithms))
    for algorithm in algorithms:
        expect(helpers.leaderboard_row(page, algorithm)).to_have_count(1)

    # Most probable first, under the estimator the table says it shows.
    table = helpers.leaderboard_table(page)
    estimator = table.get_attribute("data-estimator") or board.recommended
    probability = board.column(board.estimator(estimator).p)
    expect(rows.first).to_have_attribute("data-algorithm", max(probability, key=probability.get))

    # One interval bar per algorithm with an interval, drawn inside its cell.
    intervals = board.estimator(estimator).bootstrap
    bars = helpers.interval_bars(page)
    expect(bars).to_have_count(0 if isinstance(intervals, NotApplicable) else len(algorithms))
    boxes = [bars.nth(i).bounding_box() for i in range(bars.count())]
    assert any(box["width"] > 1 for box in boxes), "every interval bar is empty"
    cell = page.locator("[data-testid=cell-interval]").first.bounding_box()
    assert boxes[0]["x"] >= cell["x"] - 1 and boxes[0]["x"] + boxes[0]["width"] <= (
        cell["x"] + cell["width"] + 1
    )

    notes = helpers.leaderboard_notes(page)
    for note in board.notes:
        expect(notes).to_contain_text(note)
    screenshot(page, "desktop")


def test_keyboard_reaches_every_link_with_a_visible_focus(demo_site, page):
    for name in ("index", DEMO_SLUGS[0]):
        page.goto(url_of(demo_site, name))
        wanted = set(
            page.eval_on_selector_all(
                "a[href]",
                "links => links.filter(a => a.offsetParent !== null || a.matches(':focus-within'))"
                ".map(a => a.getAttribute('href'))",
            )
        )
        reached: set[str] = set()
        focused = []
        for _ in range(len(wanted) + 40):
            page.keyboard.press("Tab")
            state = helpers.focus_state(page)
            if state["tag"] == "body":
                break  # wrapped around past the last element
            focused.append(state)
            if state.get("href"):
                reached.add(state["href"])
            if reached >= wanted:
                break
        assert focused, f"{name}: Tab focuses nothing"
        assert focused[0]["tag"] == "a", f"{name}: the first Tab stop is {focused[0]}"
        missing = wanted - reached
        assert not missing, f"{name}: Tab never reaches {sorted(missing)}"
        invisible = [s for s in focused if not (s["focusVisible"] and s["indicator"])]
        assert not invisible, f"{name}: focus without a visible indicator: {invisible}"
        offscreen = [s for s in focused if not s["onScreen"]]
        assert not offscreen, f"{name}: focus on an element not on screen: {offscreen}"

    # Enter on a focused card link opens that leaderboard.
    page.goto(url_of(demo_site, "index"))
    target = demo_site.path("benchmark-leaderboard", DEMO_SLUGS[1])
    for _ in range(40):
        page.keyboard.press("Tab")
        if helpers.focus_state(page).get("href") == target:
            break
    page.keyboard.press("Enter")
    expect(page).to_have_url(demo_site.base_url + target)
    expect(helpers.leaderboard_table(page)).to_be_visible()


def test_phone_width_has_no_sideways_page_scroll(demo_site, phone_page, screenshot):
    for name in PAGES:
        phone_page.goto(url_of(demo_site, name))
        overflow = helpers.horizontal_overflow(phone_page)
        assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, (name, overflow)
        screenshot(phone_page, f"phone-{name}")


def test_pages_load_only_from_this_server_without_errors(demo_site, page, page_log):
    bad_responses = []
    page.on(
        "response",
        lambda response: bad_responses.append(f"{response.status} {response.url}")
        if response.status >= 400
        else None,
    )
    for name in PAGES:
        page.goto(url_of(demo_site, name))
        page.wait_for_load_state("networkidle")
    # Leave a leaderboard open long enough for its scripts to start polling.
    page.wait_for_timeout(1500)

    assert page_log.requests, "no request was recorded"
    foreign = [url for url in page_log.requests if not demo_site.is_own(url)]
    assert foreign == [] and page_log.foreign_requests == []
    assert page_log.console_errors == []
    assert page_log.page_errors == []
    assert bad_responses == []


def test_main_content_is_readable_without_javascript(demo_site, no_js_page):
    page = no_js_page
    page.goto(url_of(demo_site, "index"))
    expect(helpers.benchmark_cards(page)).to_have_count(len(DEMO_SLUGS))
    for slug in DEMO_SLUGS:
        board = helpers.latest_board(slug)
        page.goto(url_of(demo_site, slug))
        expect(helpers.leaderboard_table(page)).to_be_visible()
        expect(helpers.leaderboard_rows(page)).to_have_count(len(board.algorithms))
        for algorithm in board.algorithms:
            expect(helpers.leaderboard_row(page, algorithm)).to_be_visible()
        for note in board.notes:
            expect(helpers.leaderboard_notes(page)).to_contain_text(note)
        expect(helpers.snapshot_version(page).first).to_be_visible()
