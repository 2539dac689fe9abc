"""The demo benchmarks with computed snapshots, shared by the explore tests of a module.

``demo_benchmarks[slug]`` is the snapshot's typed sections by name. Each module loads
and computes its own copy (and deletes it afterwards), so that no module sees another's
changes; the engine's results are computed once per process (tests/engine_memo.py)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from estimation.models import ResultSnapshot
from estimation.selectors import SnapshotSections
from leaderboard.demo import DEMOS, demo_load
from leaderboard.models import Benchmark, ScorePack, Submission
from tests.engine_memo import engine_results_remembered


def _delete_demos() -> None:
    """Scores and submissions first: datasets and algorithms are protected from cascades."""
    ScorePack.objects.filter(submission__benchmark__slug__in=DEMOS).delete()
    Submission.objects.filter(benchmark__slug__in=DEMOS).delete()
    Benchmark.objects.filter(slug__in=DEMOS).delete()


@pytest.fixture(scope="module")
def demo_benchmarks(django_db_setup, django_db_blocker):
    """Loaded and computed once per module, deleted afterwards (other tests load them too)."""
    with django_db_blocker.unblock(), engine_results_remembered():
        _delete_demos()
        demo_load()
        for slug in DEMOS:
            call_command("recompute", slug, stdout=io.StringIO())
        sections = {
            snapshot.benchmark.slug: dict(SnapshotSections(snapshot))
            for snapshot in ResultSnapshot.objects.filter(
                status="ready", benchmark__slug__in=DEMOS
            ).select_related("benchmark")
        }
    yield sections
    with django_db_blocker.unblock():
        _delete_demos()
