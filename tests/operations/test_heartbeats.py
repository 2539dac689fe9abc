"""Heartbeats of a real Celery worker and a real beat, and the warnings that follow when
they stop: the staff status page and "Benchmarks I maintain" say plainly that
recomputes are queued and no worker has been seen."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from estimation.models import RecomputeState
from operations.models import Heartbeat
from operations.status import operations_status
from tests.factories import make_benchmark, make_user
from tests.processes import ROOT, celery_worker_process, subprocess_env, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _queued(benchmark, minutes_ago: int = 3) -> None:
    RecomputeState.objects.update_or_create(
        benchmark=benchmark,
        defaults={
            "requested_revision": 2,
            "computed_revision": 1,
            "requested_at": timezone.now() - timedelta(minutes=minutes_ago),
        },
    )


def test_a_worker_records_its_heartbeat_until_it_dies(settings):
    settings.RECOMPUTE_IN_THREAD = False
    with celery_worker_process(PODIUM_HEARTBEAT_SECONDS="1") as worker:
        row = wait_until(lambda: Heartbeat.objects.filter(role="worker").first(), timeout=60)
        assert settings.CELERY_TASK_DEFAULT_QUEUE in row.queues
        first = row.seen_at
        wait_until(
            lambda: Heartbeat.objects.get(pk=row.pk).seen_at > first, timeout=10, interval=0.2
        )
        worker.kill()
        worker.wait(timeout=10)
    # Asked a second after its last beat (the clock given, not the machine's: a loaded
    # machine may take longer than three beats to get here): still counted alive.
    last = Heartbeat.objects.get(pk=row.pk).seen_at
    status = operations_status(now=last + timedelta(seconds=1))
    assert [w.name for w in status.workers] == [row.name]
    assert status.workers[0].alive  # seen within three heartbeat intervals


def test_beat_records_its_heartbeat_from_its_scheduler(tmp_path):
    queue = f"podium-beat-test-{os.getpid()}"
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=WARNING",
         f"--schedule={tmp_path / 'schedule'}"],
        cwd=ROOT,
        env=subprocess_env(PODIUM_HEARTBEAT_SECONDS="1", CELERY_QUEUE=queue),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        row = wait_until(lambda: Heartbeat.objects.filter(role="beat").first(), timeout=60)
        assert row.name.startswith("beat@")
        first = row.seen_at
        wait_until(
            lambda: Heartbeat.objects.get(pk=row.pk).seen_at > first, timeout=10, interval=0.2
        )
    finally:
        beat.kill()
        _, errors = beat.communicate(timeout=10)
        # What beat sent (the sweeps, due at start) went to a queue of its own: drop it.
        redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(queue)
    assert b"Traceback" not in errors, errors.decode()[-2000:]


def test_status_page_and_maintainers_page_say_when_queued_work_has_no_worker(client, settings):
    settings.RECOMPUTE_IN_THREAD = False
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"  # production's
    settings.EMAIL_HOST = "localhost"
    maintainer = make_user("keeper")
    benchmark = make_benchmark(slug="stalled", creator=maintainer)
    now = timezone.now()
    Heartbeat.objects.create(
        role="worker", name="celery@gone", queues=["podium"],
        started_at=now - timedelta(hours=1), seen_at=now - timedelta(minutes=5, seconds=10),
    )  # fmt: skip
    _queued(benchmark)

    client.force_login(maintainer)
    page = client.get("/maintain/").content.decode()
    assert "1 recompute is queued and no worker has been seen for 5 minutes" in page
    assert "recompute-stall" in page
    # Not staff: no status page.
    assert client.get("/status/").status_code == 302

    staff = make_user("operator")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    status = client.get("/status/")
    assert status.status_code == 200
    text = status.content.decode()
    assert "1 recompute is queued and no worker has been seen for 5 minutes" in text
    assert "No beat scheduler has been seen ever" in text
    assert "Mail to submitters goes to SMTP on localhost:25" in text  # DJANGO_EMAIL_HOST unset
    assert "celery@gone" in text

    # A live worker: no warning about workers on either page.
    Heartbeat.objects.filter(name="celery@gone").update(seen_at=timezone.now())
    client.force_login(maintainer)
    assert "recompute-stall" not in client.get("/maintain/").content.decode()
    client.force_login(staff)
    assert "no worker has been seen" not in client.get("/status/").content.decode()


def test_nothing_to_warn_about_in_the_embedded_mode(settings):
    """No workers to watch; a change just queued is waiting, not stalled (one that
    waited past the stall time would be: a thread can die too)."""
    settings.RECOMPUTE_IN_THREAD = True
    _queued(make_benchmark(slug="embedded"), minutes_ago=0)
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    status = operations_status()
    assert status.recomputes_queued == 1 and status.warnings == ()
    assert all(queue.silent is None for queue in status.queues)
