"""The reader's table in Chromium, at desktop and phone sizes, with and without
JavaScript: search, a metadata filter and the column chooser, all through the URL."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import make_pythia_board

SIZES = {
    "desktop": {"viewport": {"width": 1366, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


@pytest.fixture
def pythia_site(live_server):
    make_pythia_board()
    return live_server


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("size", SIZES)
def test_search_filter_and_columns_at_both_sizes(
    pythia_site, new_page, screenshot, size, javascript
):
    page = new_page(**SIZES[size], java_script_enabled=javascript)
    page.goto(f"{pythia_site.url}/b/pythia/")
    rows = page.locator("[data-testid=leaderboard-row]")
    expect(rows).to_have_count(3)
    page.locator("[data-testid=reader-table] summary").click()
    page.locator("[data-testid=filter-q]").fill("pythia")
    page.locator("[data-testid=filter-size-min]").fill("300M")
    page.locator("[data-testid=column-parameters]").check()
    page.locator("[data-testid=column-borda]").uncheck()
    page.locator("[data-testid=filter-apply]").click()
    page.wait_for_url("**q=pythia**")
    assert "size_min=300M" in page.url and "cols=" in page.url and "parameters" in page.url
    expect(rows).to_have_count(2)
    expect(page.locator("[data-testid=filter-note]")).to_contain_text("Showing 2 of 3 algorithms")
    expect(page.locator("[data-testid=col-borda]")).to_have_count(0)
    parameters = page.locator("[data-testid=col-parameters]")
    expect(parameters).to_have_count(1)
    if size == "desktop":
        expect(parameters).to_be_visible()
        expect(page.locator("[data-testid=cell-parameters]").first).to_have_text("1.01B")
    # Nothing of the form or the note is wider than the screen.
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {size} screen"
    box = page.locator("[data-testid=table-filter]").bounding_box()
    assert (
        box is not None
        and box["x"] >= 0
        and box["x"] + box["width"] <= SIZES[size]["viewport"]["width"] + 1
    )
    screenshot(page, f"filtered-{'js' if javascript else 'no-js'}")
    # A sort keeps the filter and the columns (a link, on the server).
    page.locator("[data-testid=sort-algorithm]").click()
    page.wait_for_url("**sort=algorithm**")
    assert "q=pythia" in page.url and "parameters" in page.url
    expect(rows).to_have_count(2)
    # Clear brings every row back.
    if page.locator("[data-testid=reader-table] summary").is_visible():
        details_open = page.locator("[data-testid=reader-table]").get_attribute("open")
        if details_open is None:
            page.locator("[data-testid=reader-table] summary").click()
    page.locator("[data-testid=filter-clear]").click()
    expect(rows).to_have_count(3)


@pytest.mark.parametrize("size", SIZES)
def test_precision_and_open_weights_filters_from_the_form(pythia_site, new_page, size):
    """The lm-eval files give each model's precision; open weights set here on two."""
    from leaderboard.models import Algorithm

    algorithms = Algorithm.objects.filter(benchmark__slug="pythia")
    algorithms.filter(name="EleutherAI/pythia-1b").update(open_weights=True)
    algorithms.filter(name="EleutherAI/pythia-160m").update(open_weights=True, precision="8bit")
    page = new_page(**SIZES[size])
    page.goto(f"{pythia_site.url}/b/pythia/")
    rows = page.locator("[data-testid=leaderboard-row]")
    expect(rows).to_have_count(3)
    page.locator("[data-testid=reader-table] summary").click()
    page.locator("[data-testid=filter-precision]").select_option("float16")
    page.locator("[data-testid=filter-open-weights]").select_option("yes")
    page.locator("[data-testid=column-open_weights]").check()
    page.locator("[data-testid=filter-apply]").click()
    page.wait_for_url("**precision=float16**")
    assert "open_weights=yes" in page.url
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-algorithm", "EleutherAI/pythia-1b")
    if size == "desktop":
        expect(page.locator("[data-testid=cell-open-weights]").first).to_have_text("yes")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the {size} screen"
