"""Growth between prunes stays bounded, at small scale.

The soak that found the problem wrote 287 versions in 15 minutes between hourly prunes
(rows 18 -> 305, 10.6 -> 51.4 MB) and grew Redis to 147 MB. Here: a benchmark takes a
new submission and a recompute 16 times, readers fetch ``snapshots/latest/`` after each,
and retention runs every fourth version (beat runs it every PODIUM_PRUNE_SECONDS, 5
minutes); the stored versions, their sections and their bytes stay within one burst's
worth. Redis, shared by the cache and the broker, is bounded by ``maxmemory`` with the
``volatile-lru`` policy compose sets: cache entries (all written with an expiry) are
evicted, the broker's queues (no expiry) never are.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
import redis
from django.db import connection

from estimation.models import ResultSnapshot, SnapshotSection
from estimation.recompute.retention import snapshots_prune
from estimation.services import recompute_run
from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db(transaction=True)

VERSIONS = 12
PRUNE_EVERY = 4


def _section_bytes() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(length(body)), 0) FROM estimation_snapshotsection")
        return cursor.fetchone()[0]


def test_versions_sections_and_bytes_stay_bounded_between_prunes(client, settings):
    settings.SNAPSHOT_COALESCE_SECONDS = 600
    benchmark = make_benchmark(
        slug="growth", submission_policy=Benchmark.SubmissionPolicy.OPEN, bootstrap_size=100
    )
    datasets = [f"d{i}" for i in range(5)]
    for j in range(3):
        values = {d: 0.5 + 0.1 * ((i + j) % 4) for i, d in enumerate(datasets)}
        make_submission(benchmark, f"base-{j}", values)
    recompute_run(benchmark_id=benchmark.pk, owner="growth")
    one_version = _section_bytes()
    sections_per_version = SnapshotSection.objects.count()
    most_rows = most_bytes = 0
    for step in range(1, VERSIONS + 1):
        values = {d: 0.3 + 0.05 * ((i * step) % 7) for i, d in enumerate(datasets)}
        make_submission(benchmark, f"new-{step}", values)
        recompute_run(benchmark_id=benchmark.pk, owner="growth")
        assert client.get("/api/benchmarks/growth/snapshots/latest/").status_code == 200
        most_rows = max(most_rows, ResultSnapshot.objects.count())
        most_bytes = max(most_bytes, _section_bytes())
        if step % PRUNE_EVERY == 0:
            snapshots_prune()
            # The served (newest) version stays; the burst before it is gone.
            assert ResultSnapshot.objects.count() == 1
    newest = ResultSnapshot.objects.get()
    assert newest.version == VERSIONS + 1 and newest.status == "ready"
    # Between prunes: at most the versions of one interval plus the served one.
    assert most_rows <= PRUNE_EVERY + 1
    assert SnapshotSection.objects.count() == sections_per_version
    # New algorithms make each version a little larger than the first: 2x is room.
    assert most_bytes <= (PRUNE_EVERY + 1) * one_version * 2
    assert _section_bytes() <= one_version * 2


@pytest.mark.integration
def test_redis_maxmemory_evicts_cache_entries_and_keeps_broker_queues(tmp_path):
    from tests.reliability.conftest import free_port, wait_for_port

    port = free_port()
    server = subprocess.Popen(
        [shutil.which("redis-server") or "redis-server", "--port", str(port),
         "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--maxmemory", "8mb", "--maxmemory-policy", "volatile-lru"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_port(port, server)
        client = redis.Redis(port=port)
        # A broker queue and kombu's unacked hash: no expiry, as kombu writes them.
        client.rpush("podium", *[b"task-%d" % i for i in range(1000)])
        client.hset("unacked", mapping={f"t{i}": "x" * 100 for i in range(100)})
        from django.core.cache.backends.redis import RedisCache

        cache = RedisCache(f"redis://127.0.0.1:{port}/0", {"TIMEOUT": 3600})
        for i in range(3000):  # ~30 MB of bodies, every one with an expiry
            cache.set(f"b2:body-{i}", b"x" * 10_000)
        used = client.info("memory")["used_memory"]
        assert used <= 9 * 1024 * 1024, used
        assert client.llen("podium") == 1000
        assert client.hlen("unacked") == 100
        assert client.dbsize() < 3000  # entries were evicted
    finally:
        server.kill()
        server.wait(timeout=10)
