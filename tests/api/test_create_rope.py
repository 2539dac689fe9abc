"""A metric's ROPE given at benchmark creation: the one service rule
(leaderboard/services/rope.py) behind the service, the create API and the create form,
each attacked with hostile values."""

from __future__ import annotations

import pytest

from leaderboard.models import Benchmark, Metric
from leaderboard.services import ValidationFailed, benchmark_create
from leaderboard.services.rope import MAX_ROPE
from tests.api.conftest import client_for
from tests.factories import make_user
from tests.frontend.test_contribute_maintain import CREATE

pytestmark = pytest.mark.django_db

HOSTILE = [-0.01, float("nan"), float("inf"), -float("inf"), 10 * MAX_ROPE, "0.01", True]


def _metrics(rope):
    return [
        ("accuracy", "higher", {"min_value": None, "max_value": None, "unit": "", "rope": rope})
    ]


def test_the_service_stores_a_rope_given_at_creation():
    benchmark_create(slug="s-ok", title="S", metrics=_metrics(0.01))
    assert Metric.objects.get(benchmark__slug="s-ok").rope == 0.01


@pytest.mark.parametrize("rope", HOSTILE)
def test_the_service_refuses_a_hostile_rope(rope):
    with pytest.raises(ValidationFailed) as caught:
        benchmark_create(slug="s-bad", title="S", metrics=_metrics(rope))
    assert caught.value.problems[0].field == "metrics"
    assert "rope" in caught.value.problems[0].message
    assert not Benchmark.objects.filter(slug="s-bad").exists()


def _api_create(user, rope):
    return client_for(user).post(
        "/api/benchmarks/create/",
        {
            "slug": "api-rope",
            "title": "API",
            "metrics": [{"name": "accuracy", "direction": "higher", "rope": rope}],
        },
        format="json",
    )


def test_the_api_stores_a_rope_given_at_creation(researcher):
    response = _api_create(researcher, 0.02)
    assert response.status_code == 201, response.json()
    assert Metric.objects.get(benchmark__slug="api-rope").rope == 0.02
    assert response.json()["metrics"][0]["rope"] == 0.02


@pytest.mark.parametrize("rope", [-0.01, "NaN", "Infinity", "-Infinity", 1e300, "abc", [1]])
def test_the_api_refuses_a_hostile_rope(researcher, rope):
    response = _api_create(researcher, rope)
    assert response.status_code == 400, response.json()
    assert not Benchmark.objects.filter(slug="api-rope").exists()


def _form_create(client, rope):
    client.force_login(make_user("maker"))
    return client.post("/benchmarks/new/", {**CREATE, "metrics-0-rope": rope})


def test_the_form_stores_a_rope_given_at_creation(client):
    response = _form_create(client, "0.03")
    assert response.status_code == 302
    assert Metric.objects.get(benchmark__slug="my-study", name="accuracy").rope == 0.03
    assert Metric.objects.get(benchmark__slug="my-study", name="runtime").rope is None


@pytest.mark.parametrize(
    ("rope", "message"),
    [
        ("-0.01", "(rope) cannot be negative"),  # the service's rule
        ("1e300", "(rope) can be at most"),
        ("nan", "Enter a number"),  # Django's FloatField refuses non-finite input first
        ("inf", "Enter a number"),
        ("-inf", "Enter a number"),
        ("abc", "Enter a number"),
    ],
)
def test_the_form_refuses_a_hostile_rope(client, rope, message):
    response = _form_create(client, rope)
    assert response.status_code == 200
    assert not Benchmark.objects.filter(slug="my-study").exists()
    assert message in response.content.decode()
