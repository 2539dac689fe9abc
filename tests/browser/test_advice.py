"""A reader picks a control on the charts page and reads the estimator advisor."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser import helpers


def test_picking_a_control_and_reading_the_advisor(demo_site, page, screenshot):
    board = helpers.latest_board("demsar-2006")
    page.goto(demo_site.url("explore-charts", "demsar-2006"))
    control = page.get_by_test_id("control")
    expect(control.get_by_test_id("control-name")).to_have_text(board.control.control)
    control.get_by_label("Control").select_option("C4.5")
    control.get_by_role("button", name="Compare").click()
    expect(page.get_by_test_id("control-name")).to_have_text("C4.5")
    assert "control=C4.5" in page.url
    expect(page.get_by_test_id("control-cd")).to_have_text("1.168")
    screenshot(page, "control")
    advisor = page.get_by_test_id("advisor")
    expect(advisor).to_contain_text("At your size")
    expect(advisor).to_contain_text("With twice the datasets")
    expect(advisor.get_by_test_id("advisor-plackett_luce-14")).to_be_visible()
    screenshot(page, "advisor")


def test_the_advisor_fits_a_phone(demo_site, phone_page, screenshot):
    phone_page.goto(demo_site.url("explore-charts", "demsar-2006") + "#advisor")
    overflow = helpers.horizontal_overflow(phone_page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow
    screenshot(phone_page, "phone-charts")
