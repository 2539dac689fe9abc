"""An expected 503 (the database away, a dependency down) is one log line, no traceback:
an outage of a minute under load wrote hundreds of tracebacks."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from tests.factories import make_benchmark
from tests.operations.outage import database_unreachable

pytestmark = pytest.mark.django_db(transaction=True)


def _records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("path", ["/api/benchmarks/toy/snapshots/latest/", "/b/toy/"])
def test_a_database_outage_logs_one_line_per_503(path, caplog):
    make_benchmark(slug="toy")
    client = Client(raise_request_exception=False)
    with database_unreachable(), caplog.at_level(logging.INFO):
        response = client.get(path)
    assert response.status_code == 503 and response["Retry-After"] == "10"
    records = _records(caplog)
    assert len(records) == 1, [r.getMessage() for r in records]
    (record,) = records
    assert record.exc_info is None and "\n" not in record.getMessage()
    assert record.getMessage().startswith(f"503 GET {path}: database unavailable: ")


def test_a_failing_readiness_check_logs_one_line(caplog):
    with database_unreachable(), caplog.at_level(logging.INFO):
        response = Client(raise_request_exception=False).get("/health/ready/")
    assert response.status_code == 503
    records = _records(caplog)
    assert len(records) == 1 and records[0].exc_info is None
    assert "\n" not in records[0].getMessage()
    assert records[0].getMessage().startswith("503 GET /health/ready/: not ready (database: ")


def test_a_crash_still_logs_its_traceback(caplog, monkeypatch):
    from leaderboard.api import benchmarks

    def crash(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(benchmarks, "benchmark_list_visible", crash)
    with caplog.at_level(logging.INFO):
        response = Client(raise_request_exception=False).get("/api/benchmarks/")
    assert response.status_code == 500
    assert any(r.exc_info is not None for r in _records(caplog))
