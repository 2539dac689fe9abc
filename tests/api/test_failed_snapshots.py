"""Failed snapshot versions are for maintainers (with the error); readers see ready ones."""

from __future__ import annotations

import pytest
from django.utils import timezone

from estimation.models import ResultSnapshot
from estimation.services import recompute_run
from leaderboard.services import submission_accept
from tests.api.conftest import client_for
from tests.factories import make_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def failed(benchmark, maintainer):
    """Version 1 computed for real (ready), version 2 failed."""
    for name, values in {"a": {"d1": 0.5, "d2": 0.7}, "b": {"d1": 0.6, "d2": 0.4}}.items():
        submission_accept(submission=make_submission(benchmark, name, values), user=maintainer)
    recompute_run(benchmark_id=benchmark.pk, owner="test")
    ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=benchmark.metrics.get(),
        version=2,
        fingerprint="b",
        engine_version="test",
        status=ResultSnapshot.Status.FAILED,
        error="ValueError: at least 2 algorithms are needed",
        finished_at=timezone.now(),
    )


def test_readers_never_see_a_failed_version(client, researcher, failed):
    for api in (client, client_for(researcher)):
        history = api.get("/api/benchmarks/toy/snapshots/").json()
        assert [s["version"] for s in history["results"]] == [1]
        assert api.get("/api/benchmarks/toy/snapshots/2/").status_code == 404
    page = client.get("/b/toy/history/")
    assert page.status_code == 200 and "at least 2 algorithms" not in page.content.decode()
    assert client.get("/b/toy/v2/").status_code == 404


def test_maintainers_see_failures_with_their_error(maintainer, failed):
    api = client_for(maintainer)
    history = api.get("/api/benchmarks/toy/snapshots/").json()
    assert [s["version"] for s in history["results"]] == [2, 1]
    version = api.get("/api/benchmarks/toy/snapshots/2/").json()
    assert version["status"] == "failed"
    assert version["error"] == "ValueError: at least 2 algorithms are needed"
