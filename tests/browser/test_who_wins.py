"""Who wins, and how sure, in a real browser: the interval beside each P(win)
is that estimator's own and holds it, the rank column shows the rank intervals, the
plausible winners are marked, and the page names the rule behind the default."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from estimation.core.contract import RankIntervals
from estimation.core.verdict import win_band
from frontend.readers.presenters import interval_text
from tests.browser import helpers
from tests.browser.helpers import DEMO_SLUGS

LAPTOP = {"width": 1366, "height": 900}


def _table_cells(page) -> dict[str, dict[str, str]]:
    return {
        row["algorithm"]: row
        for row in helpers.leaderboard_rows(page).evaluate_all(
            """rows => rows.map(r => ({
                algorithm: r.dataset.algorithm,
                p: r.querySelector('[data-testid=cell-probability]').textContent.trim(),
                interval: r.querySelector('[data-testid=cell-interval] .ci').textContent.trim(),
                ranks: r.querySelector('[data-testid=cell-ranks]').textContent.trim(),
                plausible: !!r.querySelector('[data-testid=plausible-winner]'),
            }))"""
        )
    }


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_each_p_win_is_shown_with_its_own_interval(demo_site, new_page, screenshot, slug, size):
    options = (
        {"viewport": LAPTOP}
        if size == "laptop"
        else {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    )
    page = new_page(**options)
    board = helpers.latest_board(slug)
    for key in board.estimator_keys:
        page.goto(demo_site.url("benchmark-leaderboard", slug, estimator=key))
        band = win_band(board, key)
        assert band is not None, key
        header = page.locator("[data-testid=col-interval]")
        expect(header).to_contain_text(band.label)
        cells = _table_cells(page)
        p = board.estimator(key).p
        for i, name in enumerate(board.algorithms):
            shown = cells[name]
            low, high = band.lower[i], band.upper[i]
            assert shown["interval"] == interval_text(low, high, 3), (key, name)
            assert shown["p"] == f"{p[i]:.3f}"
            if not band.of_true_p_win:  # an estimate's own interval holds it
                assert low - 1e-12 <= p[i] <= high + 1e-12, (key, name, low, p[i], high)
        # the exact interval of the true P(win) beside the win rate and every estimate of
        # P(win) whose own band is only a spread; a Borda score or a share keeps its own
        if key == "mle" or band.of_true_p_win:
            assert band.lower == board.win_interval.lower, key
        else:
            assert band.lower != board.win_interval.lower, key
        if key == board.recommended:
            screenshot(page, f"{key}", full_page=False)


@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_rank_intervals_and_plausible_winners_are_shown(demo_site, page, slug):
    board = helpers.latest_board(slug)
    ranks = board.ranks
    assert isinstance(ranks, RankIntervals), ranks
    page.goto(demo_site.url("benchmark-leaderboard", slug))
    cells = _table_cells(page)
    for i, name in enumerate(board.algorithms):
        low, high = ranks.lower[i], ranks.upper[i]
        assert cells[name]["ranks"] == (str(low) if low == high else f"{low}–{high}")
        assert cells[name]["plausible"] == (name in ranks.plausible_winners)
    if len(ranks.plausible_winners) > 1:
        expect(page.locator("[data-testid=plausible-legend]")).to_contain_text(
            f"one of the {len(ranks.plausible_winners)} marked"
        )
    expect(page.locator("[data-testid=recommended-by]")).to_have_text(board.recommended_by)
    default = page.locator(f"[data-testid=estimator-option-{board.recommended}]")
    expect(default.locator(".tag")).to_have_text("recommended")
    expect(page.get_by_text("predicts best here")).to_have_count(0)


def test_the_badge_of_a_plausible_winner_shows_its_rank_interval(demo_site, page):
    board = helpers.latest_board("demsar-2006")
    winners = board.ranks.plausible_winners
    assert len(winners) > 1  # the textbook example: the data cannot separate the four
    leader = winners[0]
    i = board.algorithms.index(leader)
    page.goto(demo_site.url("explore-algorithm", "demsar-2006", leader))
    text = page.locator("[data-testid=badge-preview] svg text").nth(1).text_content()
    assert text.startswith(f"#{board.ranks.lower[i]}–{board.ranks.upper[i]} of ")
    assert not text.startswith("#1 ")


def test_the_methods_page_shows_the_measured_coverage(demo_site, page, phone_page, screenshot):
    from frontend.explore.coverage import coverage_table

    table = coverage_table()
    for tab, name in ((page, "desktop"), (phone_page, "phone")):
        tab.goto(demo_site.url("methods") + "#coverage")
        rows = tab.locator("[data-testid=coverage-row]")
        expect(rows).to_have_count(len(table.rows))
        expect(rows.first).to_be_visible()
        assert helpers.horizontal_overflow(tab)["scrollWidth"] <= tab.viewport_size["width"]
        screenshot(tab, f"coverage-{name}", full_page=False)
    cells = page.locator("[data-testid=coverage-cells]")
    cells.locator("summary").click()
    expect(cells.locator("tbody tr")).to_have_count(len(table.cells))
