"""PostgreSQL stopped: the staff status page and /metrics still answer (the
status page was itself a 503 error page), with what Redis and the process know, and the
server logs each expected 503 as one line, no traceback. gunicorn with the production
settings, the real cluster stopped and started again."""

from __future__ import annotations

import contextlib

import requests

from tests.processes import wait_until


@contextlib.contextmanager
def _staff(stack):
    with stack.postgres.connect() as db:
        db.execute("UPDATE auth_user SET is_staff = true WHERE username = 'maintainer'")
    try:
        yield
    finally:
        with stack.postgres.connect() as db:
            db.execute("UPDATE auth_user SET is_staff = false WHERE username = 'maintainer'")


def test_status_and_metrics_answer_while_postgres_is_stopped(stack):
    staff = requests.Session()
    staff.cookies.set("sessionid", stack.session)
    with _staff(stack):
        first = staff.get(f"{stack.base_url}/status/", timeout=30)
        assert first.status_code == 200 and 'data-testid="status-queues"' in first.text
        log_before = len(stack.server_errors())
        stack.postgres.stop()
        try:
            page = staff.get(f"{stack.base_url}/status/", timeout=30)
            metrics = requests.get(f"{stack.base_url}/metrics", timeout=30)
            anonymous = requests.get(f"{stack.base_url}/status/", timeout=30)
            api = requests.get(f"{stack.base_url}/api/benchmarks/", timeout=30)
        finally:
            stack.postgres.start()
        wait_until(
            lambda: requests.get(f"{stack.base_url}/health/ready/", timeout=30).status_code == 200,
            timeout=60,
            interval=0.5,
        )
    assert page.status_code == 503 and page.headers["Retry-After"]
    assert 'data-testid="status-database-down"' in page.text
    assert 'data-testid="status-queues"' in page.text  # what Redis knows, for staff
    assert anonymous.status_code == 503 and 'data-testid="status-queues"' not in anonymous.text
    assert metrics.status_code == 200
    assert "podium_database_up 0.0" in metrics.text
    assert "podium_queue_workers_alive" in metrics.text
    assert api.status_code == 503
    logged = stack.server_errors()[log_before:]
    assert "Traceback" not in logged, logged[-3000:]
    assert "503 GET /status/: database unavailable" in logged
    assert "503 GET /api/benchmarks/: database unavailable" in logged
