"""A served version's advisor gives way to a newer input (so that submit -> ready stays
quick)."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core.advisor import AdvisorStopped, advise
from estimation.models import ResultSnapshot, SnapshotSection
from estimation.services import ADVISOR_SECTION, snapshot_refresh
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission


def test_stop_changes_no_number_and_stops_when_asked():
    ranks = np.array([[1, 2, 3], [2, 1, 3], [1, 3, 2], [3, 1, 2], [1, 2, 3]], dtype=float)
    plain = advise(ranks, rng=7, n_simulations=20)
    asked = []
    kept = advise(ranks, rng=7, n_simulations=20, stop=lambda: asked.append(1) and False)
    assert repr(kept) == repr(plain) and len(asked) > 1
    with pytest.raises(AdvisorStopped):
        advise(ranks, rng=7, n_simulations=20, stop=lambda: True)


@pytest.mark.django_db
def test_a_superseded_advisor_is_left_out_and_added_when_still_current():
    benchmark = make_benchmark("toy")
    for name, values in {
        "a": {"d1": 0.5, "d2": 0.7, "d3": 0.2},
        "b": {"d1": 0.6, "d2": 0.4, "d3": 0.3},
    }.items():
        submission_accept(submission=make_submission(benchmark, name, values))
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk, superseded=lambda: True)
    assert snapshot.status == ResultSnapshot.Status.READY
    advisor = SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION)
    assert not advisor.exists()  # served without it; nothing stored in its name
    # A run that finds this version still current (same input) adds it.
    assert snapshot_refresh(benchmark_id=benchmark.pk) == []
    assert advisor.exists()
