"""Tests run against real PostgreSQL and Redis (see docs/development.md, "The test suite");
override with the env vars."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/podium")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")

from config.env import env_int, env_str
from config.settings.base import *  # noqa: F403

SECRET_KEY = "podium-test-only"
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = False
RECOMPUTE_IN_THREAD = False  # the real worker; tests of the thread mode override this
# A queue of its own so that a worker of another checkout on this machine never takes our tasks.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", f"podium-test-{os.getpid()}")
# Close connections after each request and task, so a test worker thread leaves none
# open when the test database is dropped.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
# Cache keys (throttle counters) of their own, so that parallel runs never share them;
# a test's worker processes are given the test's (tests/processes.py).
CACHES["default"]["KEY_PREFIX"] = env_str("PODIUM_CACHE_PREFIX", f"podium-test-{os.getpid()}")  # noqa: F405
# The page cache in the same Redis database under the same prefix, so that clearing a
# test's keys (tests/factories.py cache_clear_own) clears both.
CACHES["pages"] = dict(CACHES["default"])  # noqa: F405
CACHES["sessions"] = {  # noqa: F405
    **CACHES["default"],  # noqa: F405
    "OPTIONS": {**CACHES["default"]["OPTIONS"], "max_timeout": SESSION_CACHE_SECONDS},  # noqa: F405
}
# Off like the rates below: tests render many pages from the one test client address;
# the test of the limit sets it (tests/security/test_page_cache_busting.py).
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["page_miss"] = None  # noqa: F405
# Sign-ups, log-ins and resets from the test client's one address would add up across
# tests; the tests of a limit set it (tests/security/test_accounts.py).
ACCOUNT_RATE_LIMITS = False
# Off, like the rates above: a mark left in Redis by one test's recompute that no worker
# took would hold back a later test's benchmark with the same primary key. The test of
# coalescing turns it on (tests/security/test_quotas.py), and a worker process a test
# starts may be given it (tests/security/test_fairness.py, tests/reliability/test_lease.py).
PODIUM_RECOMPUTE_COALESCE_SECONDS = env_int("PODIUM_RECOMPUTE_COALESCE_SECONDS", 0)
# Static files come from the app folders through the finders; nothing is collected.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
