"""What separates a served snapshot from its analysis costs few round trips.

Dropping a benchmark's cached answers reads its slug and metric names in one query (a
snapshot's creation and its save each drop them while the reader waits), and section
bodies are stored with lz4 where PostgreSQL has it (several times faster than pglz on
the megabytes of a large board).
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from estimation.latest_cache import (
    LatestEntry,
    benchmark_generation,
    generation_cache_key,
    latest_entry_get,
    latest_entry_put,
    latest_invalidate,
)
from leaderboard.models import Metric
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db


def test_invalidating_by_id_reads_slug_and_metric_names_in_one_query():
    benchmark = make_benchmark("one-read")
    Metric.objects.create(benchmark=benchmark, name="time", direction="lower")
    before = benchmark_generation(slug="one-read")
    entry = LatestEntry(etag='"e"', last_modified=timezone.now(), origin="http://x/", body=b"")
    for metric in ("", "score", "time"):
        assert latest_entry_put(slug="one-read", metric=metric, generation=before, entry=entry)
    with CaptureQueriesContext(connection) as queries:
        latest_invalidate(benchmark_id=benchmark.pk)
    assert len(queries.captured_queries) == 1
    after = cache.get(generation_cache_key(slug="one-read"))
    assert after is not None and after != before
    for metric in ("", "score", "time"):  # every metric's entry went
        assert latest_entry_get(slug="one-read", metric=metric) is None


def test_invalidating_a_missing_benchmark_does_nothing():
    with CaptureQueriesContext(connection) as queries:
        latest_invalidate(benchmark_id=10**9)
    assert len(queries.captured_queries) == 1


def _server_has_lz4() -> bool:
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("CREATE TEMP TABLE lz4_probe (b text COMPRESSION lz4)")
            cursor.execute("DROP TABLE lz4_probe")
    except DatabaseError:
        return False
    return True


def test_section_bodies_are_stored_with_lz4_where_the_server_has_it():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute WHERE attname = 'body' "
            "AND attrelid = 'estimation_snapshotsection'::regclass"
        )
        method = cursor.fetchone()[0]
    assert method == ("l" if _server_has_lz4() else "")
