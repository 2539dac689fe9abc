"""The worker's way from a task to a servable snapshot costs a fixed, small
number of statements (33 before: the state read twice, a get_or_create, three reads of
the versions, the slug and metric names read twice for the cache invalidations, five
progress writes during a 60 ms analysis; 27 since, then 25: the accepted submissions
read once, REPEATABLE READ named in the BEGIN). Counted on a committed database, as a worker
runs (the lease heartbeat in its own thread, so no renewal in the run's own).

The three writes on that way (lease, new version, ready) commit without waiting for
the WAL flush (estimation/recompute/commits.py: about 4 ms each here); a scores' write never
does (see the last test)."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from estimation import services
from estimation.models import RecomputeState, ResultSnapshot
from estimation.recompute import inputs, refresh
from leaderboard.models import Benchmark, Submission
from leaderboard.services import ScoreInput, SubmissionInput, submissions_create
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db(transaction=True)

M, N, FOLDS = 4, 6, 3


def frozen_clock() -> float:
    """The progress writes' clock in these counts: no time passes, so no progress is
    written however slow the machine is (a write paced by elapsed time made
    the count depend on the load)."""
    return 0.0


def _entries(values: np.ndarray, algorithms) -> list[SubmissionInput]:
    return [
        SubmissionInput(
            algorithm=f"a{j}",
            scores=[
                ScoreInput(dataset=f"d{i}", value=float(values[i, f, j]), fold=f)
                for i in range(N)
                for f in range(FOLDS)
            ],
        )
        for j in algorithms
    ]


def _board_of_all(slug: str, seed: int) -> Benchmark:
    """An open benchmark holding one imported submission per algorithm, random fold values."""
    benchmark = make_benchmark(slug, submission_policy="open", bootstrap_size=100)
    values = np.random.default_rng(seed).normal(size=(N, FOLDS, M))
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=_entries(values, range(M)),
        source=Submission.Source.IMPORT,
    )
    return benchmark


def _until_ready(benchmark, monkeypatch) -> tuple[list[str], ResultSnapshot]:
    """The statements of a run from its start until its new version is served (the
    completion of its board comes next, after readers have it)."""
    served: list[int] = []
    complete = refresh.snapshot_uncertainty_store

    def mark(**options):
        served.append(len(queries.captured_queries))
        return complete(**options)

    monkeypatch.setattr(refresh, "snapshot_uncertainty_store", mark)
    with CaptureQueriesContext(connection) as queries:
        (snapshot,) = services.recompute_run(
            benchmark_id=benchmark.pk, owner="worker", clock=frozen_clock
        )
    assert len(served) == 1
    return [q["sql"] for q in queries.captured_queries[: served[0]]], snapshot


def test_a_resubmission_is_served_after_a_fixed_set_of_statements(monkeypatch):
    benchmark = make_benchmark("worker-trips", submission_policy="open", bootstrap_size=100)
    rng = np.random.default_rng(0)
    values = rng.normal(size=(N, FOLDS, M)) + np.arange(M) / 4
    source = Submission.Source.IMPORT
    submissions_create(
        benchmark=benchmark, submitter=None, entries=_entries(values, range(M)), source=source
    )
    services.recompute_run(benchmark_id=benchmark.pk, owner="worker", clock=frozen_clock)
    values[:, :, 1] += 0.3
    submissions_create(
        benchmark=benchmark, submitter=None, entries=_entries(values, [1]), source=source
    )
    statements, snapshot = _until_ready(benchmark, monkeypatch)
    assert snapshot.status == ResultSnapshot.Status.READY and snapshot.version == 2

    def kind(sql: str) -> str:
        return sql.split(None, 1)[0]

    kinds = [kind(s) for s in statements]
    # state; the lease (its own transaction, committed without waiting for the disk:
    # estimation/recompute/commits.py); abandoned versions; benchmark; metrics; then in REPEATABLE READ
    # (named in the BEGIN: no SET) the accepted submissions, read once for their ids and
    # the scores' reader, then the submissions' packed scores (a row per submission) and
    # the benchmark's datasets and algorithms, COMMIT; the version
    # (asynchronous commit): BEGIN, SET, benchmark locked with slug and metric names, the
    # three versions that decide in one SELECT, INSERT, COMMIT; ready (asynchronous
    # commit): BEGIN, SET, lease locked with slug and metric names, UPDATE, the sections
    # in one INSERT, COMMIT.
    assert kinds == [
        "SELECT", "BEGIN", "SET", "UPDATE", "COMMIT", "UPDATE", "SELECT", "SELECT",
        "BEGIN", "SELECT", "SELECT", "SELECT", "SELECT", "COMMIT",
        "BEGIN", "SET", "SELECT", "SELECT", "INSERT", "COMMIT",
        "BEGIN", "SET", "SELECT", "UPDATE", "INSERT", "COMMIT",
    ], statements  # fmt: skip
    assert sum('FROM "leaderboard_submission"' in s for s in statements) == 1
    assert not any("ISOLATION" in s for s in statements)
    assert sum(s.startswith("INSERT INTO estimation_snapshotsection") for s in statements) == 1
    assert sum("FOR UPDATE OF" in s for s in statements) == 2
    # Every transaction that writes before the version is served is one of derived data.
    asynchronous = [s for s in statements if s.startswith("SET LOCAL synchronous_commit")]
    assert len(asynchronous) == 3 and all(s.endswith("TO off") for s in asynchronous)
    # No progress write and no second read of the slug and metric names.
    assert not any('SET "stage"' in s for s in statements)
    assert not any(s.startswith('SELECT "leaderboard_benchmark"."slug"') and "FOR UPDATE" not in s
                   for s in statements)  # fmt: skip
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert state.computed_revision == state.requested_revision and state.lease_owner == ""


def test_a_derived_transaction_inside_a_callers_keeps_the_callers_commit_synchronous():
    """Inside an outer transaction (which may write scores) the setting is not made."""
    from django.db import transaction

    from estimation.recompute.commits import derived_atomic

    def setting() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return cursor.fetchone()[0]

    default = setting()
    with derived_atomic():
        assert setting() == "off"
    assert setting() == default  # SET LOCAL: that transaction only
    with transaction.atomic():
        with derived_atomic():
            assert setting() == default


def test_the_input_is_read_in_one_repeatable_read_snapshot_and_the_level_goes_back(monkeypatch):
    """The level is named in the BEGIN (no statement of its own), so it is checked from
    inside the read; the worker's later transactions (the version's row lock, the ready
    save) run at the connection's own level again, also after a read that raised."""
    benchmark = _board_of_all("read-level", seed=1)

    def level() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            return cursor.fetchone()[0]

    default = level()
    assert default != "repeatable read"
    seen: list[str] = []
    build = inputs.result_table_build

    def reading(**kwargs):
        seen.append(level())
        return build(**kwargs)

    monkeypatch.setattr(inputs, "result_table_build", reading)
    monkeypatch.setattr(refresh, "snapshot_uncertainty_store", lambda **kwargs: True)
    locked: list[str] = []
    lock = refresh._benchmark_lock

    def locking(benchmark_id):
        locked.append(level())
        return lock(benchmark_id)

    monkeypatch.setattr(refresh, "_benchmark_lock", locking)
    (snapshot,) = services.recompute_run(
        benchmark_id=benchmark.pk, owner="worker", clock=frozen_clock
    )
    assert snapshot.status == ResultSnapshot.Status.READY
    assert seen == ["repeatable read"] and locked == [default]

    def unreadable(**kwargs):
        seen.append(level())
        raise RuntimeError("injected")

    monkeypatch.setattr(inputs, "result_table_build", unreadable)
    with pytest.raises(RuntimeError):
        inputs.metric_input_read(benchmark=benchmark, metric=benchmark.metrics.get())
    assert seen[-1] == "repeatable read"
    assert level() == default


def test_the_boards_completion_commits_without_waiting_for_the_disk(monkeypatch):
    """The completion (bootstrap intervals and evaluation) is derived data too: a crash
    that loses it leaves a deferred board, which the completion sweep completes."""
    benchmark = _board_of_all("complete-async", seed=2)
    monkeypatch.setattr(refresh, "snapshot_advisor_store", lambda **kwargs: None)
    with CaptureQueriesContext(connection) as queries:
        (snapshot,) = services.recompute_run(
            benchmark_id=benchmark.pk, owner="worker", clock=frozen_clock
        )
    statements = [q["sql"] for q in queries.captured_queries]
    (replace,) = [
        i
        for i, s in enumerate(statements)
        if s.startswith('UPDATE "estimation_snapshotsection" SET "body"')
    ]
    begin = max(i for i in range(replace) if statements[i] == "BEGIN")
    assert statements[begin + 1] == "SET LOCAL synchronous_commit TO off", statements[begin:]
    snapshot.refresh_from_db()
    assert "uncertainty_s" in snapshot.timings
