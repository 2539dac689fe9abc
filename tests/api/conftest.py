"""API tests: a real PostgreSQL database and throttle counters in real Redis."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_user


@pytest.fixture(autouse=True)
def own_cache_keys(settings):
    """Each test counts its requests afresh (a key prefix of its own; nothing is flushed)."""
    prefix = f"podium-test-{uuid.uuid4().hex}"
    settings.CACHES = {
        alias: {**config, "KEY_PREFIX": prefix} for alias, config in settings.CACHES.items()
    }


@pytest.fixture
def client() -> APIClient:
    return APIClient()


def client_for(user) -> APIClient:
    """A client logged in through the session, as the web pages are."""
    api = APIClient()
    api.force_login(user)
    return api


@pytest.fixture
def maintainer(db):
    return make_user("maintainer")


@pytest.fixture
def researcher(db):
    return make_user("researcher")


@pytest.fixture
def stranger(db):
    return make_user("stranger")


@pytest.fixture
def benchmark(maintainer) -> Benchmark:
    """Public and moderated, maintained by ``maintainer``."""
    benchmark = make_benchmark("toy")
    benchmark.maintainers.add(maintainer)
    return benchmark


@pytest.fixture
def private_benchmark(maintainer) -> Benchmark:
    benchmark = make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    benchmark.maintainers.add(maintainer)
    return benchmark
