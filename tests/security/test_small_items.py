"""The review's smaller findings: the raw API token in the session row, and analysis
settings that let any maintainer buy unbounded server time."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from rest_framework.test import APIClient

from frontend.accounts.views import NEW_TOKEN_COOKIE
from leaderboard.models import Benchmark
from leaderboard.selectors import api_token_get_active
from leaderboard.services import ValidationFailed, benchmark_create, benchmark_update
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db


def test_raw_api_token_never_lands_in_the_session_row():
    user = make_user("alan")
    client = Client()
    client.force_login(user)
    created = client.post("/account/tokens/", {"name": "laptop"})  # redirect not followed
    assert created.status_code == 302
    cookie = created.cookies[NEW_TOKEN_COOKIE]
    assert cookie["httponly"] and cookie["path"] == "/account/tokens/"
    assert 0 < int(cookie["max-age"]) <= 120 and cookie["samesite"] == "Strict"
    raw = cookie.value.split(":", 1)[1].rsplit(":", 2)[0]
    assert raw.startswith("pod_") and api_token_get_active(raw=raw) is not None
    for session in Session.objects.all():
        assert raw not in session.session_data
        assert raw not in str(session.get_decoded())
    # The owner sees it once; the cookie is then cleared.
    page = client.get("/account/tokens/")
    assert raw in page.content.decode()
    assert page.cookies[NEW_TOKEN_COOKIE].value == ""
    assert raw not in client.get("/account/tokens/").content.decode()


def test_a_stolen_new_token_cookie_shows_nothing_to_another_user():
    owner = Client()
    owner.force_login(make_user("owner"))
    cookie = owner.post("/account/tokens/", {"name": "laptop"}).cookies[NEW_TOKEN_COOKIE]
    thief = Client()
    thief.force_login(make_user("thief"))
    thief.cookies[NEW_TOKEN_COOKIE] = cookie.value
    raw = cookie.value.split(":", 1)[1].rsplit(":", 2)[0]
    assert raw not in thief.get("/account/tokens/").content.decode()


def test_bootstrap_size_is_capped_by_the_site_for_every_entry_point(settings):
    settings.PODIUM_MAX_BOOTSTRAP = 2000
    maintainer = make_user("keeper")
    with pytest.raises(ValidationFailed) as refused:
        benchmark_create(
            slug="costly", title="Costly", metrics=[("acc", "higher")], bootstrap_size=100_000
        )
    assert refused.value.problems[0].field == "bootstrap_size"
    assert "PODIUM_MAX_BOOTSTRAP" in refused.value.problems[0].message
    benchmark = make_benchmark("toy")
    benchmark.maintainers.add(maintainer)
    with pytest.raises(ValidationFailed):
        benchmark_update(benchmark=benchmark, user=maintainer, bootstrap_size=2001)
    # The API and the web form go through the same rule.
    api = APIClient()
    api.force_login(maintainer)
    response = api.post("/api/benchmarks/toy/update/", {"bootstrap_size": 50_000}, format="json")
    assert response.status_code == 400 and "PODIUM_MAX_BOOTSTRAP" in response.content.decode()
    assert Benchmark.objects.get(slug="toy").bootstrap_size == 1000
    benchmark_update(benchmark=benchmark, user=maintainer, bootstrap_size=2000)  # at the limit
    # Only the site's setting raises the limit.
    settings.PODIUM_MAX_BOOTSTRAP = 5000
    benchmark_update(benchmark=benchmark, user=maintainer, bootstrap_size=5000)


def test_a_bootstrap_too_small_for_a_band_is_refused_by_name():
    """One replicate made every "95 % interval" a point."""
    with pytest.raises(ValidationFailed) as refused:
        benchmark_create(
            slug="tiny-boot", title="Tiny", metrics=[("acc", "higher")], bootstrap_size=1
        )
    problem = refused.value.problems[0]
    assert problem.field == "bootstrap_size" and "at least 100" in problem.message
    benchmark_create(slug="no-boot", title="None", metrics=[("acc", "higher")], bootstrap_size=0)
