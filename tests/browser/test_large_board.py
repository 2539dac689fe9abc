"""A leaderboard of 250 algorithms: 100 rows a page, moved through in place (fragments
swapped by leaderboard.js) and by plain links without JavaScript; "show all" shows all."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser import helpers

M, N = 250, 6


@functools.cache
def payload():
    """A real analysis of M x N generated scores (short bootstrap: the page is under test)."""
    from estimation.core.analysis import AnalysisSettings, analyze
    from estimation.core.table import ResultTable

    rng = np.random.default_rng(11)
    values = rng.normal(size=M)[None, :] * 0.5 + rng.normal(size=(N, M))
    table = ResultTable(
        datasets=tuple(f"task-{i}" for i in range(N)),
        algorithms=tuple(f"model-{j:03d}" for j in range(M)),
        values=values,
    )
    return analyze(table, AnalysisSettings(bootstrap=20, evaluation_repeats=1)).payload


@pytest.fixture
def large_site(empty_site):
    from tests.factories import make_benchmark
    from tests.frontend.test_readers_support import store_snapshot

    store_snapshot(make_benchmark("large"), payload())
    return empty_site


def positions(page) -> list[str]:
    return page.locator("[data-testid=cell-position]").all_inner_texts()


def continue_from(texts: list[str], start: int) -> bool:
    """Positions of rows ``start, start+1, ...``: each its place, or (a tie, shown "=k")
    the place of the first row of its tie, never decreasing."""
    values = [int(text.lstrip("=")) for text in texts]
    return values == sorted(values) and all(
        value == place or (text.startswith("=") and value < place)
        for place, (text, value) in enumerate(zip(texts, values, strict=True), start=start)
    )


def test_large_board_pages_in_place_and_shows_all(
    large_site, page, phone_page, page_log, screenshot
):
    page.goto(large_site.url("benchmark-leaderboard", "large"))
    rows = helpers.leaderboard_rows(page)
    expect(rows).to_have_count(100)
    status = page.get_by_test_id("board-page-status")
    expect(status).to_have_text("1–100 of 250 (page 1 of 3)")
    first_page = rows.evaluate_all("rows => rows.map(r => r.dataset.algorithm)")
    page.evaluate("() => { window.__sameDocument = true; }")
    screenshot(page, "page-1")

    page.get_by_test_id("board-page-next").click()
    expect(status).to_have_text("101–200 of 250 (page 2 of 3)")
    expect(page).to_have_url(re.compile(r"[?&]page=2\b"))
    assert continue_from(positions(page), 101)
    second_page = rows.evaluate_all("rows => rows.map(r => r.dataset.algorithm)")
    assert not set(first_page) & set(second_page)
    # focus stays on the control that was used, so the keyboard can go on paging
    expect(page.get_by_test_id("board-page-next")).to_be_focused()

    expect(page.get_by_test_id("board-page-last")).to_have_count(0)  # "next" is the last
    page.get_by_test_id("board-page-next").click()
    expect(status).to_have_text("201–250 of 250 (page 3 of 3)")
    expect(rows).to_have_count(50)

    page.get_by_test_id("board-show-all").click()
    expect(rows).to_have_count(M)
    expect(status).to_have_text(f"All {M} algorithms")
    assert continue_from(positions(page), 1) and len(positions(page)) == M
    expect(page).to_have_url(re.compile(r"[?&]all=1\b"))

    # Another estimator keeps "show all" and re-sorts all M rows in place.
    other = next(
        key
        for key in ("mle", "borda", "plackett_luce")
        if key != helpers.leaderboard_table(page).get_attribute("data-estimator")
    )
    page.get_by_test_id(f"estimator-option-{other}").click()
    expect(helpers.leaderboard_table(page)).to_have_attribute("data-estimator", other)
    expect(rows).to_have_count(M)
    shown = [
        float(text) for text in page.locator("[data-testid=cell-probability]").all_inner_texts()
    ]
    assert shown == sorted(shown, reverse=True)

    page.get_by_test_id("board-show-pages").click()
    expect(rows).to_have_count(100)
    expect(status).to_have_text("1–100 of 250 (page 1 of 3)")
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
    fragments = [url for url in page_log.requests if "/b/large/board/" in url]
    assert len(fragments) == 5, fragments  # next, next, all, estimator, per page

    phone_page.goto(large_site.url("benchmark-leaderboard", "large", page="2"))
    expect(helpers.leaderboard_rows(phone_page)).to_have_count(100)
    assert helpers.horizontal_overflow(phone_page)["widest"] == []
    screenshot(phone_page, "phone-page-2")


def test_large_board_pages_without_javascript(large_site, no_js_page):
    no_js_page.goto(large_site.url("benchmark-leaderboard", "large"))
    expect(helpers.leaderboard_rows(no_js_page)).to_have_count(100)
    no_js_page.get_by_test_id("board-page-next").click()
    expect(no_js_page).to_have_url(large_site.url("benchmark-leaderboard", "large", page="2"))
    assert continue_from(positions(no_js_page), 101)
    no_js_page.get_by_test_id("board-show-all").click()
    expect(helpers.leaderboard_rows(no_js_page)).to_have_count(M)
