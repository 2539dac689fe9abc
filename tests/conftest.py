"""Shared fixtures: external reference tables, real Redis and a real Celery worker."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.file_order import file_order_register
from tests.reference_data import REQUIRE_VARIABLE, external_data_lookup, reference_data_required


def _external_study(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("external_data")
    if marker is None:
        return None
    if len(marker.args) != 1 or not isinstance(marker.args[0], str):
        raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.external_data('<folder>')")
    return marker.args[0]


# Fixtures that start what the fast tier (`make check`) runs without: a test that uses
# one is marked for it wherever it lives, so that no marker can be forgotten. (The
# browser and reliability folders mark their own tests; celery_worker_process, which
# is not a fixture, refuses to start in the fast tier.)
MARKED_BY_FIXTURE = {"celery_worker": "integration", "page": "browser", "stack": "integration"}


def pytest_configure(config: pytest.Config) -> None:
    """The run's folder of engine results shared by its processes (tests/engine_memo.py):
    made by the controlling process, inherited by the xdist workers it starts; and the
    longest test files first in a parallel run (tests/file_order.py)."""
    file_order_register(config)
    if hasattr(config, "workerinput"):
        return
    from tests.engine_memo import SHARED_VARIABLE

    folder = tempfile.mkdtemp(prefix="podium-engine-memo-")
    os.environ[SHARED_VARIABLE] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    config.add_cleanup(lambda: os.environ.pop(SHARED_VARIABLE, None))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks by fixture (above). A test marked external_data runs only where its table
    is: else it is skipped, or, on CI or with PODIUM_REQUIRE_REFERENCE_DATA=1, it fails
    (pytest_runtest_setup)."""
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)
    if reference_data_required():
        return
    for item in items:
        study = _external_study(item)
        if study is not None:
            found = external_data_lookup(study)
            if found.path is None:
                item.add_marker(pytest.mark.skip(reason=found.problem))


def pytest_runtest_setup(item: pytest.Item) -> None:
    study = _external_study(item)
    if study is None:
        return
    found = external_data_lookup(study)
    if found.path is None:  # only reached where the data are required
        pytest.fail(
            f"{found.problem} (required here: CI or {REQUIRE_VARIABLE} is set)", pytrace=False
        )


@pytest.fixture
def external_data(request: pytest.FixtureRequest) -> Path:
    """The folder of the external table named by the test's external_data marker."""
    study = _external_study(request.node)
    if study is None:
        raise pytest.UsageError(
            f"{request.node.nodeid} uses the external_data fixture without "
            "@pytest.mark.external_data('<folder>')"
        )
    path = external_data_lookup(study).path
    assert path is not None  # pytest_runtest_setup skipped or failed the test otherwise
    return path


@pytest.fixture(scope="session")
def redis_url(django_db_setup) -> str:
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.fail(
            f"Redis is not reachable at {settings.CELERY_BROKER_URL}: {exc} (run `make services`)"
        )
    return settings.CELERY_BROKER_URL


@pytest.fixture
def celery_worker(redis_url, transactional_db):
    """A real Celery worker in a thread, consuming from real Redis, writing to PostgreSQL."""
    from celery.contrib.testing.worker import start_worker

    from tests.processes import SHUTDOWN_SECONDS, worker_allowed

    worker_allowed()

    from config.celery import app
    from config.queues import all_queues

    with start_worker(
        app,
        pool="solo",
        perform_ping_check=False,
        shutdown_timeout=SHUTDOWN_SECONDS,
        queues=all_queues(),
    ) as worker:
        yield worker


@pytest.fixture(scope="session")
def peer_reference(request: pytest.FixtureRequest):
    """``peer_reference(name, compute, *args, under_test=module, libraries=())``: a peer
    library's reference kept between runs in pytest's cache (tests/reference_memo.py),
    computed with the library when the cache is cold, off or out of date."""
    from tests.reference_memo import reference_kept

    # PODIUM_TEST_REFERENCE_MEMO=0 computes them with the library (to measure the saving).
    keep = os.environ.get("PODIUM_TEST_REFERENCE_MEMO", "1") != "0"
    cache = getattr(request.config, "cache", None) if keep else None
    return functools.partial(reference_kept, cache)


@pytest.fixture(autouse=True)
def stored_sections_follow_the_contract(monkeypatch):
    """Every snapshot section a test writes is validated against docs/snapshot.schema.json."""
    from estimation import services
    from estimation.recompute import refresh, store
    from tests.contract_validation import validate_sections

    write = store.section_bodies

    def checked(payload):
        bodies = write(payload)
        validate_sections(bodies)
        return bodies

    # Every module that calls it by its own name.
    for module in (store, refresh, services):
        monkeypatch.setattr(module, "section_bodies", checked)


@pytest.fixture
def rates(settings):
    """``rates(scope="n/period", ...)``: DRF throttle rates for one test."""

    def set_rates(**scopes):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {
                **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                **scopes,
            },
        }

    return set_rates
