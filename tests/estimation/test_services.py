import numpy as np
import pytest

from estimation.models import ResultSnapshot
from estimation.services import result_table_build, snapshot_refresh
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


def accepted(benchmark, algorithm, values, folds=None):
    submission = make_submission(benchmark, algorithm, values, folds=folds)
    return submission_accept(submission=submission)


def test_result_table_averages_folds_and_orients_direction():
    benchmark = make_benchmark(direction="lower")
    accepted(benchmark, "a", {"d1": [1.0, 3.0], "d2": [2.0, 2.0]}, folds=2)
    accepted(benchmark, "b", {"d1": [0.5, 0.5], "d2": [4.0, 6.0]}, folds=2)
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
    assert first[0].payload["win_rate"] == {"a": 0.5, "b": 0.5}
    assert snapshot_refresh(benchmark_id=benchmark.pk) == []  # same input, same fingerprint
    accepted(benchmark, "c", {"d1": 1.0, "d2": 1.0})
    second = snapshot_refresh(benchmark_id=benchmark.pk)
    assert [s.version for s in second] == [2]
    assert second[0].payload["win_rate"]["c"] == 1.0


def test_failed_analysis_is_recorded_and_previous_snapshot_still_served(monkeypatch):
    from estimation.selectors import snapshot_latest

    benchmark = make_benchmark()
    accepted(benchmark, "a", {"d1": 0.9})
    accepted(benchmark, "b", {"d1": 0.5})
    good = snapshot_refresh(benchmark_id=benchmark.pk)[0]

    def broken(*args, **kwargs):
        raise FloatingPointError("injected fault")

    monkeypatch.setattr("estimation.services.analyze", broken)
    accepted(benchmark, "c", {"d1": 0.7})
    failed = snapshot_refresh(benchmark_id=benchmark.pk)[0]
    assert failed.status == ResultSnapshot.Status.FAILED
    assert "injected fault" in failed.error
    assert snapshot_latest(benchmark=benchmark) == good
