"""Attack tests: each one tries something an attacker would and must fail.

Real PostgreSQL and Redis, as in the rest of the suite; throttle and lockout counters
get a cache key prefix of their own per test.
"""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture(autouse=True)
def own_cache_keys(settings):
    prefix = f"podium-test-{uuid.uuid4().hex}"
    settings.CACHES = {
        alias: {**config, "KEY_PREFIX": prefix} for alias, config in settings.CACHES.items()
    }
