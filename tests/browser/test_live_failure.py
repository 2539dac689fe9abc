"""An open leaderboard says, without a reload, when the newest input failed to compute:
rejections leave one algorithm, the worker records the failure, the
page's polling brings the server-rendered notice."""

from __future__ import annotations

import pytest
from django.db import transaction
from playwright.sync_api import expect

from tests.browser import helpers

UPDATE_TIMEOUT_MS = 30_000


@pytest.mark.integration
def test_open_leaderboard_shows_that_the_newest_input_failed(
    empty_site, page, celery_worker, screenshot
):
    from estimation.models import ResultSnapshot
    from leaderboard.services import submission_accept, submission_reject
    from tests.factories import make_benchmark, make_submission, make_user
    from tests.processes import wait_until

    maintainer = make_user("maintainer")
    benchmark = make_benchmark(slug="fragile")
    benchmark.maintainers.add(maintainer)
    with transaction.atomic():
        submission_accept(submission=make_submission(benchmark, "a", {"d1": 0.9, "d2": 0.2}))
        b = submission_accept(submission=make_submission(benchmark, "b", {"d1": 0.5, "d2": 0.6}))
    wait_until(lambda: ResultSnapshot.objects.filter(benchmark=benchmark, status="ready").exists())

    page.goto(empty_site.url("benchmark-leaderboard", "fragile"))
    expect(helpers.leaderboard_rows(page)).to_have_count(2)
    expect(page.get_by_test_id("recompute-failure")).to_have_count(0)
    page.evaluate("() => { window.__sameDocument = true; }")
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))

    submission_reject(submission=b, user=maintainer)  # a alone cannot be analysed
    notice = page.get_by_test_id("recompute-failure")
    expect(notice).to_contain_text("at least 2 algorithms", timeout=UPDATE_TIMEOUT_MS)
    expect(notice).to_contain_text("The results shown are older: version 1")
    expect(notice).to_contain_text("b (rejected)")
    expect(helpers.leaderboard_rows(page)).to_have_count(2)  # still the older results
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
    # Only the notice's fragment is fetched, never the page's HTML again.
    assert empty_site.url("benchmark-failure-fragment", "fragile") in fetched, fetched
    assert empty_site.url("benchmark-leaderboard", "fragile") not in fetched, fetched
    screenshot(page, "newest-input-failed")
