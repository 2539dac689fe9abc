"""The reader's table in Chromium at a laptop's and a phone's size, on the TabZilla demo
(18 algorithms typed by the study, 104 datasets keyed ``openml__<name>__<id>``): the
dataset chooser searched by the datasets' own names with a keyboard, a table wider than
its frame that says so, and a search that keeps focus and announces what it found."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import SIZES, leaderboard_row, leaderboard_rows
from tests.factories import cache_clear_own

BOARD = "tabzilla-accuracy-log-loss"
# Every optional column and six datasets: wider than a laptop's screen.
WIDE = urlencode(
    [("cols", "p_best,win_rate,mean_score,mean_rank,significance_rank,borda,plackett_luce,family")]
    + [
        ("ds", name)
        for name in (
            "openml__Australian__146818",
            "openml__MiceProtein__146800",
            "openml__SpeedDating__146607",
            "openml__adult-census__3953",
            "openml__anneal__2867",
            "openml__arrhythmia__5",
        )
    ]
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    # The algorithms' metadata is cached per benchmark id and results version, and the
    # cache outlives the test database: an earlier test's board with the demo's ids
    # would answer for it.
    cache_clear_own()


def _open_filter(page) -> None:
    summary = page.locator("[data-testid=reader-table] summary")
    summary.focus()
    page.keyboard.press("Enter")  # a <details> opens by keyboard
    expect(page.get_by_test_id("table-filter")).to_be_visible()


def _focused(page) -> dict:
    return page.evaluate(
        "() => ({testid: document.activeElement.getAttribute('data-testid'),"
        " value: document.activeElement.value || ''})"
    )


@pytest.mark.parametrize("size", SIZES)
def test_the_dataset_chooser_finds_datasets_by_their_names_with_a_keyboard(
    demo_site, new_page, screenshot, size
):
    page = new_page(**SIZES[size])
    page.goto(demo_site.url("benchmark-leaderboard", BOARD))
    _open_filter(page)
    labels = page.locator("#filter-ds .dataset-label").all_text_contents()
    assert len(labels) == 104 and "Australian" in labels
    assert not [label for label in labels if "__" in label]  # no raw keys shown
    search = page.get_by_test_id("filter-ds-search")
    expect(search).to_be_visible()
    search.focus()
    page.keyboard.type("austral")
    shown = page.locator("#filter-ds > li:visible")
    expect(shown).to_have_count(1)
    expect(shown).to_contain_text("Australian")
    expect(page.get_by_test_id("filter-ds-count")).to_have_text("1 of 104 datasets")
    page.keyboard.press("Enter")  # narrows the list; does not apply the form
    assert "ds=" not in page.url
    page.keyboard.press("Tab")
    assert _focused(page) == {"testid": "filter-ds-option", "value": "openml__Australian__146818"}
    page.keyboard.press("Space")
    # a second one by its OpenML id (the detail beside the name)
    search.fill("")
    search.focus()
    page.keyboard.type("3953")
    expect(shown).to_have_count(1)
    expect(shown).to_contain_text("adult-census")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    expect(page.get_by_test_id("filter-ds-none")).to_be_hidden()
    search.fill("no such dataset")  # a search that finds nothing says so
    search.dispatch_event("input")
    expect(page.get_by_test_id("filter-ds-none")).to_be_visible()
    expect(shown).to_have_count(0)
    page.get_by_test_id("filter-apply").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**ds=openml__adult-census__3953**")
    assert "ds=openml__Australian__146818" in page.url
    expect(page.get_by_test_id("col-dataset-1")).to_have_count(1)
    expect(page.locator("[data-testid=sort-dataset-1]")).to_have_count(1)
    headers = page.locator("[data-testid^=col-dataset-]").all_text_contents()
    assert [h.strip() for h in headers] == ["Australian", "adult-census"]
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {size} screen"
    screenshot(page, "dataset-chooser")


def _wrap_state(page) -> dict:
    return page.evaluate(
        """() => {
            const wrap = document.getElementById('leaderboard-table-wrap');
            return {extra: wrap.scrollWidth - wrap.clientWidth,
                    overflow: wrap.getAttribute('data-overflow'),
                    describedby: wrap.getAttribute('aria-describedby')};
        }"""
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_table_wider_than_its_frame_says_so_and_keeps_the_names_in_view(
    demo_site, new_page, screenshot, size
):
    page = new_page(**SIZES[size])
    page.goto(demo_site.url("benchmark-leaderboard", BOARD) + "?" + WIDE)
    hint = page.get_by_test_id("table-scroll-hint")
    wrap = page.get_by_test_id("table-wrap")
    if size == "phone":
        # a phone moves the extra columns into each row's details: nothing to scroll
        assert _wrap_state(page)["extra"] <= 1
        expect(hint).to_be_hidden()
        # a table that grows wider (a long name, a larger font) says so at once
        page.evaluate("document.getElementById('leaderboard-table').style.minWidth = '900px'")
    expect(hint).to_be_visible()
    state = _wrap_state(page)
    assert state["extra"] > 1 and state["overflow"] == "right"
    assert state["describedby"] == "table-scroll-hint"
    screenshot(page, "table-overflow", full_page=False)
    # scrolled by keyboard (the frame takes focus), the name column stays in view
    wrap.focus()
    for _ in range(60):
        page.keyboard.press("ArrowRight")
    expect(wrap).to_have_attribute("data-overflow", "left")
    row = leaderboard_row(page, "CatBoost")
    name = row.locator("th.algorithm").bounding_box()
    frame = wrap.bounding_box()
    assert name is not None and frame is not None
    assert abs(name["x"] - frame["x"]) <= 1, (name, frame)
    expect(row.locator("th.algorithm a")).to_be_visible()
    screenshot(page, "table-overflow-scrolled", full_page=False)


@pytest.mark.parametrize("size", SIZES)
def test_a_search_keeps_focus_in_the_box_and_announces_what_it_found(
    demo_site, new_page, screenshot, size
):
    page = new_page(**SIZES[size])
    page.goto(demo_site.url("benchmark-leaderboard", BOARD))
    rows = leaderboard_rows(page)
    expect(rows).to_have_count(18)
    _open_filter(page)
    status = page.get_by_test_id("table-results-status")
    search = page.get_by_test_id("filter-q")
    search.focus()
    page.keyboard.type("boost")
    page.keyboard.press("Enter")
    expect(status).to_have_text("2 results.")
    expect(rows).to_have_count(2)  # CatBoost and XGBoost
    assert "q=boost" in page.url
    assert _focused(page) == {"testid": "filter-q", "value": "boost"}
    page.keyboard.press("Control+A")
    page.keyboard.type("no such learner")
    page.keyboard.press("Enter")
    expect(status).to_have_text("No results.")
    expect(rows).to_have_count(0)
    assert _focused(page)["testid"] == "filter-q"
    # the study's own families (TabZilla's alg_type) filter the board
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    page.get_by_test_id("filter-family").select_option("gradient-boosted trees")
    page.get_by_test_id("filter-apply").click()
    expect(status).to_have_text("3 results.")
    expect(rows).to_have_count(3)
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.algorithm)")) == [
        "CatBoost",
        "LightGBM",
        "XGBoost",
    ]
    screenshot(page, "search-announced")


@pytest.mark.parametrize("size", SIZES)
def test_without_javascript_a_search_lands_in_the_box_with_its_count(demo_site, new_page, size):
    page = new_page(**SIZES[size], java_script_enabled=False)
    page.goto(demo_site.url("benchmark-leaderboard", BOARD, q="boost"))
    expect(leaderboard_rows(page)).to_have_count(2)
    assert _focused(page)["testid"] == "filter-q"  # autofocus: the reader is where they were
    expect(page.get_by_test_id("filter-q-results")).to_have_text("2 results")
    assert page.get_by_test_id("filter-q").get_attribute("aria-describedby") == "filter-q-results"


@pytest.mark.parametrize("size", SIZES)
def test_the_open_chooser_a_wide_table_and_a_search_have_no_serious_violations(
    demo_site, new_page, size
):
    from tests.browser.test_accessibility import harmful_violations

    page = new_page(**SIZES[size])
    page.goto(demo_site.url("benchmark-leaderboard", BOARD) + "?" + WIDE + "&q=o")
    expect(page.get_by_test_id("filter-ds-search")).to_be_visible()  # the form is open
    page.get_by_test_id("filter-ds-search").fill("credit")
    page.get_by_test_id("filter-ds-search").dispatch_event("input")
    assert not harmful_violations(page)
