"""The status page and /metrics tell each fault apart: a dead worker on one
queue while another queue's worker lives, recomputes nobody runs, failed and abandoned
versions (newest or not), task failures of a database outage once it is back; and they
answer while PostgreSQL is down, with what Redis and the process know."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.db import OperationalError
from django.test import Client
from django.utils import timezone

from config.celery import app
from config.queues import bulk_queue, default_queue
from estimation.models import RecomputeState, ResultSnapshot
from operations import failures
from operations.heartbeats import heartbeat_mirror, mirror_key
from operations.models import Heartbeat, TaskFailure
from operations.status import operations_status
from tests.factories import make_benchmark, make_user
from tests.operations.outage import database_unreachable
from tests.processes import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "metrics-token-for-tests"


@pytest.fixture(autouse=True)
def background(settings):
    """Recomputes go to Celery workers (the mode with workers to watch); clean Redis keys."""
    settings.RECOMPUTE_IN_THREAD = False
    settings.PODIUM_METRICS_TOKEN = TOKEN
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    keys = [mirror_key(), failures.failures_key(), failures._flush_lock_key()]
    client.delete(*keys)
    failures._pending.clear()
    yield
    client.delete(*keys)
    failures._pending.clear()


def _flushed() -> None:
    """Flush until the waiting record is in the database: in a full run another flusher of
    this process's queue (an earlier test's worker heartbeat still stopping) may hold the
    flush lock a moment, and write the record itself; a lock left behind lapses after
    FLUSH_LOCK_SECONDS."""
    wait_until(
        lambda: failures.task_failures_flush() == 1 or TaskFailure.objects.exists(),
        timeout=2 * failures.FLUSH_LOCK_SECONDS + 30,
        interval=0.5,
    )
    assert TaskFailure.objects.count() == 1


def _worker(name: str, queues: list[str], seen_ago: timedelta) -> None:
    now = timezone.now()
    Heartbeat.objects.create(
        role="worker",
        name=name,
        queues=queues,
        started_at=now - timedelta(hours=1),
        seen_at=now - seen_ago,
    )


def _metrics(client: Client) -> str:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    return response.content.decode()


def _staff_client() -> Client:
    staff = make_user("operator")
    staff.is_staff = True
    staff.save()
    client = Client(raise_request_exception=False)
    client.force_login(staff)
    return client


def test_a_dead_worker_on_one_queue_shows_while_the_other_queues_worker_lives():
    _worker("celery@main", [default_queue()], seen_ago=timedelta(seconds=5))
    _worker("celery@bulk", [bulk_queue()], seen_ago=timedelta(minutes=5))
    status = operations_status()
    by_queue = {q.queue: q for q in status.queues}
    assert by_queue[default_queue()].alive == 1 and by_queue[default_queue()].silent is None
    assert by_queue[bulk_queue()].alive == 0
    assert f"No worker consuming the {bulk_queue()} queue has been seen for 5 minutes" in (
        by_queue[bulk_queue()].silent or ""
    )
    assert by_queue[bulk_queue()].silent in status.warnings
    assert status.stall is None  # a worker was seen: the old all-queues check was quiet

    client = _staff_client()
    page = client.get("/status/").content.decode()
    assert f'data-queue="{bulk_queue()}" data-alive="0"' in page
    assert f'data-queue="{default_queue()}" data-alive="1"' in page
    assert f"No worker consuming the {bulk_queue()} queue" in page
    text = _metrics(client)
    assert f'podium_queue_workers_alive{{queue="{bulk_queue()}"}} 0.0' in text
    assert f'podium_queue_workers_alive{{queue="{default_queue()}"}} 1.0' in text


def test_stalled_and_orphaned_recomputes_and_failures_reach_both_pages():
    _worker("celery@main", [default_queue(), bulk_queue()], seen_ago=timedelta(seconds=5))
    maintainer = make_user("keeper")
    benchmark = make_benchmark(slug="stuck", creator=maintainer)
    now = timezone.now()
    RecomputeState.objects.update_or_create(
        benchmark=benchmark,
        defaults={
            "requested_revision": 3,
            "computed_revision": 1,
            "requested_at": now,  # a change just now: the old wait read 0 s
            "pending_since": now - timedelta(minutes=7),
        },
    )
    metric = benchmark.metrics.get()
    for version, status, during in [(1, "failed", "abandoned"), (2, "computing", "")]:
        ResultSnapshot.objects.create(
            benchmark=benchmark, metric=metric, version=version, fingerprint=str(version),
            engine_version="x", status=status, failed_during=during,
            error="abandoned: the worker computing it stopped" if during else "",
            finished_at=now - timedelta(minutes=6) if during else None,
        )  # fmt: skip
    ResultSnapshot.objects.create(
        benchmark=benchmark, metric=metric, version=3, fingerprint="3", engine_version="x",
        status="ready", finished_at=now - timedelta(minutes=30),
    )  # fmt: skip
    ResultSnapshot.objects.filter(version=3).update(created_at=now - timedelta(minutes=31))

    status = operations_status()
    assert [s.slug for s in status.stalled] == ["stuck"]
    assert (status.now - status.oldest_queued_at) >= timedelta(minutes=7)
    assert {(p.version, p.kind) for p in status.problems} == {(1, "abandoned"), (2, "orphaned")}

    staff = _staff_client()
    page = staff.get("/status/").content.decode()
    assert 'data-testid="status-stalled-row" data-slug="stuck"' in page
    assert 'data-kind="orphaned" data-problem-version="2"' in page
    assert 'data-kind="abandoned" data-problem-version="1"' in page
    text = _metrics(staff)
    wait = next(
        line for line in text.splitlines() if line.startswith("podium_recompute_oldest_wait")
    )
    assert float(wait.split()[-1]) >= 7 * 60
    assert "podium_recomputes_stalled 1.0" in text and "podium_versions_orphaned 1.0" in text

    owner = Client()
    owner.force_login(maintainer)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        listed = owner.get("/maintain/").content.decode()
    # the rows and the stall notice share one read of the activity and the problems
    assert sum("lease_expires_at" in q["sql"] for q in queries) == 2
    assert 'data-testid="maintained-stalled"' in listed
    assert "2 failed or abandoned recomputes in the last 24 hours" in listed
    history = owner.get("/b/stuck/maintain/snapshots/").content.decode()
    assert 'data-testid="recompute-activity" data-state="stalled"' in history
    assert 'data-kind="orphaned" data-problem-version="2"' in history
    assert 'data-kind="abandoned" data-problem-version="1"' in history


def test_a_task_failure_during_a_database_outage_is_recorded_once_it_is_back():
    benchmark = make_benchmark(slug="outage")
    recompute = app.tasks["estimation.recompute_benchmark"]
    with database_unreachable():
        failures._task_failed(
            sender=recompute,
            task_id="task-1",
            exception=OperationalError("server closed the connection\nunexpectedly"),
            args=(benchmark.pk,),
            kwargs={"slot": None},
        )
    assert not TaskFailure.objects.exists()  # the database was away: kept in Redis
    assert redis.Redis.from_url(settings.CELERY_BROKER_URL).llen(failures.failures_key()) == 1
    _flushed()
    assert failures.task_failures_flush() == 0  # written once
    (row,) = TaskFailure.objects.all()
    assert row.benchmark_id == benchmark.pk and row.task == "estimation.recompute_benchmark"
    assert row.error == "OperationalError: server closed the connection unexpectedly"
    assert row in operations_status().task_failures


def test_status_page_and_metrics_answer_while_the_database_is_down(caplog):
    heartbeat_mirror(
        role="worker", name="celery@main", queues=[default_queue()],
        started_at=timezone.now() - timedelta(hours=1),
    )  # fmt: skip
    staff = _staff_client()
    assert staff.get("/status/").status_code == 200  # sets the staff cookie
    anonymous = Client(raise_request_exception=False)
    with database_unreachable(), caplog.at_level(logging.INFO):
        page = staff.get("/status/")
        text = _metrics(anonymous)
        hidden = anonymous.get("/status/")
    assert page.status_code == 503 and page["Retry-After"]
    body = page.content.decode()
    assert 'data-testid="status-database-down"' in body
    assert "celery@main" in body  # from Redis
    assert f'data-queue="{bulk_queue()}" data-alive="0"' in body
    assert "podium_database_up 0.0" in text
    assert f'podium_queue_workers_alive{{queue="{default_queue()}"}} 1.0' in text
    assert f'podium_queue_workers_alive{{queue="{bulk_queue()}"}} 0.0' in text
    # Without the cookie: that the database is down, nothing more.
    assert hidden.status_code == 503
    assert 'data-testid="status-database-down"' in hidden.content.decode()
    assert "celery@main" not in hidden.content.decode()
    logged = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name != "celery"]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in logged)
    assert sum(r.getMessage().startswith("503 GET /status/") for r in logged) == 2


def test_the_redis_mirror_forgets_a_process_silent_for_a_day():
    now = timezone.now()
    for name, seen in [("celery@old", now - timedelta(days=2)), ("celery@new", now)]:
        heartbeat_mirror(
            role="worker", name=name, queues=[default_queue()],
            started_at=seen - timedelta(hours=1), now=seen,
        )  # fmt: skip
    from operations.heartbeats import heartbeats_mirrored

    assert [h.name for h in heartbeats_mirrored(now=now) or []] == ["celery@new"]
    stored = redis.Redis.from_url(settings.CELERY_BROKER_URL).hkeys(mirror_key())
    assert stored == [b"worker|celery@new"]


def test_a_metrics_scrape_and_the_status_page_write_nothing_to_the_database():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    benchmark = make_benchmark(slug="waiting-failure")
    recompute = app.tasks["estimation.recompute_benchmark"]
    with database_unreachable():  # a failure waits in Redis for a writer
        failures._task_failed(
            sender=recompute, task_id="task-2", exception=OperationalError("gone"),
            args=(benchmark.pk,), kwargs={},
        )  # fmt: skip
    staff = _staff_client()
    with CaptureQueriesContext(connection) as queries:
        _metrics(Client())
        staff.get("/status/")
    writes = [
        q["sql"]
        for q in queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes == [] or all("django_session" in w for w in writes), writes
    assert not TaskFailure.objects.exists()  # the worker's heartbeat or beat writes it
    _flushed()


def test_the_staff_cookie_for_the_database_down_page_is_short_and_dropped_once_revoked():
    from django.contrib.auth import get_user_model

    from operations.views import STAFF_COOKIE

    staff = _staff_client()
    set_cookie = staff.get("/status/").cookies[STAFF_COOKIE]
    assert int(set_cookie["max-age"]) <= 3600
    # the same account, its staff status taken away (saved, as the admin does: the
    # signed-in user's copy goes with it, frontend/accounts/user_copies.py)
    operator = get_user_model().objects.get(username="operator")
    operator.is_staff = False
    operator.save()
    revoked = staff.get("/status/")
    assert revoked.status_code == 302  # to the sign-in page
    assert revoked.cookies[STAFF_COOKIE].value == ""  # deleted
    with database_unreachable():
        page = staff.get("/status/")
    assert page.status_code == 503 and "celery@" not in page.content.decode()
    assert 'data-testid="status-queues"' not in page.content.decode()
