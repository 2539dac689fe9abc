"""axe-core on every page a reader, a researcher or a maintainer opens, at a laptop's and
a phone's size: no serious or critical violation (WCAG 2.1 A and AA rules and axe's best
practices). axe-core comes with axe-playwright-python (requirements-dev.txt), which
injects its bundled ``axe.min.js`` into the page; nothing is fetched."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.helpers import DEMO_SLUGS, SIZES

HARMFUL = ("serious", "critical")

BOARD = DEMO_SLUGS[0]
READER_PAGES = (
    ("benchmark-index",),
    ("benchmark-leaderboard", BOARD),
    ("benchmark-leaderboard", DEMO_SLUGS[1]),
    ("benchmark-history", BOARD),
    ("explore-charts", BOARD),
    ("explore-charts", DEMO_SLUGS[1]),
    ("explore-dataset-index", BOARD),
    ("methods",),
    ("explore-dataset", BOARD, "cmc"),
    ("explore-algorithm", BOARD, "C4.5+m+cf"),
    ("compare-picker", BOARD),
    ("compare-pair", BOARD, "C4.5+m+cf", "C4.5"),
    ("compare-pareto", BOARD),
    ("embed-leaderboard", BOARD),
    ("account_login",),
    ("account_signup",),
)
SIGNED_IN_PAGES = (
    ("account-home",),
    ("account-submissions",),
    ("account-tokens",),
    ("contribute-submit", BOARD),
    ("contribute-upload", BOARD),
    ("contribute-benchmark-new",),
    ("contribute-maintained",),
    ("contribute-benchmark-edit", BOARD),
    ("contribute-benchmark-catalogue", BOARD),
    ("contribute-moderation", BOARD),
    ("contribute-snapshots", BOARD),
)


def harmful_violations(page) -> list[str]:
    """Each serious or critical violation: its rule, impact and the first few targets."""
    results = Axe().run(page)
    out = []
    for violation in results.response["violations"]:
        if violation["impact"] in HARMFUL:
            targets = [" ".join(map(str, node["target"])) for node in violation["nodes"][:3]]
            out.append(f"{violation['id']} ({violation['impact']}): {targets}")
    return out


def violations_by_page(page, site, pages) -> dict[str, list[str]]:
    """Each page (a URL name and its arguments) that answers, with its harmful violations."""
    found = {}
    for name, *args in pages:
        response = page.goto(site.url(name, *args))
        assert response.ok, (name, args, response.status)
        if problems := harmful_violations(page):
            found[site.path(name, *args)] = problems
    return found


@pytest.mark.parametrize("size", SIZES)
def test_reader_pages_have_no_serious_violations(demo_site, new_page, size):
    page = new_page(**SIZES[size])
    found = violations_by_page(page, demo_site, READER_PAGES)
    assert not found, found


@pytest.mark.parametrize("size", SIZES)
def test_signed_in_pages_have_no_serious_violations(demo_site, new_page, log_in, size):
    from django.contrib.auth import get_user_model

    from leaderboard.models import Benchmark

    maintainer = get_user_model().objects.create_user(
        "axe-maintainer", "axe@example.org", "a-long-password-1"
    )
    Benchmark.objects.get(slug=BOARD).maintainers.add(maintainer)
    page = new_page(**SIZES[size])
    log_in(page, maintainer)
    found = violations_by_page(page, demo_site, SIGNED_IN_PAGES)
    assert not found, found
