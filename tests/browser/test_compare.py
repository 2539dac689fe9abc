"""Head to head (picker, grid links, phone), the Pareto view, the badge and the embed,
in Chromium against the live server."""

from __future__ import annotations

import contextlib
import http.server
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.conftest import Site

PHONE_390 = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
HOSTILE = '<img src=x onerror=alert(1)> a/b "ü"'


@pytest.fixture
def phone(new_page):
    return new_page(**PHONE_390)


def _no_page_scroll(page) -> None:
    overflow = helpers.horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow


def _charts_fit_or_scroll_inside(page) -> None:
    """Every chart is within the viewport, or inside a box that scrolls sideways."""
    problems = page.evaluate(
        """() => [...document.querySelectorAll('svg.chart-svg')].filter(svg => {
            const box = svg.getBoundingClientRect();
            if (box.right <= window.innerWidth + 1) return false;
            const scroller = svg.closest('.chart-scroll');
            return !scroller || getComputedStyle(scroller).overflowX !== 'auto'
                || scroller.getBoundingClientRect().right > window.innerWidth + 1;
        }).map(svg => svg.dataset.testid)"""
    )
    assert problems == []


def test_picker_leads_to_the_head_to_head_page(demo_site, page, phone, screenshot):
    board = helpers.latest_board("demsar-2006")
    a, b = board.top(2)
    page.goto(demo_site.url("compare-picker", "demsar-2006"))
    screenshot(page, "picker")
    page.get_by_label("Algorithm A").select_option(b)
    page.get_by_label("Algorithm B").select_option(a)
    page.get_by_test_id("pair-submit").click()
    expect(page).to_have_url(demo_site.url("compare-pair", "demsar-2006", b, a))
    expect(page.get_by_test_id("pair-title")).to_contain_text(f"{b} vs {a}")
    record = page.get_by_test_id("pair-record")
    expect(record).to_contain_text(f"P({b} beats {a} on a new dataset)")
    wins = int(page.get_by_test_id("pair-wins").inner_text())
    ties = int(page.get_by_test_id("pair-ties").inner_text())
    losses = int(page.get_by_test_id("pair-losses").inner_text())
    assert wins + ties + losses == board.input.n_datasets_used
    expect(page.get_by_test_id("pair-interval")).to_be_visible()
    expect(page.get_by_test_id("pair-wilcoxon")).to_contain_text("r = ")
    expect(page.get_by_test_id("pair-nemenyi")).to_be_visible()
    expect(page.get_by_test_id("pair-differences-svg")).to_be_visible()
    screenshot(page, "desktop")
    page.get_by_test_id("pair-swap").click()
    expect(page).to_have_url(demo_site.url("compare-pair", "demsar-2006", a, b))
    assert int(page.get_by_test_id("pair-losses").inner_text()) == wins

    phone.goto(
        demo_site.url(
            "compare-pair",
            "simulated-new-vs-old",
            *helpers.latest_board("simulated-new-vs-old").top(2),
        )
    )
    expect(phone.get_by_test_id("pair-tukey")).to_be_visible()
    _no_page_scroll(phone)
    _charts_fit_or_scroll_inside(phone)
    screenshot(phone, "phone")


def test_picker_works_without_javascript(demo_site, no_js_page, screenshot):
    a, b = helpers.latest_board("tabzilla-hard-top3").top(2)
    no_js_page.goto(demo_site.url("compare-picker", "tabzilla-hard-top3"))
    no_js_page.get_by_label("Algorithm A").select_option(a)
    no_js_page.get_by_label("Algorithm B").select_option(a)
    no_js_page.get_by_test_id("pair-submit").click()
    expect(no_js_page.get_by_test_id("pair-problem")).to_contain_text("two different")
    no_js_page.get_by_label("Algorithm B").select_option(b)
    no_js_page.get_by_test_id("pair-submit").click()
    expect(no_js_page).to_have_url(demo_site.url("compare-pair", "tabzilla-hard-top3", a, b))
    # A top-K ranking file: rank differences, no Wilcoxon (no scores to pair).
    expect(no_js_page.get_by_test_id("pair-wilcoxon")).to_contain_text("Not applicable")
    expect(no_js_page.get_by_test_id("pair-differences-svg")).to_contain_text("rank of B minus")
    screenshot(no_js_page, "rankings-only")


def test_pvalue_grid_cells_open_the_pair(demo_site, page):
    page.goto(demo_site.url("explore-charts", "demsar-2006"))
    cell = page.locator("[data-testid=pvalues-nemenyi-svg] a").first
    href = cell.get_attribute("href")
    assert "/compare/" in href
    cell.click()
    expect(page).to_have_url(demo_site.base_url + href)
    expect(page.get_by_test_id("pair-record")).to_be_visible()


def test_head_to_head_of_hostile_names(demo_site, page):
    from tests.frontend.test_readers_support import computed_benchmark

    computed_benchmark(
        "hostile-pair", scores={HOSTILE: {"d1": 0.9, "d2": 0.7}, "plain/x": {"d1": 0.1, "d2": 0.8}}
    )
    page.goto(demo_site.url("compare-pair", "hostile-pair", HOSTILE, "plain/x"))
    expect(page.get_by_test_id("pair-title")).to_contain_text(HOSTILE)
    expect(page.get_by_test_id("pair-wins")).to_have_text("1")
    assert page.locator("img[src=x]").count() == 0
    page.get_by_test_id("pair-a-link").click()
    expect(page.get_by_test_id("algorithm-name")).to_have_text(HOSTILE)


def test_badge_is_valid_svg_with_the_name_escaped(demo_site, page, screenshot):
    from tests.frontend.test_readers_support import computed_benchmark

    computed_benchmark("badge-test", scores={HOSTILE: {"d1": 0.9, "d2": 0.7}, "b": {"d1": 0.1}})
    badge = demo_site.url("embed-badge", "badge-test", HOSTILE)
    response = page.request.get(badge)
    assert response.status == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert "max-age=300" in response.headers["cache-control"] and response.headers["etag"]
    svg = ET.fromstring(response.body())
    assert svg.find("{http://www.w3.org/2000/svg}title").text.startswith(HOSTILE)
    again = page.request.get(badge, headers={"If-None-Match": response.headers["etag"]})
    assert again.status == 304
    page.goto(demo_site.base_url + f"/b/badge-test/algorithms/{quote(HOSTILE, safe='')}/")
    image = page.get_by_test_id("badge-preview")
    expect(image).to_be_visible()
    assert image.locator("svg").get_attribute("aria-label").startswith(HOSTILE)
    markdown = page.get_by_test_id("badge-markdown").input_value()
    assert markdown.startswith("[![") and "/b/badge-test/badge/" in markdown
    assert page.locator("img[src=x]").count() == 0
    screenshot(page, "algorithm-page")


def test_algorithm_page_on_a_phone(demo_site, phone, screenshot):
    name = helpers.latest_board("simulated-new-vs-old").top(1)[0]
    phone.goto(demo_site.url("explore-algorithm", "simulated-new-vs-old", name))
    expect(phone.get_by_test_id("badge-preview")).to_be_visible()
    expect(phone.get_by_test_id("compare-with")).to_be_visible()
    _no_page_scroll(phone)
    _charts_fit_or_scroll_inside(phone)
    screenshot(phone, "phone")


@contextlib.contextmanager
def _site_serving(html: str) -> Iterator[str]:
    """Another origin on the loopback that serves ``html`` at every path."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_only_the_embed_can_be_framed(demo_site: Site, page, phone, page_log, screenshot):
    # Chromium logs the refused frame as a console error: that is the point of the test.
    page_log.allow_console_errors()
    embed = demo_site.url("embed-leaderboard", "demsar-2006")
    board_page = demo_site.url("benchmark-leaderboard", "demsar-2006")
    parent = (
        "<!doctype html><title>Someone else's site</title>"
        f'<iframe name="embed" src="{embed}" width="900" height="420"></iframe>'
        f'<iframe name="page" src="{board_page}" width="900" height="200"></iframe>'
    )
    # Someone else's site: another origin, served on the loopback (Chromium refuses a
    # public page framing a local one before reading any header, so it must be local too).
    with _site_serving(parent) as other_site:
        page.route(other_site + "**", lambda route: route.continue_())
        page.goto(other_site)
        page.wait_for_load_state("load")
        framed = page.frame(name="embed")
        expect(framed.get_by_test_id("leaderboard-table")).to_be_visible()
        expect(framed.get_by_test_id("leaderboard-row").first).to_be_visible()
        refused = page.frame(name="page")
        assert refused.locator("[data-testid=leaderboard]").count() == 0
        screenshot(page, "framed")
    phone.goto(embed)
    expect(phone.get_by_test_id("leaderboard-table")).to_be_visible()
    _no_page_scroll(phone)
    screenshot(phone, "embed-phone")


def test_pareto_page(demo_site, page, phone, screenshot):
    from tests.frontend.test_compare_pages import two_metric_benchmark

    two_metric_benchmark()
    page.goto(demo_site.url("explore-charts", "tradeoff"))
    page.get_by_test_id("pareto-link").click()
    rows = page.get_by_test_id("pareto-row")
    expect(rows).to_have_count(5)
    front = page.locator("[data-testid=pareto-row][data-front=yes]")
    expect(front).to_have_count(3)
    expect(page.locator("[data-testid=pareto-svg] g[data-front=yes]")).to_have_count(3)
    screenshot(page, "desktop")
    phone.goto(demo_site.url("compare-pareto", "tradeoff"))
    expect(phone.get_by_test_id("pareto-svg")).to_be_visible()
    _no_page_scroll(phone)
    _charts_fit_or_scroll_inside(phone)
    screenshot(phone, "phone")


def test_charts_metric_switcher(demo_site, page, phone, screenshot):
    from tests.frontend.test_compare_pages import two_metric_benchmark

    two_metric_benchmark()
    page.goto(demo_site.url("explore-charts", "tradeoff"))
    page.get_by_test_id("metric-select").select_option("train seconds")
    page.get_by_test_id("metric-selector").get_by_role("button").click()
    expect(page.locator("main")).to_contain_text("train seconds, lower is better")
    expect(page).to_have_url(demo_site.url("explore-charts", "tradeoff", metric="train seconds"))
    screenshot(page, "desktop")
    phone.goto(demo_site.url("explore-charts", "tradeoff", metric="train seconds"))
    expect(phone.get_by_test_id("metric-selector")).to_be_visible()
    _no_page_scroll(phone)
    _charts_fit_or_scroll_inside(phone)
    screenshot(phone, "phone")
