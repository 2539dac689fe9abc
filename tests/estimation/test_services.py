import itertools

import numpy as np
import pytest

from estimation.models import RecomputeState, ResultSnapshot
from estimation.selectors import snapshot_board
from estimation.services import result_table_build, snapshot_refresh
from leaderboard.services import submission_accept
from tests.engine_memo import engine_results_remembered
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


def accepted(benchmark, algorithm, values, folds=None):
    submission = make_submission(benchmark, algorithm, values, folds=folds)
    return submission_accept(submission=submission)


def a_beats_b_on_one_dataset():
    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9})
    accepted(benchmark, "b", {"d1": 0.1})
    return benchmark


def test_result_table_averages_folds_and_orients_direction():
    benchmark = make_benchmark(direction="lower")
    accepted(benchmark, "a", {"d1": [1.0, 3.0], "d2": [2.0, 2.0]}, folds=True)
    accepted(benchmark, "b", {"d1": [0.5, 0.5], "d2": [4.0, 6.0]}, folds=True)
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    assert table.algorithms == ("a", "b") and table.datasets == ("d1", "d2")
    np.testing.assert_allclose(table.values, [[2.0, 0.5], [2.0, 5.0]])
    assert not table.higher_is_better
    np.testing.assert_allclose(table.oriented(), -table.values)


def test_later_accepted_submission_supersedes_earlier_cells():
    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.1, "d2": 0.2})
    accepted(benchmark, "a", {"d1": 0.9})
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    np.testing.assert_allclose(table.values[:, 0], [0.9, 0.2])


def test_pending_scores_are_not_analysed():
    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.1})
    make_submission(benchmark, "b", {"d1": 0.5})
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    assert table.algorithms == ("a",)


def test_snapshot_refresh_is_idempotent_and_versions_grow():
    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9, "d2": 0.1})
    accepted(benchmark, "b", {"d1": 0.5, "d2": 0.5})
    first = snapshot_refresh(benchmark_id=benchmark.pk)
    assert [s.version for s in first] == [1]
    assert first[0].status == ResultSnapshot.Status.READY
    board = snapshot_board(snapshot=first[0])
    assert board.column(board.win_rate) == {"a": 0.5, "b": 0.5}
    assert first[0].timings["stages"]  # the stage timings live on the snapshot
    assert snapshot_refresh(benchmark_id=benchmark.pk) == []  # same input, same fingerprint
    accepted(benchmark, "c", {"d1": 1.0, "d2": 1.0})
    second = snapshot_refresh(benchmark_id=benchmark.pk)
    assert [s.version for s in second] == [2]
    board = snapshot_board(snapshot=second[0])
    assert board.column(board.win_rate)["c"] == 1.0


def test_failed_analysis_is_recorded_and_previous_snapshot_still_served(monkeypatch):
    from estimation.selectors import snapshot_latest

    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9})
    accepted(benchmark, "b", {"d1": 0.5})
    good = snapshot_refresh(benchmark_id=benchmark.pk)[0]

    def broken(*args, **kwargs):
        raise FloatingPointError("injected fault")

    monkeypatch.setattr("estimation.recompute.refresh.analyze", broken)
    accepted(benchmark, "c", {"d1": 0.7})
    failed = snapshot_refresh(benchmark_id=benchmark.pk)[0]
    assert failed.status == ResultSnapshot.Status.FAILED
    assert "injected fault" in failed.error
    assert snapshot_latest(benchmark=benchmark) == good


def test_recompute_run_coalesces_changes_that_arrive_while_it_runs(monkeypatch):
    from estimation.recompute import refresh
    from estimation.requests import recompute_request
    from estimation.services import recompute_run

    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9, "d2": 0.1})
    accepted(benchmark, "b", {"d1": 0.5, "d2": 0.5})
    real_analyze = refresh.analyze
    calls = []

    def analyze_while_changes_arrive(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:  # three more changes land during the first run
            accepted(benchmark, "c", {"d1": 1.0, "d2": 1.0})
            recompute_request(benchmark_id=benchmark.pk)
            recompute_request(benchmark_id=benchmark.pk)
        return real_analyze(*args, **kwargs)

    monkeypatch.setattr(refresh, "analyze", analyze_while_changes_arrive)
    created = recompute_run(benchmark_id=benchmark.pk, owner="worker-1", max_passes=2)
    assert [s.version for s in created] == [1, 2]  # exactly one follow-up pass
    assert len(calls) == 2
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert not state.is_stale and state.lease_owner == ""
    assert recompute_run(benchmark_id=benchmark.pk, owner="worker-2") == []  # duplicate task


def test_a_held_lease_turns_other_workers_away():
    from estimation.recompute.leases import lease_acquire
    from estimation.services import recompute_run

    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9})
    assert lease_acquire(benchmark_id=benchmark.pk, owner="busy-worker")
    assert recompute_run(benchmark_id=benchmark.pk, owner="worker-2") == []
    assert not ResultSnapshot.objects.exists()


def test_a_dead_workers_lease_expires_and_its_half_done_snapshot_is_never_served():
    from datetime import timedelta

    from django.utils import timezone

    from estimation.selectors import snapshot_latest
    from estimation.services import recompute_run

    benchmark = a_beats_b_on_one_dataset()
    orphan = ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=benchmark.metrics.get(),
        version=1,
        fingerprint="x",
        engine_version="0",
        stage="bootstrap",
    )
    RecomputeState.objects.filter(pk=benchmark.pk).update(
        lease_owner="dead-worker", lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert snapshot_latest(benchmark=benchmark) is None
    created = recompute_run(benchmark_id=benchmark.pk, owner="worker-2")
    assert [s.version for s in created] == [2]
    orphan.refresh_from_db()
    assert orphan.status == ResultSnapshot.Status.FAILED and orphan.error.startswith("abandoned")
    assert snapshot_latest(benchmark=benchmark) == created[0]


def test_progress_is_visible_while_computing(monkeypatch):
    from estimation.recompute import refresh

    benchmark = a_beats_b_on_one_dataset()
    seen = []
    real_analyze = refresh.analyze

    def analyze_and_look(table, settings, progress, **options):
        progress("bootstrap", 0.5)
        snapshot = ResultSnapshot.objects.get(benchmark=benchmark)
        seen.append((snapshot.status, snapshot.stage, snapshot.progress))
        return real_analyze(table, settings, progress=progress, **options)

    monkeypatch.setattr(refresh, "analyze", analyze_and_look)
    ticks = itertools.count()  # each report a second after the last: every one written
    snapshot_refresh(benchmark_id=benchmark.pk, clock=lambda: float(next(ticks)))
    assert seen == [("computing", "bootstrap", 0.5)]


def test_a_stage_reported_soon_after_the_last_write_costs_no_round_trip(monkeypatch):
    """A quick analysis (m = 20: five stages in 60 ms) writes no progress: it would only
    delay the version being served."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from estimation.recompute import refresh

    benchmark = a_beats_b_on_one_dataset()
    seen = []
    real_analyze = refresh.analyze

    def analyze_and_look(table, settings, progress, **options):
        with CaptureQueriesContext(connection) as queries:
            progress("ranking", 0.02)
            progress("bootstrap", 0.5)
        snapshot = ResultSnapshot.objects.get(benchmark=benchmark)
        seen.append((snapshot.stage, snapshot.progress, len(queries.captured_queries)))
        return real_analyze(table, settings, progress=progress, **options)

    monkeypatch.setattr(refresh, "analyze", analyze_and_look)
    # No time passes, however slow the machine: the statement count is the pacing's.
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk, clock=lambda: 0.0)
    assert seen == [("loading", 0.0, 0)]
    assert snapshot.status == ResultSnapshot.Status.READY


def test_results_of_an_older_engine_are_not_served_and_get_recomputed():
    """A deployment of a new engine: `recompute --stale` (or the beat sweep) recomputes.

    The three computations analyse one table; the versions are under test, not the
    numbers, so the engine's result is computed once (tests/engine_memo.py)."""
    with engine_results_remembered():
        _older_engine_recomputed()


def _older_engine_recomputed() -> None:
    import io

    from django.core.management import call_command
    from django.db.models import F

    from estimation.core.analysis import ENGINE_VERSION
    from estimation.selectors import snapshot_latest
    from estimation.services import recompute_outdated_request, snapshot_outdated_benchmark_ids

    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9, "d2": 0.1})
    accepted(benchmark, "b", {"d1": 0.5, "d2": 0.5})
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    current = make_benchmark("current")
    accepted(current, "a", {"d1": 0.9, "d2": 0.1})
    accepted(current, "b", {"d1": 0.5, "d2": 0.5})
    snapshot_refresh(benchmark_id=current.pk)
    RecomputeState.objects.update(computed_revision=F("requested_revision"))  # all done
    assert snapshot_outdated_benchmark_ids() == []

    # As if an older engine (and contract) had computed it: its fingerprint included the
    # older version, so the current one differs.
    ResultSnapshot.objects.filter(pk=snapshot.pk).update(
        engine_version="0.3.0", schema_version=0, fingerprint="0" * 64
    )
    assert snapshot_latest(benchmark=benchmark) is None  # its sections are not readable
    assert snapshot_outdated_benchmark_ids() == [benchmark.pk]

    # The beat sweep asks once (a pending request is not asked again).
    assert recompute_outdated_request(enqueue=False) == [benchmark.pk]
    state = RecomputeState.objects.get(benchmark=benchmark)
    assert state.is_stale
    recompute_outdated_request(enqueue=False)
    assert RecomputeState.objects.get(benchmark=benchmark).requested_revision == (
        state.requested_revision
    )

    out = io.StringIO()
    call_command("recompute", "--stale", stdout=out)
    assert out.getvalue().startswith(f"{benchmark.slug}: score v2 ready")
    fresh = snapshot_latest(benchmark=benchmark)
    assert fresh.version == 2 and fresh.engine_version == ENGINE_VERSION
    assert snapshot_outdated_benchmark_ids() == []
    call_command("recompute", "--stale", stdout=out)
    assert out.getvalue().endswith("every benchmark is served by the current engine\n")


def test_the_advisor_is_stored_after_the_snapshot_is_served_and_backfilled(monkeypatch):
    from estimation.models import SnapshotSection
    from estimation.recompute import uncertainty

    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9, "d2": 0.2, "d3": 0.6})
    accepted(benchmark, "b", {"d1": 0.1, "d2": 0.8, "d3": 0.5})
    ready_when_advising = []
    real_advisor = uncertainty.analyze_advisor

    def advisor_and_look(table, settings, **options):
        ready_when_advising.append(ResultSnapshot.objects.get(benchmark=benchmark).status)
        return real_advisor(table, settings, **options)

    monkeypatch.setattr(uncertainty, "analyze_advisor", advisor_and_look)
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    assert ready_when_advising == ["ready"]  # readers had the other sections already
    stored = SnapshotSection.objects.get(snapshot=snapshot, name="advisor")
    assert '"truths"' in stored.body
    assert "advisor_s" in ResultSnapshot.objects.get(pk=snapshot.pk).timings

    # A worker that stopped before storing it: the next run adds it, and only it.
    stored.delete()
    assert snapshot_refresh(benchmark_id=benchmark.pk) == []
    assert SnapshotSection.objects.filter(snapshot=snapshot, name="advisor").exists()
    assert ResultSnapshot.objects.filter(benchmark=benchmark).count() == 1

    # A failing advisor is stored as not applicable, with its reason.
    SnapshotSection.objects.filter(snapshot=snapshot, name="advisor").delete()

    def broken(table, settings, **options):
        raise FloatingPointError("injected fault")

    monkeypatch.setattr(uncertainty, "analyze_advisor", broken)
    snapshot_refresh(benchmark_id=benchmark.pk)
    body = SnapshotSection.objects.get(snapshot=snapshot, name="advisor").body
    assert "not_applicable" in body and "injected fault" in body


@pytest.mark.django_db(transaction=True)
def test_recompute_of_a_deleted_benchmark_does_nothing():
    """A task queued before its benchmark was deleted finds nothing to do (no error)."""
    from estimation.services import recompute_run

    benchmark = make_benchmark()
    benchmark_id = benchmark.pk
    benchmark.delete()
    assert recompute_run(benchmark_id=benchmark_id, owner="worker-1") == []
    assert not RecomputeState.objects.filter(pk=benchmark_id).exists()


def test_progress_is_paced_by_the_clock_it_is_given():
    """One write per PROGRESS_SECONDS of the given clock, counted from the start: the
    pace is the clock's, not the machine's speed."""
    from estimation.services import PROGRESS_SECONDS, ProgressPace

    now = [100.0]
    pace = ProgressPace(lambda: now[0])
    assert not pace.due()  # at the start: nothing yet
    now[0] += PROGRESS_SECONDS / 2
    assert not pace.due()
    now[0] += PROGRESS_SECONDS
    assert pace.due()  # counted from the start
    assert not pace.due()  # and then from this write
    now[0] += PROGRESS_SECONDS
    assert pace.due()


def test_the_advisor_reads_the_served_practical_section_for_its_folds_power(monkeypatch):
    """With a rope and folds the served snapshot's practical section holds the folds
    power of #1 against #2: the worker hands it to the advisor, which stores that figure
    (the same as sampling it again) without a second run of the sampler."""
    from estimation.core import hierarchical
    from estimation.recompute import uncertainty
    from estimation.selectors import snapshot_section

    benchmark = make_benchmark()
    benchmark.metrics.update(rope=0.05)
    rng = np.random.default_rng(3)
    for algorithm, shift in (("a", 0.3), ("b", 0.0), ("c", -0.2)):
        values = {f"d{i}": list(rng.normal(shift, 0.1, 3)) for i in range(6)}
        accepted(benchmark, algorithm, values, folds=True)
    given = []
    real_advisor = uncertainty.analyze_advisor

    def advisor_and_look(table, settings, **options):
        given.append(options.get("practical"))
        runs = []
        real_sampler = hierarchical.hierarchical_posterior
        monkeypatch.setattr(
            hierarchical,
            "hierarchical_posterior",
            lambda *a, **k: runs.append(1) or real_sampler(*a, **k),
        )
        section = real_advisor(table, settings, **options)
        monkeypatch.setattr(hierarchical, "hierarchical_posterior", real_sampler)
        assert runs == []
        return section

    monkeypatch.setattr(uncertainty, "analyze_advisor", advisor_and_look)
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    practical = snapshot_section(snapshot_id=snapshot.pk, name="practical")
    advisor = snapshot_section(snapshot_id=snapshot.pk, name="advisor")
    assert given == [practical]
    assert advisor.folds_power == practical.hierarchical.folds_power
