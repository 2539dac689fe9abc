"""A fault that is over in seconds still reaches the operator: a Celery worker killed with
SIGKILL and started again by its supervisor, a gunicorn worker killed and replaced at once.
Neither leaves anything down to see (the heartbeat is fresh again, the site answers), so
the event itself is recorded and shown on /status/ and counted in /metrics; a clean stop
or a routine recycle is not an incident. Real worker and gunicorn processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import redis
from django.test import Client

from operations.heartbeats import heartbeats_mirrored, mirror_key
from operations.incidents import (
    REDIS_RESTARTED,
    WEB_WORKER_DIED,
    WORKER_RESTARTED,
    _keys,
    incident_record,
    incidents_recent,
)
from operations.status import operations_status
from tests.factories import make_user
from tests.processes import ROOT, celery_worker_process, subprocess_env, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TOKEN = "metrics-token-for-incidents"


@pytest.fixture(autouse=True)
def clean_redis(settings):
    settings.PODIUM_METRICS_TOKEN = TOKEN
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    keys = [mirror_key(), *_keys()]
    client.delete(*keys)
    yield
    client.delete(*keys)


def _kinds() -> list[str]:
    return [incident.kind for incident in incidents_recent() or []]


def _heartbeat_after(moment) -> bool:
    return any(h.role == "worker" and h.started_at > moment for h in heartbeats_mirrored() or [])


def test_a_worker_killed_and_restarted_is_an_incident_and_a_clean_stop_is_not():
    from django.utils import timezone

    env = {"PODIUM_HEARTBEAT_SECONDS": "1"}
    for stop in (signal.SIGTERM, signal.SIGKILL):
        started = timezone.now()
        with celery_worker_process(**env) as worker:
            wait_until(lambda s=started: _heartbeat_after(s), timeout=120, interval=0.2)
            os.kill(worker.pid, stop)  # SIGTERM: a warm shutdown, its hooks run
            worker.wait(timeout=60)
        assert _kinds() == []  # nothing is known until the worker starts again
    # Started again after the SIGKILL, as a supervisor does: the incident is recorded
    # before its first heartbeat (the clean stop before it recorded none).
    restarted = timezone.now()
    with celery_worker_process(**env):
        wait_until(lambda: _heartbeat_after(restarted), timeout=120, interval=0.2)
    (incident,) = incidents_recent() or []
    assert incident.kind == WORKER_RESTARTED and "after an unclean stop" in incident.detail
    assert incident.source.startswith("celery@")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()]


def _get(port: int, path: str = "/health/") -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
        return response.status


def test_a_web_worker_killed_is_an_incident_and_a_recycled_one_is_not(tmp_path):
    port = _free_port()
    env = subprocess_env(
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="1",
        GUNICORN_MAX_REQUESTS="2",  # recycled (a clean exit) every two requests
        GUNICORN_MAX_REQUESTS_JITTER="0",
        GUNICORN_ACCESSLOG="",
        GUNICORN_ERRORLOG=str(tmp_path / "gunicorn.log"),
        PODIUM_THROTTLE_ANON="",
    )
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "-c", "config/gunicorn.py",
         "config.wsgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:

        def answers() -> bool:
            try:
                return _get(port) == 200
            except OSError:
                assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
                return False

        wait_until(answers, timeout=120, interval=0.2)
        # Five answers: two workers recycled after two each; the third has served one, so
        # it is not on its way out (one killed while it exits cleanly is no incident).
        for _ in range(4):
            wait_until(answers, timeout=60, interval=0.1)
        wait_until(lambda: len(_children(server.pid)) == 1, timeout=60, interval=0.1)
        assert _kinds() == []
        (victim,) = _children(server.pid)
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: _kinds() == [WEB_WORKER_DIED], timeout=60, interval=0.1)
        wait_until(answers, timeout=60, interval=0.1)  # replaced, as before
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
    assert _kinds() == [WEB_WORKER_DIED]  # shutting down is no incident
    assert str(victim) in (incidents_recent() or [])[0].detail


def test_incidents_show_on_the_status_page_and_count_in_metrics():
    incident_record(kind=WEB_WORKER_DIED, source="web", detail="web worker 4242 died")
    incident_record(kind=WORKER_RESTARTED, source="celery@a", detail="worker celery@a restarted")
    staff = make_user("operator")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(staff)
    page = client.get("/status/").content.decode()
    assert page.count('data-testid="status-incident"') == 2
    assert "web worker 4242 died" in page and "2 incidents in the last 15 minutes" in page
    metrics = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    assert f'podium_incidents_total{{kind="{WEB_WORKER_DIED}"}} 1.0' in metrics
    assert f'podium_incidents_total{{kind="{WORKER_RESTARTED}"}} 1.0' in metrics
    # a maintainer's view of their own benchmarks shows no deployment's incidents
    assert operations_status(benchmark_ids=[], queue=False).incidents == ()


def test_a_redis_restart_is_one_incident_whichever_processes_notice_it(settings, monkeypatch):
    from django.utils import timezone

    from bench.scratch_services import ScratchRedis
    from operations import incidents
    from operations.heartbeats import heartbeat_mirror

    scratch = ScratchRedis()
    scratch.start()
    try:
        settings.CELERY_BROKER_URL = scratch.url
        monkeypatch.setattr(incidents, "_redis_run_id", None)
        beat = {"role": "worker", "name": "celery@a", "started_at": timezone.now()}
        heartbeat_mirror(**beat)  # the first sight: nothing to compare with
        heartbeat_mirror(**beat)
        before = incidents._redis_run_id
        assert _kinds() == [] and before is not None
        scratch.stop()
        scratch.start()  # the same port, its data gone (no persistence)
        heartbeat_mirror(**beat)
        assert _kinds() == [REDIS_RESTARTED]
        # another process that saw the old server notices it too: still one incident
        monkeypatch.setattr(incidents, "_redis_run_id", before)
        heartbeat_mirror(**beat)
        assert _kinds() == [REDIS_RESTARTED]
    finally:
        scratch.stop()
