"""The anonymous fast path of snapshots/latest/: one cache read, no query, same answer.

Real PostgreSQL and real Redis (the API tests' own cache prefix); the requests go
through the whole middleware stack (APIClient is Django's test client).
"""

from __future__ import annotations

import brotli
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from estimation.latest_cache import latest_entry_get, latest_entry_put, latest_generation
from estimation.models import ResultSnapshot
from estimation.services import recompute_run, snapshot_refresh
from leaderboard.models import Benchmark
from leaderboard.services import benchmark_update, submission_accept
from tests.api import test_snapshots
from tests.api.conftest import client_for
from tests.factories import hold_recompute_lease, make_submission

BASE = test_snapshots.BASE
LATEST = f"{BASE}latest/"
computed = test_snapshots.computed

pytestmark = pytest.mark.django_db

HEADERS = ("ETag", "Last-Modified", "Cache-Control", "Content-Type", "Vary", "Content-Encoding")


def get(api, url=LATEST, **headers):
    """The response and the number of database queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = api.get(url, **headers)
    return response, len(queries.captured_queries)


def same_answer(a, b) -> bool:
    return (
        a.status_code == b.status_code
        and a.content == b.content
        and all(a.get(h) == b.get(h) for h in HEADERS)
    )


def test_a_second_anonymous_get_is_served_without_a_query(client, computed):
    first, n_first = get(client)
    assert first.status_code == 200 and n_first > 0
    again, n_again = get(client)
    assert n_again == 0
    assert same_answer(first, again)
    assert again.json()["version"] == 1 and again.json()["failure"] is None
    # The compressed bodies too, each the view's own bytes.
    for coding in ("gzip", "br"):
        slow_client = client_for(computed.benchmark.maintainers.get())  # never the fast path
        slow, n_slow = get(slow_client, HTTP_ACCEPT_ENCODING=coding)
        fast, n_fast = get(client, HTTP_ACCEPT_ENCODING=coding)
        assert n_slow > 0 and n_fast == 0
        assert fast["Content-Encoding"] == coding and fast.content == slow.content
        assert fast["ETag"] == slow["ETag"] and fast["Vary"] == again["Vary"]
    assert brotli.decompress(fast.content) == first.content


def test_304_from_the_cache_alone(client, computed):
    first = client.get(LATEST)
    etag, last_modified = first["ETag"], first["Last-Modified"]
    for headers in (
        {"HTTP_IF_NONE_MATCH": etag},
        {"HTTP_IF_NONE_MATCH": f"W/{etag}"},
        {"HTTP_IF_MODIFIED_SINCE": last_modified},
    ):
        response, n = get(client, **headers)
        assert (response.status_code, response.content, n) == (304, b"", 0)
        assert response["ETag"] == etag and response["Last-Modified"] == last_modified
    other, n = get(client, HTTP_IF_NONE_MATCH='"other"')
    assert other.status_code == 200 and n == 0 and other.content == first.content


def test_a_new_version_is_served_at_once(client, computed, benchmark):
    etag = client.get(LATEST)["ETag"]
    assert get(client, HTTP_IF_NONE_MATCH=etag)[1] == 0  # cached
    submission_accept(
        submission=make_submission(benchmark, "delta", {"d1": 0.2, "d2": 0.3, "d3": 0.9})
    )
    # Requested, not started: the view too would answer 304 (no version row yet).
    assert get(client, HTTP_IF_NONE_MATCH=etag)[0].status_code == 304
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    assert snapshot.version == 2 and snapshot.status == ResultSnapshot.Status.READY
    fresh, n = get(client, HTTP_IF_NONE_MATCH=etag)
    assert (fresh.status_code, fresh.json()["version"], n > 0) == (200, 2, True)
    assert fresh["ETag"] != etag and fresh.json()["computing"] is None
    response, n = get(client, HTTP_IF_NONE_MATCH=fresh["ETag"])
    assert (response.status_code, n) == (304, 0)


def test_a_computing_version_drops_the_entry(client, computed):
    client.get(LATEST)
    hold_recompute_lease(computed.benchmark_id)
    ResultSnapshot.objects.create(
        benchmark=computed.benchmark,
        metric=computed.metric,
        version=2,
        fingerprint="f" * 64,
        engine_version=computed.engine_version,
        stage="bootstrap",
        progress=0.5,
    )
    response, n = get(client)
    assert n > 0 and response.json()["computing"]["version"] == 2
    # While it computes its progress is in the body: nothing is kept.
    assert get(client)[1] > 0


def test_a_failure_is_in_the_cached_answer_and_its_etag(client, benchmark, maintainer):
    for name, values in {"a": {"d1": 0.5, "d2": 0.7}, "b": {"d1": 0.6, "d2": 0.4}}.items():
        submission_accept(submission=make_submission(benchmark, name, values), user=maintainer)
    recompute_run(benchmark_id=benchmark.pk, owner="test")
    before = client.get(LATEST)
    assert before.json()["failure"] is None
    ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=benchmark.metrics.get(),
        version=2,
        fingerprint="b",
        engine_version="test",
        status=ResultSnapshot.Status.FAILED,
        failed_during=ResultSnapshot.FailedDuring.ANALYSIS,
        error="ValueError: at least 2 algorithms are needed",
        finished_at=timezone.now(),
    )
    failed, n = get(client, HTTP_IF_NONE_MATCH=before["ETag"])
    assert failed.status_code == 200 and n > 0
    assert failed.json()["version"] == 1 and failed.json()["failure"]["version"] == 2
    assert failed["ETag"] != before["ETag"]
    cached, n = get(client)
    assert n == 0 and same_answer(failed, cached)


def test_a_private_benchmark_is_never_served_from_the_cache(
    client, private_benchmark, maintainer, stranger
):
    for name, values in {"a": {"d1": 0.5, "d2": 0.7}, "b": {"d1": 0.6, "d2": 0.4}}.items():
        submission_accept(
            submission=make_submission(private_benchmark, name, values), user=maintainer
        )
    recompute_run(benchmark_id=private_benchmark.pk, owner="test")
    url = "/api/benchmarks/secret/snapshots/latest/"
    owner = client_for(maintainer)
    for _ in range(2):
        assert owner.get(url).status_code == 200
    assert latest_entry_get(slug="secret", metric="") is None  # a maintainer's answer
    assert client.get(url).status_code == 404
    assert client_for(stranger).get(url).status_code == 404
    # A forced (cookie-less) login is not taken for anonymous by the view either.
    forced = type(client)()
    forced.force_authenticate(maintainer)
    assert forced.get(url).status_code == 200
    assert latest_entry_get(slug="secret", metric="") is None
    assert client.get(url).status_code == 404


def test_an_unlisted_benchmark_is_always_served_by_the_view(client, benchmark, maintainer):
    benchmark_update(benchmark=benchmark, user=maintainer, visibility=Benchmark.Visibility.UNLISTED)
    for name, values in {"a": {"d1": 0.5, "d2": 0.7}, "b": {"d1": 0.6, "d2": 0.4}}.items():
        submission_accept(submission=make_submission(benchmark, name, values), user=maintainer)
    recompute_run(benchmark_id=benchmark.pk, owner="test")
    for _ in range(2):
        response, n = get(client)
        assert response.status_code == 200 and n > 0
    assert latest_entry_get(slug="toy", metric="") is None


def test_a_benchmark_made_private_is_not_leaked(client, computed, benchmark, maintainer):
    assert client.get(LATEST).status_code == 200
    assert get(client)[1] == 0  # cached
    benchmark_update(benchmark=benchmark, user=maintainer, visibility=Benchmark.Visibility.PRIVATE)
    response, n = get(client)
    assert response.status_code == 404 and n > 0
    assert get(client)[0].status_code == 404
    assert client_for(maintainer).get(LATEST).status_code == 200


def test_credentials_and_other_queries_take_the_view(client, computed, maintainer):
    client.get(LATEST)
    assert get(client)[1] == 0
    assert get(client_for(maintainer))[1] > 0  # a session cookie
    assert get(client, HTTP_AUTHORIZATION="Token nonsense")[0].status_code == 401
    assert get(client, HTTP_ACCEPT="text/html")[1] > 0  # the browsable API
    assert get(client, f"{LATEST}?format=json")[1] > 0
    metric, n = get(client, f"{LATEST}?metric=score")
    assert n > 0 and metric.status_code == 200
    assert get(client, f"{LATEST}?metric=score")[1] == 0  # its own entry
    assert get(client, f"{LATEST}?metric=nope")[0].status_code == 404
    other_host, n = get(client, HTTP_HOST="127.0.0.1")
    assert n > 0 and b"http://127.0.0.1/" in other_host.content


def test_clients_that_only_poll_with_if_none_match_refill_the_entry(client, computed):
    etag = client.get(LATEST)["ETag"]
    computed.save(update_fields=["cited_at"])  # the entry goes (the answer does not change)
    polled, n = get(client, HTTP_IF_NONE_MATCH=etag)
    assert (polled.status_code, polled["ETag"]) == (304, etag) and n > 0
    again, n = get(client, HTTP_IF_NONE_MATCH=etag)
    assert (again.status_code, n) == (304, 0)
    assert (
        get(client)[0].content
        == client_for(computed.benchmark.maintainers.get()).get(LATEST).content
    )


def test_an_entry_computed_before_an_invalidation_is_not_stored(computed):
    generation = latest_generation(slug="toy")
    ResultSnapshot.objects.filter(pk=computed.pk).update(cited_at=timezone.now())
    computed.save(update_fields=["cited_at"])  # a snapshot saved: the benchmark's entries go
    assert latest_generation(slug="toy") != generation
    stored = latest_entry_put(slug="toy", metric="", generation=generation, entry=object())  # type: ignore[arg-type]
    assert stored is False and latest_entry_get(slug="toy", metric="") is None


def test_the_fast_path_is_throttled_like_the_view(client, computed, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "anon": "3/minute",
        },
    }
    statuses = [client.get(LATEST).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]


@pytest.mark.parametrize("query", ["?metric=", "?metric=a%00b", "?metric=score&metric=score"])
def test_a_query_the_view_refuses_is_refused_with_the_cache_warm(client, computed, query):
    """Schemathesis found ``?metric=`` served 200 from the cache: the fast path takes only
    what the view's own query check accepts."""
    assert get(client)[0].status_code == 200 and get(client)[1] == 0  # the entry is warm
    refused, _ = get(client, LATEST + query)
    assert refused.status_code == 400
    assert [p["field"] for p in refused.json()["problems"]] == ["metric"]
