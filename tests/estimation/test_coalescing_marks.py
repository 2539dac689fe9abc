"""A queued recompute's coalescing mark that its task never dropped (the task was lost
with the broker or a killed worker) holds its benchmark back only until the stale sweep
claims over it (estimation/recompute/coalesce.py)."""

from __future__ import annotations

import itertools

import pytest

from estimation.recompute.coalesce import completion_claim, completion_release, recompute_claim

# Ids no benchmark of this run has: the marks live in Redis under this run's prefix.
_ids = itertools.count(900_000_001)


@pytest.fixture(autouse=True)
def coalescing_on(settings):
    settings.PODIUM_RECOMPUTE_COALESCE_SECONDS = 300
    settings.PODIUM_RECOMPUTE_REQUEUE_SECONDS = 60


def test_a_fresh_mark_coalesces_and_a_lost_ones_is_claimed_over_by_the_sweep():
    benchmark_id = next(_ids)
    t0 = 1_000_000.0
    assert recompute_claim(benchmark_id, now=t0)
    assert not recompute_claim(benchmark_id, now=t0 + 1)  # a request: one is queued
    assert not recompute_claim(benchmark_id, stale_after=60, now=t0 + 59)  # the sweep, soon
    assert not recompute_claim(benchmark_id, now=t0 + 3600)  # requests never claim over
    assert recompute_claim(benchmark_id, stale_after=60, now=t0 + 61)  # lost: queued again
    assert not recompute_claim(benchmark_id, stale_after=60, now=t0 + 62)  # and marked anew


def test_a_completion_is_queued_once_until_it_starts():
    benchmark_id = next(_ids)
    assert completion_claim(benchmark_id)
    assert not completion_claim(benchmark_id)
    completion_release(benchmark_id)  # it started: the next served version queues another
    assert completion_claim(benchmark_id)
    completion_release(benchmark_id)
