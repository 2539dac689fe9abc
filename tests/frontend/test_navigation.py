"""The pages link to each other: navigation, charts, algorithm pages, contributor actions."""

import pytest

from leaderboard.services import submission_accept
from tests.engine_memo import engine_results_remembered
from tests.factories import make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def computed():
    from estimation.services import recompute_run

    benchmark = make_benchmark("nav")
    for algorithm, values in {
        "alpha": {"d1": 0.9, "d2": 0.2},
        "beta": {"d1": 0.5, "d2": 0.6},
    }.items():
        submission_accept(submission=make_submission(benchmark, algorithm, values))
    with engine_results_remembered():  # the pages are under test: one engine run a process
        recompute_run(benchmark_id=benchmark.pk, owner="test")
    return benchmark


def test_anonymous_navigation_offers_log_in_and_sign_up(client, computed):
    page = client.get("/b/nav/").content.decode()
    assert 'data-testid="nav-login"' in page and 'data-testid="nav-signup"' in page
    assert 'href="/methods/"' in page
    assert 'href="/b/nav/charts/"' in page
    assert 'href="/b/nav/algorithms/alpha/"' in page
    assert 'href="/b/nav/submit/"' in page
    assert 'data-testid="moderation-link"' not in page


def test_maintainers_see_their_tools_and_a_log_out_form(client, computed):
    maintainer = make_user("keeper")
    computed.maintainers.add(maintainer)
    client.force_login(maintainer)
    page = client.get("/b/nav/").content.decode()
    assert 'data-testid="nav-logout"' in page and 'data-testid="moderation-link"' in page
    assert 'data-testid="edit-link"' in page


def test_charts_page_renders_every_chart_and_respects_visibility(client, computed):
    response = client.get("/b/nav/charts/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="charts"' in page and "<svg" in page
    assert client.get("/b/nope/charts/").status_code == 404
