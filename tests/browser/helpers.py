"""Where things are on Podium's pages, and checks every page should pass.

The locators use the pages' ``data-testid`` attributes; when a page changes its markup,
this is the one place to update.
"""

from __future__ import annotations

from typing import Any

DEMO_SLUGS = (
    "demsar-2006",
    "tabzilla-hard-top3",
    "simulated-new-vs-old",
    "tabzilla-accuracy-log-loss",
)

# The two screens every reader page is checked at: a laptop's and a phone's.
SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}

# --- locators ---------------------------------------------------------------------------


def leaderboard_table(page):
    return page.locator("[data-testid=leaderboard-table]")


def leaderboard_rows(page):
    return page.locator("[data-testid=leaderboard-row]")


def leaderboard_row(page, algorithm: str):
    return page.locator(f"[data-testid=leaderboard-row][data-algorithm={css_string(algorithm)}]")


def interval_bars(page):
    """The drawn part of each row's interval bar (one per row that has an interval)."""
    return page.locator("[data-testid=cell-interval] .bar .range")


def leaderboard_notes(page):
    return page.locator("[data-testid=leaderboard-notes]")


def snapshot_version(page):
    return page.locator("[data-testid=snapshot-version]")


def benchmark_cards(page):
    return page.locator("[data-testid=benchmark-card]")


def css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --- data the pages should show ---------------------------------------------------------


def latest_board(slug: str):
    """The board section of the ready snapshot a benchmark's page shows."""
    from estimation.selectors import snapshot_board, snapshot_latest
    from leaderboard.models import Benchmark
    from leaderboard.selectors import primary_metric

    benchmark = Benchmark.objects.get(slug=slug)
    snapshot = snapshot_latest(benchmark=benchmark, metric=primary_metric(benchmark=benchmark))
    assert snapshot is not None, f"{slug} has no ready snapshot"
    return snapshot_board(snapshot=snapshot)


# --- checks -----------------------------------------------------------------------------


def horizontal_overflow(page) -> dict[str, float]:
    """How far the page itself scrolls sideways (tables may scroll inside their wrapper)."""
    return page.evaluate(
        """() => ({
            scrollWidth: document.scrollingElement.scrollWidth,
            innerWidth: window.innerWidth,
            widest: [...document.body.querySelectorAll('*')]
                .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
                .filter(el => !el.closest('.table-wrap, [data-scrolls]'))
                .slice(0, 5)
                .map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                     + (el.className && typeof el.className === 'string'
                        ? '.' + el.className.trim().split(/\\s+/).join('.') : '')),
        })"""
    )


def focus_state(page) -> dict[str, Any]:
    """The focused element: what it is, and whether a focus indicator is drawn."""
    return page.evaluate(
        """() => {
            const el = document.activeElement;
            if (!el || el === document.body) return {tag: 'body'};
            const style = getComputedStyle(el);
            const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
            const ring = style.boxShadow && style.boxShadow !== 'none';
            const box = el.getBoundingClientRect();
            return {
                tag: el.tagName.toLowerCase(),
                href: el.getAttribute('href'),
                text: (el.innerText || el.value || '').trim().slice(0, 80),
                focusVisible: el.matches(':focus-visible'),
                indicator: outline || ring,
                onScreen: box.width > 0 && box.height > 0 && box.bottom > 0
                    && box.right > 0 && box.top < window.innerHeight,
            };
        }"""
    )


def stylesheets(page) -> list[dict[str, Any]]:
    """Every linked stylesheet: its URL and how many rules the browser parsed from it."""
    return page.evaluate(
        """() => [...document.styleSheets].filter(s => s.href).map(s => {
            let rules = -1;
            try { rules = s.cssRules.length; } catch (e) { rules = -1; }
            return {href: s.href, rules};
        })"""
    )
