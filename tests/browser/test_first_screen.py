"""The first screen of a leaderboard: at a laptop's 1366x900 and a phone's
390x844 the verdict's two sentences and the first rows of the table are visible without
scrolling, the rest of the verdict waits behind "more", and no cell draws over another."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.helpers import DEMO_SLUGS, SIZES

FIRST_ROWS = 3

# Cells whose content is wider than the cell itself (drawn over the next one), and cells
# whose box crosses the next cell's: what "overprints" means in a table row.
OVERPRINTS = """rows => rows.flatMap(row => {
    const cells = [...row.children].filter(c => c.getClientRects().length);
    const out = [];
    cells.forEach((cell, k) => {
        if (cell.scrollWidth > cell.clientWidth + 1)
            out.push(`${row.dataset.algorithm}: ${cell.dataset.testid || 'name'} overflows`);
        for (const child of cell.querySelectorAll('*')) {
            const box = child.getBoundingClientRect(), own = cell.getBoundingClientRect();
            if (box.width && (box.right > own.right + 1 || box.left < own.left - 1))
                out.push(`${row.dataset.algorithm}: ${child.className.baseVal ?? child.className}`
                    + ` in ${cell.dataset.testid || 'name'} leaves its cell`);
        }
    });
    return out;
})"""


def _bottom(locator) -> float:
    box = locator.bounding_box()
    assert box is not None, "not rendered"
    return box["y"] + box["height"]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_the_answer_and_the_first_rows_are_on_the_first_screen(
    demo_site, new_page, screenshot, slug, size
):
    page = new_page(**SIZES[size])
    height = SIZES[size]["viewport"]["height"]
    page.goto(demo_site.url("benchmark-leaderboard", slug))
    lead = page.locator("[data-testid=verdict-lead]")
    expect(lead).to_be_visible()
    shown = [lead]
    second = page.locator("[data-testid=verdict-second]")
    if second.count():
        expect(second).to_be_visible()
        shown.append(second)
    rows = helpers.leaderboard_rows(page)
    n = min(FIRST_ROWS, rows.count())
    assert n >= 1
    shown += [rows.nth(k) for k in range(n)]
    screenshot(page, "first-screen", full_page=False)
    for locator in shown:
        assert _bottom(locator) <= height, f"{size}: below the first screen"
    # at most two sentences show; anything more is in a closed <details>
    verdict = page.locator("[data-testid=verdict]")
    assert verdict.locator("p:visible").count() <= 2
    more = page.locator("[data-testid=verdict-more]")
    if more.count():
        assert more.get_attribute("open") is None
        more.locator("summary").click()
        expect(more.locator("p").first).to_be_visible()
    problems = rows.evaluate_all(OVERPRINTS)
    assert not problems, problems
    # the row's visible cells fit the screen and the table's frame: nothing hides behind
    # a sideways scroll
    cut = rows.first.evaluate(
        """row => {
            const edge = Math.min(window.innerWidth,
                                  row.closest('.table-wrap').getBoundingClientRect().right);
            return [...row.children].filter(c => c.getClientRects().length)
                .filter(c => c.getBoundingClientRect().right > edge + 1)
                .map(c => c.dataset.testid || 'name');
        }"""
    )
    assert not cut, f"{size}: cut off at the right edge: {cut}"
    assert helpers.horizontal_overflow(page)["scrollWidth"] <= SIZES[size]["viewport"]["width"]


def test_the_first_screen_without_javascript(demo_site, new_page):
    """The "more" of the verdict is a plain <details>: it opens without a script."""
    page = new_page(viewport={"width": 1366, "height": 900}, java_script_enabled=False)
    page.goto(demo_site.url("benchmark-leaderboard", "demsar-2006"))
    rows = helpers.leaderboard_rows(page)
    assert _bottom(rows.first) <= 900
    more = page.locator("[data-testid=verdict-more]")
    expect(more.locator("p").first).to_be_hidden()
    more.locator("summary").click()
    expect(more.locator("p").first).to_be_visible()
