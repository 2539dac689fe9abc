"""No chart's text overprints another's (a reported defect): tick labels of the x and y axes where
they meet at a corner, bar labels under an axis, axis titles, in every chart of the
charts, algorithm, dataset and head-to-head pages, at desktop and phone sizes."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import DEMO_SLUGS
from tests.browser.test_reader_layout import CLIPPED_BY_SVG, DESKTOP, PHONE

# Per chart: pairs of its text elements whose boxes cross (rendered by Chromium).
SVG_OVERLAPS = """() => [...document.querySelectorAll('figure svg')].flatMap(svg => {
  const key = (svg.closest('figure') || svg).getAttribute('data-testid') || svg.id || '?';
  // turned labels (a grid's column names) are left out: their boxes are not their glyphs
  const boxes = [...svg.querySelectorAll('text')].filter(e => !e.closest('[transform*=rotate]'))
    .map(e => [e.textContent, e.getBoundingClientRect()])
    .filter(([, b]) => b.width > 0);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [ta, a] = boxes[i], [tb, b] = boxes[j];
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
      out.push(`${key}: "${ta.slice(0, 30)}" overlaps "${tb.slice(0, 30)}"`);
  }
  return out;
})"""


def _pages(page, site, slug: str) -> list[str]:
    """The charts page, the leader's algorithm page, the first dataset's page and the
    head-to-head page of the first two."""
    page.goto(site.url("benchmark-leaderboard", slug))
    rows = page.locator("[data-testid=leaderboard-row]")
    first, second = (rows.nth(k).get_attribute("data-algorithm") for k in range(2))
    dataset = page.locator("a[href*='/datasets/']").first.get_attribute("href")
    return [
        site.url("explore-charts", slug),
        site.url("explore-algorithm", slug, first),
        site.base_url + dataset,
        site.url("compare-pair", slug, first, second),
    ]


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_no_chart_text_overprints(demo_site, new_page, screenshot, size, slug):
    page = new_page(viewport=DESKTOP if size == "desktop" else PHONE, is_mobile=size == "phone")
    found = []
    for url in _pages(page, demo_site, slug):
        page.goto(url)
        expect(page.locator("body")).to_be_visible()
        found += [f"{url}: {o}" for o in page.evaluate(SVG_OVERLAPS)]
        found += [f"{url}: {o}" for o in page.evaluate(CLIPPED_BY_SVG, "figure svg")]
    screenshot(page, f"{slug}-head-to-head")
    assert found == [], "\n".join(found)


@pytest.fixture
def large_site(empty_site):
    """130 algorithms on 12 datasets, imported and analysed here: the sizes at which bars
    get narrow and the axes' first labels meet at the corners."""
    from bench.common import score_matrix_import
    from estimation.services import snapshot_refresh

    rng = np.random.default_rng(28)
    values = rng.normal(size=130)[None, :] * 0.3 + rng.normal(size=(12, 130))
    benchmark = score_matrix_import(
        values,
        algorithm="model-{:03d}",
        dataset="task-{:02d}",
        slug="wide",
        title="Wide",
        bootstrap_size=100,
    )
    snapshot_refresh(benchmark_id=benchmark.pk)
    return empty_site


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_chart_text_overprints_on_a_large_board(large_site, new_page, screenshot, size):
    page = new_page(viewport=DESKTOP if size == "desktop" else PHONE, is_mobile=size == "phone")
    found = []
    for url in _pages(page, large_site, "wide"):
        page.goto(url)
        expect(page.locator("body")).to_be_visible()
        if "/algorithms/" in url:
            histogram = page.get_by_test_id("chart-rank-histogram")
            histogram.scroll_into_view_if_needed()
            screenshot(page, "rank-histogram", full_page=False)
        found += [f"{url}: {o}" for o in page.evaluate(SVG_OVERLAPS)]
        found += [f"{url}: {o}" for o in page.evaluate(CLIPPED_BY_SVG, "figure svg")]
    assert found == [], "\n".join(found)
