"""Per-dataset score columns in Chromium, at desktop and phone sizes, with and without
JavaScript: chosen in the column chooser, kept in the URL, sorted on the server."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_reader_table import SIZES
from tests.factories import make_mteb_board
from tests.frontend.test_readers_support import computed_benchmark, refresh, submit


@pytest.fixture
def mteb_site(live_server):
    make_mteb_board()
    return live_server


def _numbers(page, testid: str) -> list[float]:
    return [float(t) for t in page.locator(f"[data-testid=cell-{testid}]").all_text_contents()]


def _sort(page, site, size: str) -> None:
    link = page.locator("[data-testid=sort-dataset-1]")
    if size == "desktop":
        link.click()
    else:
        page.goto(site.url + link.get_attribute("href"))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("size", SIZES)
def test_dataset_columns_at_both_sizes(mteb_site, new_page, screenshot, size, javascript):
    page = new_page(**SIZES[size], java_script_enabled=javascript)
    page.goto(f"{mteb_site.url}/b/mteb/")
    rows = page.locator("[data-testid=leaderboard-row]")
    expect(rows).to_have_count(3)
    page.locator("[data-testid=reader-table] summary").click()
    boxes = page.get_by_test_id("filter-ds-option")
    options = page.locator("#filter-ds .dataset-label").all_text_contents()
    assert len(options) >= 2
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.locator("[data-testid=filter-apply]").click()
    page.wait_for_url("**ds=**")
    assert page.url.count("ds=") == 2
    header = page.locator("[data-testid=col-dataset-1]")
    expect(header).to_have_count(1)
    expect(page.locator("[data-testid=col-dataset-2]")).to_have_count(1)
    expect(page.locator("[data-testid=cell-dataset-1]")).to_have_count(3)
    if size == "desktop":
        expect(header).to_be_visible()
        expect(header).to_contain_text(options[0])
    else:  # on a phone a dataset column is in each row's details
        page.locator("[data-testid=row-details] summary").first.click()
        expect(
            page.locator("[data-testid=row-details] dt", has_text=options[0]).first
        ).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {size} screen"
    screenshot(page, f"dataset-columns-{'js' if javascript else 'no-js'}")
    # Sorting by the dataset's column: best first (higher is better), kept in the URL. A
    # phone hides the secondary headers (their cells are in the details): follow the link.
    _sort(page, mteb_site, size)
    page.wait_for_url("**sort=dataset_1**")
    assert page.url.count("ds=") == 2
    expect(page.locator("[data-testid=col-dataset-1]")).to_have_attribute("aria-sort", "descending")
    values = _numbers(page, "dataset-1")
    assert values == sorted(values, reverse=True) and len(values) == 3
    _sort(page, mteb_site, size)
    page.wait_for_url("**order=asc**")
    values = _numbers(page, "dataset-1")
    assert values == sorted(values)


def _latest_version(benchmark) -> int:
    from estimation.models import ResultSnapshot

    return (
        ResultSnapshot.objects.filter(benchmark=benchmark, status=ResultSnapshot.Status.READY)
        .latest("version")
        .version
    )


def _alpha_on_d1(page) -> str:
    row = page.locator("[data-testid=leaderboard-row][data-algorithm=alpha]")
    return row.locator("[data-testid=cell-dataset-1]").text_content().strip()


@pytest.mark.parametrize("size", SIZES)
def test_a_version_page_shows_the_scores_its_analysis_ranked(
    live_server, new_page, screenshot, size
):
    benchmark = computed_benchmark("kept")  # alpha scored 0.9 on d1
    before = _latest_version(benchmark)
    submit(benchmark, "alpha", {"d1": 0.35})  # a later accepted submission changes it
    refresh(benchmark)
    after = _latest_version(benchmark)
    assert after > before
    page = new_page(**SIZES[size])
    page.goto(f"{live_server.url}/b/kept/v{before}/?ds=d1")
    expect(page.locator("[data-testid=col-dataset-1]")).to_have_count(1)
    assert _alpha_on_d1(page) == "0.900"
    title = page.locator("[data-testid=col-dataset-1]").get_attribute("title")
    assert "this version's analysis ranked" in title
    if size == "phone":  # the dataset's cell is in the row's details
        row = page.locator("[data-testid=leaderboard-row][data-algorithm=alpha]")
        row.locator("[data-testid=row-details] summary").click()
        entry = row.locator("[data-testid=row-details] div", has=page.locator("dt", has_text="d1"))
        expect(entry.locator("dd")).to_have_text("0.900")
        expect(entry.locator("dd")).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {size} screen"
    screenshot(page, "version-dataset-column")
    page.goto(f"{live_server.url}/b/kept/v{after}/?ds=d1")
    assert _alpha_on_d1(page) == "0.350"
    page.goto(f"{live_server.url}/b/kept/?ds=d1")
    assert _alpha_on_d1(page) == "0.350"
