from types import SimpleNamespace

import pytest
import redis
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import RequestFactory

from leaderboard.models import Submission
from leaderboard.throttling import BenchmarkSubmitThrottle
from tests.api.conftest import client_for
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db


def submit(api, slug: str, value: float):
    return api.post(
        f"/api/benchmarks/{slug}/submissions/create/",
        {"algorithm": f"alg-{value}", "scores": [{"dataset": "d", "value": value}]},
        format="json",
    )


def test_counters_live_in_redis(client, settings):
    assert isinstance(caches["default"], RedisCache)
    assert client.get("/api/benchmarks/").status_code == 200
    config = settings.CACHES["default"]
    keys = redis.Redis.from_url(config["LOCATION"]).keys(f"{config['KEY_PREFIX']}:*")
    assert [key.decode().split(":", 2)[2] for key in keys] == ["throttle_anon_127.0.0.1"]


def test_submissions_per_user_and_benchmark_are_throttled_with_retry_after(
    rates, researcher, stranger
):
    rates(submit="2/hour")
    make_benchmark("toy")
    make_benchmark("other")
    api = client_for(researcher)
    assert [submit(api, "toy", v).status_code for v in (1, 2)] == [201, 201]
    response = submit(api, "toy", 3)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 3000
    assert response.json()["detail"].startswith("Request was throttled. Expected available in")
    # another benchmark, or another user, has its own allowance
    assert submit(api, "other", 4).status_code == 201
    assert submit(client_for(stranger), "toy", 5).status_code == 201
    assert Submission.objects.count() == 4


def test_submissions_per_benchmark_are_throttled_for_everyone(rates, researcher, stranger):
    rates(benchmark_submit="2/minute")
    make_benchmark("toy")
    assert submit(client_for(researcher), "toy", 1).status_code == 201
    assert submit(client_for(stranger), "toy", 2).status_code == 201
    response = submit(client_for(stranger), "toy", 3)
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60


def test_anonymous_reads_are_throttled_per_address(rates, client, researcher):
    rates(anon="3/minute")
    make_benchmark("toy")
    assert [client.get("/api/benchmarks/").status_code for _ in range(3)] == [200, 200, 200]
    response = client.get("/api/benchmarks/toy/")
    assert response.status_code == 429
    assert "Retry-After" in response
    # a logged-in user counts against the per-user rate instead
    assert client_for(researcher).get("/api/benchmarks/").status_code == 200


def test_a_scope_without_a_rate_is_not_throttled(rates, client):
    rates(anon=None)
    assert {client.get("/api/benchmarks/").status_code for _ in range(5)} == {200}


def test_one_throttle_object_counts_more_than_one_request(rates):
    # DRF stores the cache key in the attribute ``key``, which once shadowed the key
    # method: the same throttle asked a second time failed with "'str' is not callable".
    rates(benchmark_submit="2/minute")
    throttle = BenchmarkSubmitThrottle()
    view = SimpleNamespace(kwargs={"slug": "toy"})
    request = RequestFactory().post("/")
    assert [throttle.allow_request(request, view) for _ in range(3)] == [True, True, False]
