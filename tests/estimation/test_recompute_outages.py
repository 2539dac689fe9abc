"""A database outage in the middle of a recompute is not the version's fault (issue 41:
read from the fault soak's worker logs). A progress write or a "newer input?" check that
loses PostgreSQL used to be taken for a failed analysis or a failed bootstrap: logged with
a traceback, then recorded on the version ("failed", "the bootstrap and evaluation
failed: OperationalError ...") whenever the database answered again in time to take the
record. Now the outage reaches the task, which retries it; the version is computed as if
nothing had happened."""

from __future__ import annotations

import json
import logging

import pytest
from django.db import OperationalError

from estimation.core.analysis import UNCERTAINTY_DEFERRED
from estimation.models import ResultSnapshot, SnapshotSection
from estimation.recompute import inputs, leases, refresh, uncertainty
from estimation.services import (
    ADVISOR_SECTION,
    BOARD_SECTION,
    analysis_settings_for,
    recompute_run,
    result_table_build,
    snapshot_advisor_store,
    snapshot_refresh,
)
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db

OUTAGE = "terminating connection due to administrator command"
VALUES = {
    "a": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
    "b": {"d1": 0.5, "d2": 0.9, "d3": 0.2},
}


def _outage(*args, **kwargs):
    raise OperationalError(OUTAGE)


@pytest.fixture
def benchmark():
    benchmark = make_benchmark("toy")
    for name, values in VALUES.items():
        submission_accept(submission=make_submission(benchmark, name, values))
    return benchmark


def _statuses(benchmark) -> list[tuple[int, str]]:
    rows = ResultSnapshot.objects.filter(benchmark=benchmark).order_by("version")
    return [(s.version, s.status) for s in rows]


@pytest.mark.parametrize("where", ["reading", "analysis", "storing"])
def test_an_outage_during_a_recompute_reaches_the_task_and_fails_no_version(
    benchmark, monkeypatch, caplog, where
):
    if where == "reading":
        monkeypatch.setattr(inputs, "result_table_build", _outage)
    elif where == "analysis":
        monkeypatch.setattr(refresh, "analyze", _outage)  # as a progress write losing it
    else:
        monkeypatch.setattr(refresh, "snapshot_ready_save", _outage)
    with pytest.raises(OperationalError, match=OUTAGE):
        recompute_run(benchmark_id=benchmark.pk, owner="task-1")
    assert all(status != ResultSnapshot.Status.FAILED for _, status in _statuses(benchmark))
    assert "failed" not in caplog.text  # no "analysis of ... failed" with a traceback

    monkeypatch.undo()  # the database is back: the task's retry serves the input
    recompute_run(benchmark_id=benchmark.pk, owner="task-1")
    assert _statuses(benchmark)[-1][1] == ResultSnapshot.Status.READY
    # The version the outage interrupted is "abandoned" (the retry redid it), as after a
    # dead worker; no version says its input, analysis or storing failed.
    failed = ResultSnapshot.objects.filter(status=ResultSnapshot.Status.FAILED)
    assert {s.failed_during for s in failed} <= {ResultSnapshot.FailedDuring.ABANDONED}


def _board(snapshot) -> dict:
    return json.loads(SnapshotSection.objects.get(snapshot=snapshot, name=BOARD_SECTION).body)


def test_an_outage_during_the_completion_leaves_the_board_to_complete(benchmark, monkeypatch):
    monkeypatch.setattr(uncertainty, "analyze_uncertainty", _outage)
    with pytest.raises(OperationalError, match=OUTAGE):
        snapshot_refresh(benchmark_id=benchmark.pk)
    (snapshot,) = ResultSnapshot.objects.filter(benchmark=benchmark)
    assert snapshot.status == ResultSnapshot.Status.READY  # served, not failed
    assert _board(snapshot)["evaluation"] == {"not_applicable": UNCERTAINTY_DEFERRED}

    monkeypatch.undo()
    assert snapshot_refresh(benchmark_id=benchmark.pk) == []  # the retry completes it
    assert "not_applicable" not in _board(snapshot)["evaluation"]
    assert SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()


def test_an_outage_during_the_advisor_stores_no_failed_advisor(benchmark, monkeypatch):
    monkeypatch.setattr(refresh, "snapshot_advisor_store", lambda **kwargs: None)
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    monkeypatch.undo()
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    settings = analysis_settings_for(benchmark=benchmark)
    monkeypatch.setattr(uncertainty, "analyze_advisor", _outage)
    with pytest.raises(OperationalError, match=OUTAGE):
        snapshot_advisor_store(snapshot=snapshot, table=table, settings=settings)
    assert not SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists()


def test_a_lease_heartbeat_losing_the_database_logs_one_line(monkeypatch, caplog, settings):
    settings.RECOMPUTE_LEASE_SECONDS = 0.6  # a beat every 0.2 s
    beats = []

    def renew_once_then_outage(**kwargs):
        beats.append(1)
        if len(beats) > 1:
            heartbeat._stop.set()  # one outage beat is enough
        raise OperationalError(OUTAGE)

    monkeypatch.setattr(leases, "lease_renew", renew_once_then_outage)
    caplog.set_level(logging.WARNING, logger=leases.__name__)
    heartbeat = leases.LeaseHeartbeat(benchmark_id=1, owner="task-1")
    heartbeat._beat()  # in this thread: the loop ends once stopped
    (record, *_) = [r for r in caplog.records if r.name == leases.__name__]
    assert record.getMessage() == f"lease heartbeat of task-1 failed: OperationalError: {OUTAGE}"
    assert record.exc_info is None and "Traceback" not in caplog.text
