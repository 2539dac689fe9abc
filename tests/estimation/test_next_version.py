"""Which version a run writes for an input, decided from the stored versions alone."""

from types import SimpleNamespace

import pytest

from estimation.models import ResultSnapshot
from estimation.recompute.versions import NO_SCORES, NextVersion, Step, next_version

READY = ResultSnapshot.Status.READY
FAILED = ResultSnapshot.Status.FAILED
ANALYSIS = ResultSnapshot.FailedDuring.ANALYSIS
LOAD = ResultSnapshot.FailedDuring.LOAD


def row(pk, version, fingerprint, status=READY, failed_during="", error=""):
    return SimpleNamespace(
        pk=pk,
        version=version,
        fingerprint=fingerprint,
        status=status,
        failed_during=failed_during,
        error=error,
    )


def decide(*, key="k", empty=False, newest=None, ready=None, failed=None):
    return next_version(key=key, empty=empty, newest=newest, ready=ready, failed=failed)


def test_nothing_submitted_and_nothing_stored_writes_nothing():
    assert decide(empty=True) == NextVersion(Step.NOTHING)


def test_a_first_input_is_computed_as_version_one():
    assert decide() == NextVersion(Step.COMPUTE, version=1)


def test_the_input_served_is_only_finished():
    served = row(1, 4, "k")
    assert decide(newest=served, ready=served) == NextVersion(Step.FINISH)


def test_an_input_back_to_the_served_one_after_failures_repeats_it_as_the_newest():
    served = row(1, 4, "k")
    failed_since = row(2, 6, "other", status=FAILED, failed_during=LOAD, error="x")
    assert decide(newest=failed_since, ready=served) == NextVersion(Step.REPEAT, version=7)


def test_a_changed_input_is_computed_after_the_newest_version():
    served = row(1, 4, "old")
    assert decide(newest=served, ready=served) == NextVersion(Step.COMPUTE, version=5)


def test_an_input_whose_failure_is_the_newest_version_writes_nothing():
    failure = row(3, 5, "k", status=FAILED, failed_during=ANALYSIS, error="E: bad")
    decided = decide(newest=failure, ready=row(1, 4, "old"), failed=failure)
    assert decided == NextVersion(Step.NOTHING)


def test_an_input_that_failed_before_is_recorded_failed_again_without_running():
    earlier = row(3, 5, "k", status=FAILED, failed_during=ANALYSIS, error="E: bad")
    newest = row(4, 6, "other")
    decided = decide(newest=newest, ready=newest, failed=earlier)
    assert decided == NextVersion(Step.FAILED, version=7, error="E: bad")


def test_an_empty_input_after_served_versions_is_recorded_as_no_scores():
    served = row(1, 4, "old")
    assert decide(empty=True, newest=served, ready=served) == NextVersion(
        Step.FAILED, version=5, error=NO_SCORES
    )


@pytest.mark.parametrize("failed_during", [LOAD, ResultSnapshot.FailedDuring.STORE])
def test_a_newest_failure_to_read_or_store_the_same_input_is_computed_again(failed_during):
    # Reading and storing say nothing about the input: only an analysis failure repeats.
    failure = row(3, 5, "k", status=FAILED, failed_during=failed_during, error="E")
    assert decide(newest=failure, ready=row(1, 4, "old")) == NextVersion(Step.COMPUTE, version=6)
