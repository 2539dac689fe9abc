"""Every page type of Podium keeps to its Content-Security-Policy, in a real Chromium.

The policy has no 'unsafe-inline' anywhere (config/settings/base.py), so a style
attribute in the markup, an inline ``<style>`` or ``<script>``, or a script that sets a
``style`` attribute would be refused: the page would silently lose that part of its look
or behaviour. The pages' fixtures (conftest.py) record every ``securitypolicyviolation``
event and every CSP console error and fail the test at teardown; here each page type is
visited on a desktop and on a phone, with its scripts running (the leaderboard's swap of
server-rendered fragments included), and each page is checked on its own so that a
failure names it.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from estimation.core.contract import NotApplicable
from tests.browser import helpers
from tests.browser.helpers import DEMO_SLUGS
from tests.browser.test_flows import demsar_datasets, long_csv, upload

PHONE_OPTIONS = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}
SLUG = "demsar-2006"  # every chart applies to it
# Pages a reader sees, by URL name and arguments (the values are filled in per run).
READER_PAGES = [
    ("benchmark-index",),
    ("methods",),
    ("account_login",),
    ("account_signup",),
    ("account_reset_password",),
    ("account_email_verification_sent",),
]
for _slug in DEMO_SLUGS:
    READER_PAGES += [
        ("benchmark-leaderboard", _slug),
        ("benchmark-history", _slug),
        ("explore-charts", _slug),
        ("explore-dataset-index", _slug),
        ("compare-picker", _slug),
        ("compare-pareto", _slug),
        ("embed-leaderboard", _slug),
    ]
# Pages of a signed-in maintainer of SLUG.
MAINTAINER_PAGES = [
    ("account-home",),
    ("account-tokens",),
    ("account-submissions",),
    ("account_change_password",),
    ("account_email",),
    ("contribute-submit", SLUG),
    ("contribute-upload", SLUG),
    ("contribute-benchmark-new",),
    ("contribute-maintained",),
    ("contribute-benchmark-edit", SLUG),
    ("contribute-moderation", SLUG),
    ("contribute-benchmark-catalogue", SLUG),
    ("contribute-snapshots", SLUG),
]
# Pages served by Django's admin, DRF and the API reference: the same policy applies.
OTHER_PATHS = [
    "/api/docs/",
    "/admin/login/",
    # DRF's browsable API (templates/rest_framework/api.html) and its log-in address,
    # which leads to the site's own log-in page.
    "/api/benchmarks/",
    "/api-auth/login/",
]


def assert_keeps_to_the_policy(page, page_log, where: str) -> None:
    # A round trip to the page delivers any violation report still on its way.
    page.evaluate("() => new Promise(resolve => requestAnimationFrame(() => resolve()))")
    assert page_log.csp_violations == [], f"{where}: {page_log.csp_violations}"


def visit(page, page_log, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, f"{url}: {response}"
    assert "'unsafe-inline'" not in response.headers["content-security-policy"], url
    assert_keeps_to_the_policy(page, page_log, url)


def detail_pages(slug: str) -> list[tuple[str, ...]]:
    """The pages of one algorithm, one dataset, one pair and one version of ``slug``."""
    from estimation.models import ResultSnapshot
    from leaderboard.models import Dataset

    algorithms = helpers.latest_board(slug).algorithms
    dataset = Dataset.objects.filter(benchmark__slug=slug).order_by("name").first()
    version = ResultSnapshot.objects.filter(benchmark__slug=slug, status="ready").first()
    assert dataset is not None and version is not None
    return [
        ("explore-algorithm", slug, algorithms[0]),
        ("explore-dataset", slug, dataset.name),
        ("compare-pair", slug, algorithms[0], algorithms[1]),
        ("embed-badge", slug, algorithms[0]),
        ("benchmark-version", slug, version.version),
    ]


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_every_reader_page_keeps_to_the_csp(demo_site, new_page, page_log, device):
    page = new_page(**({} if device == "desktop" else PHONE_OPTIONS))
    pages = READER_PAGES + [p for slug in DEMO_SLUGS for p in detail_pages(slug)]
    for name, *args in pages:
        visit(page, page_log, demo_site.url(name, *args))

    # The leaderboard's script swaps in server-rendered rows (interval bars included)
    # when the reader picks another estimator: that markup keeps to the policy too.
    board = helpers.latest_board(SLUG)
    other = next(
        key
        for key in board.estimator_keys
        if key != board.recommended
        and not isinstance(board.estimator(key).bootstrap, NotApplicable)
    )
    page.goto(demo_site.url("benchmark-leaderboard", SLUG))
    page.get_by_test_id(f"estimator-radio-{other}").check()
    expect(helpers.leaderboard_table(page)).to_have_attribute("data-estimator", other)
    expect(helpers.interval_bars(page).first).to_be_visible()
    assert_keeps_to_the_policy(page, page_log, "the leaderboard after an estimator switch")


def test_every_contributor_and_maintainer_page_keeps_to_the_csp(demo_site, page, page_log, log_in):
    from leaderboard.models import Benchmark
    from tests.factories import make_user

    maintainer = make_user("csp-maintainer")
    Benchmark.objects.get(slug=SLUG).maintainers.add(maintainer)
    log_in(page, maintainer)
    for name, *args in MAINTAINER_PAGES:
        visit(page, page_log, demo_site.url(name, *args))

    # The upload's preview and its line errors.
    datasets = demsar_datasets()
    page.goto(demo_site.url("contribute-upload", SLUG))
    upload(page, "bad.csv", long_csv([(datasets[0], "CSP-Test", "good")]))
    expect(page.get_by_test_id("error-summary")).to_be_visible()
    assert_keeps_to_the_policy(page, page_log, "the upload's line errors")
    upload(page, "good.csv", long_csv([(d, "CSP-Test", "0.5") for d in datasets]))
    expect(page.get_by_test_id("upload-confirm")).to_be_visible()
    assert_keeps_to_the_policy(page, page_log, "the upload's preview")


@pytest.mark.parametrize("path", OTHER_PATHS)
def test_api_admin_and_login_pages_keep_to_the_csp(demo_site, page, page_log, path):
    visit(page, page_log, demo_site.base_url + path)


def test_the_browsable_api_is_styled_and_logs_in_and_out_through_the_site(
    demo_site, page, page_log, screenshot
):
    """Without its inline <style> and onclick the browsable API keeps its look (Bootstrap's
    sheet, the dark navbar), its scripts (prettify) and a working log in and out."""
    from tests.factories import make_user

    make_user("api-reader")
    page.goto(demo_site.base_url + "/api/benchmarks/")
    sheets = helpers.stylesheets(page)
    assert [s for s in sheets if s["href"].endswith("bootstrap.min.css") and s["rules"] > 0], sheets
    navbar = page.locator(".navbar").first.evaluate("el => getComputedStyle(el).backgroundColor")
    assert navbar != "rgba(0, 0, 0, 0)", navbar  # dark (.navbar-inverse), not unstyled
    expect(page.locator(".response-info span.str").first).to_be_visible()  # highlighted
    assert_keeps_to_the_policy(page, page_log, "the browsable API")

    page.get_by_test_id("api-login").click()
    expect(page).to_have_url(demo_site.url("account_login") + "?next=/api/benchmarks/")
    page.get_by_label("Username").fill("api-reader")
    page.get_by_label("Password").fill("pw-for-tests-only")
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(demo_site.base_url + "/api/benchmarks/")
    expect(page.get_by_test_id("api-user")).to_have_text("api-reader")
    assert_keeps_to_the_policy(page, page_log, "the browsable API, signed in")
    screenshot(page, "signed-in")
    # DRF's OPTIONS button swaps in the answer's page by script (ajax-form.js).
    page.get_by_role("button", name="OPTIONS").click()
    expect(page.locator(".request-info")).to_contain_text("OPTIONS /api/benchmarks/")
    assert_keeps_to_the_policy(page, page_log, "the browsable API's OPTIONS answer")

    page.get_by_test_id("api-logout").click()
    expect(page).to_have_url(demo_site.base_url + "/api/benchmarks/")
    expect(page.get_by_test_id("api-login")).to_be_visible()


def test_the_api_reference_loads_its_style_sheet(demo_site, page):
    """A linked file now: the policy refused the inline <style> it had."""
    page.goto(demo_site.base_url + "/api/docs/")
    sheets = helpers.stylesheets(page)
    assert [s for s in sheets if s["href"].endswith("api-docs.css") and s["rules"] > 0], sheets


def test_a_style_attribute_is_refused_and_reported(demo_site, page, page_log):
    """The check above can fail: markup with a style attribute is refused and recorded."""
    page.goto(demo_site.url("benchmark-index"))
    page.evaluate(
        "() => document.body.insertAdjacentHTML('beforeend',"
        " '<p id=styled style=\"color: rgb(255, 0, 0)\">x</p>')"
    )
    colour = page.locator("#styled").evaluate("el => getComputedStyle(el).color")
    assert colour != "rgb(255, 0, 0)", "the style attribute was applied"
    for _ in range(40):
        if page_log.csp_violations:
            break
        page.wait_for_timeout(50)
    assert any("style-src-attr" in text for text in page_log.csp_violations), page_log
    page_log.csp_violations.clear()  # seen; the teardown check should not fail on it
