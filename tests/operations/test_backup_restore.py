"""The backup and restore of docs/operators.md, run as written (without Docker): ``pg_dump -Fc`` of a
live database, ``pg_restore`` into a fresh one, and the restored site serves the same
pages; a version caught mid-completion by the dump (served, its advisor not stored yet)
is completed by beat's sweep and a worker on the restored database.

Redis is not backed up: it holds cache entries (rebuilt on demand), throttle counters
and queued tasks, and the sweep re-enqueues every recompute the database says is due.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.utils import timezone

from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from estimation.services import recompute_run
from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_submission
from tests.processes import ROOT, celery_worker_process, subprocess_env, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SLUG = "backup"
URLS = [
    "/",
    f"/b/{SLUG}/",
    f"/b/{SLUG}/charts/",
    f"/b/{SLUG}/history/",
    f"/b/{SLUG}/v1/",
    f"/b/{SLUG}/scores.csv",
    "/api/benchmarks/",
    f"/api/benchmarks/{SLUG}/snapshots/latest/",
    f"/api/benchmarks/{SLUG}/snapshots/1/",
]

# Fetches URLS with Django's test client in a process of its own (the database named by
# DATABASE_URL) and prints, per URL, the status and a digest of the body; JSON bodies
# without their "timings" (seconds a run took, which differ between two runs).
FETCH = """
import hashlib, json
from django.test import Client
def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "timings"}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value
out = {}
client = Client()
for url in %(urls)r:
    response = client.get(url, HTTP_HOST="localhost")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    if response.get("Content-Type", "").startswith("application/json"):
        body = json.dumps(strip(json.loads(body)), sort_keys=True).encode()
    out[url] = [response.status_code, hashlib.sha256(body).hexdigest(), b"advisor-pending" in body]
print("PAGES " + json.dumps(out))
"""


def _url(database: str) -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{db['USER'] or 'postgres'}@{db['HOST']}:{db['PORT']}/{database}"


def _pages(database: str) -> dict[str, list]:
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", FETCH % {"urls": URLS}],
        cwd=ROOT, env=subprocess_env(DATABASE_URL=_url(database), PODIUM_THROTTLE_ANON=""),
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("PAGES "))
    return json.loads(line.removeprefix("PAGES "))


def _pg(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.fail(
            f"{tool} not found (PostgreSQL's client tools: apt-get install postgresql-client)"
        )
    return found


def test_a_dump_restored_into_a_fresh_database_serves_the_same_pages(tmp_path: Path):
    benchmark = make_benchmark(
        slug=SLUG, submission_policy=Benchmark.SubmissionPolicy.OPEN, bootstrap_size=100
    )
    for j in range(3):
        make_submission(
            benchmark, f"alg-{j}", {f"d{i}": 0.5 + 0.1 * ((i + j) % 4) for i in range(5)}
        )
    recompute_run(benchmark_id=benchmark.pk, owner="backup-test")
    served = ResultSnapshot.objects.get(benchmark=benchmark)
    assert SnapshotSection.objects.filter(snapshot=served, name="advisor").exists()
    source = settings.DATABASES["default"]["NAME"]
    before = _pages(source)
    assert all(status == 200 for status, _, _ in before.values()), before

    # The dump catches a version served without its advisor, with the revision already
    # counted as computed (nothing stale: the sweep of stale revisions finds nothing),
    # and a lease of a worker that the restored site will never see.
    SnapshotSection.objects.filter(snapshot=served, name="advisor").delete()
    RecomputeState.objects.filter(pk=benchmark.pk).update(
        lease_owner="worker-of-the-old-site", lease_expires_at=timezone.now()
    )
    assert not RecomputeState.objects.get(pk=benchmark.pk).is_stale

    # docs/operators.md, "Backup and restore": the same commands, with local processes.
    dump = tmp_path / "podium.dump"
    connect = ["-h", settings.DATABASES["default"]["HOST"], "-p", str(settings.DATABASES["default"]["PORT"]), "-U", "postgres"]  # fmt: skip
    subprocess.run(
        [_pg("pg_dump"), *connect, "-Fc", "-f", str(dump), source], check=True, timeout=120
    )
    restored = f"podium_restored_{uuid.uuid4().hex[:8]}"
    subprocess.run([_pg("createdb"), *connect, restored], check=True, timeout=60)
    try:
        subprocess.run(
            [_pg("pg_restore"), *connect, "--no-owner", "--exit-on-error", "-d", restored, str(dump)],
            check=True, timeout=120,
        )  # fmt: skip
        assert _pages(restored)[f"/b/{SLUG}/charts/"][2] is True  # advisor pending: as dumped

        # Beat's sweep on the restored site, and a worker: the version is completed.
        queue = f"podium-restore-{uuid.uuid4().hex[:8]}"
        env = {"DATABASE_URL": _url(restored), "CELERY_QUEUE": queue}
        # The restored site's queues: without them the worker would take the test
        # process's (its settings), and the sweep's tasks would wait unconsumed.
        with celery_worker_process(queues=[queue, f"{queue}-bulk"], **env):
            subprocess.run(
                [sys.executable, "manage.py", "shell", "-c",
                 "from estimation.tasks import recompute_stale; print(recompute_stale())"],
                cwd=ROOT, env=subprocess_env(**env), check=True, timeout=120,
                capture_output=True,
            )  # fmt: skip
            with psycopg.connect(_url(restored), autocommit=True) as conn:

                def completed() -> bool:
                    row = conn.execute(
                        "SELECT count(*) FROM estimation_snapshotsection WHERE name = 'advisor'"
                    ).fetchone()
                    # (the completion takes no lease: the old site's expired one stays,
                    # and holds nothing)
                    state = conn.execute(
                        "SELECT computed_revision = requested_revision "
                        "FROM estimation_recomputestate"
                    ).fetchone()
                    return row[0] == 1 and state[0]

                wait_until(completed, timeout=90, interval=0.5)
                versions = conn.execute(
                    "SELECT version, status FROM estimation_resultsnapshot"
                ).fetchall()
        assert versions == [(1, "ready")]  # completed in place, not recomputed anew

        after = _pages(restored)
        assert after == before, {u: (before[u], after[u]) for u in URLS if before[u] != after[u]}
    finally:
        subprocess.run([_pg("dropdb"), *connect, "--force", restored], check=False, timeout=60)
