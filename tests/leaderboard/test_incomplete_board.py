"""One blank cell on the open Demšar demo does not rewrite the board for everyone:
on real PostgreSQL, through the recompute every entry point triggers."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from estimation.core.verdict import board_order
from estimation.selectors import SnapshotSections, snapshot_latest
from estimation.services import snapshot_refresh
from leaderboard.demo import OPEN_DEMO
from leaderboard.models import Benchmark, Submission
from leaderboard.services import benchmark_update, submission_create
from tests.factories import entry, make_user

pytestmark = pytest.mark.django_db


def _board(benchmark):
    snapshot_refresh(benchmark_id=benchmark.pk)
    return SnapshotSections(snapshot_latest(benchmark=benchmark))["board"]


def _leader(board) -> str:
    return board.algorithms[board_order(board, board.recommended)[0]]


def _blank_on_liver(benchmark) -> Submission:
    datasets = sorted(benchmark.datasets.values_list("name", flat=True))
    liver = next(name for name in datasets if "liver" in name)
    # Best everywhere it has a result: counted, it would change the leader.
    return submission_create(
        benchmark=benchmark,
        submitter=make_user("newcomer"),
        entry=entry("newcomer", {name: 0.99 for name in datasets if name != liver}),
        source=Submission.Source.FORM,
    )


def test_a_blank_cell_leaves_the_demsar_board_as_it_was_by_default():
    call_command("load_demo")
    benchmark = Benchmark.objects.get(slug=OPEN_DEMO)
    assert benchmark.incomplete_submissions == "exclude"
    before = _board(benchmark)
    assert before.input.n_datasets_used == 14
    assert _blank_on_liver(benchmark).status == Submission.Status.ACCEPTED
    after = _board(benchmark)
    assert after.input.n_datasets_used == 14 and after.input.dropped_datasets == ()
    assert after.algorithms == before.algorithms and _leader(after) == _leader(before)
    assert after.friedman == before.friedman
    assert after.notes[-1].endswith("newcomer (not ranked: results on 13 of 14 datasets).")


def test_the_maintainer_may_choose_the_old_behaviour_or_ranking_on_what_it_has():
    call_command("load_demo")
    benchmark = Benchmark.objects.get(slug=OPEN_DEMO)
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    _blank_on_liver(benchmark)
    benchmark_update(benchmark=benchmark, user=maintainer, incomplete_submissions="drop_datasets")
    dropped = _board(benchmark)
    assert dropped.input.n_datasets_used == 13 and "newcomer" in dropped.algorithms
    benchmark_update(
        benchmark=benchmark,
        user=maintainer,
        incomplete_submissions="rank_on_what_it_has",
    )
    ranked = _board(benchmark)
    assert ranked.input.n_datasets_used == 14 and "newcomer" in ranked.algorithms
