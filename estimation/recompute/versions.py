"""Which version a run writes next for a metric's input: a decision on what is stored,
with no reads or writes of its own (the run reads the versions and acts on the answer)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

from estimation.models import ResultSnapshot

NO_SCORES = "ValueError: no accepted scores of this metric"


class StoredVersion(Protocol):
    """What the decision reads of a stored version (a :class:`ResultSnapshot` row)."""

    @property
    def pk(self) -> object: ...
    @property
    def version(self) -> int: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def failed_during(self) -> str: ...
    @property
    def error(self) -> str: ...


class Step(enum.Enum):
    NOTHING = "nothing"  # nothing to write (nothing to say, or already said)
    FINISH = "finish"  # the input is the one served: at most its completion is left
    REPEAT = "repeat"  # newer versions failed since: the served results as a new version
    FAILED = "failed"  # the input is known to fail: a failed version, without running it
    COMPUTE = "compute"  # a new input: a new version, computed


@dataclass(frozen=True)
class NextVersion:
    step: Step
    version: int = 0  # the version to write (REPEAT, FAILED, COMPUTE)
    error: str = ""  # the failure to record (FAILED)


def _failed_analysis_of(row: StoredVersion | None, key: str) -> bool:
    return (
        row is not None
        and row.status == ResultSnapshot.Status.FAILED
        and row.failed_during == ResultSnapshot.FailedDuring.ANALYSIS
        and row.fingerprint == key
    )


def next_version(
    *,
    key: str,
    empty: bool,
    newest: StoredVersion | None,
    ready: StoredVersion | None,
    failed: StoredVersion | None,
) -> NextVersion:
    """The step for input ``key`` given the metric's ``newest`` version, its newest
    ``ready`` one and its newest analysis failure of ``key`` (``failed``); ``empty``: the
    input has no dataset or no algorithm.

    The analysis is deterministic, so an input that failed once (or an empty one) fails
    again: it is recorded as failed without running it, and not again while that failure
    is the newest version.
    """
    following = (newest.version if newest is not None else 0) + 1
    if empty and newest is None:
        return NextVersion(Step.NOTHING)  # nothing submitted yet, nothing served
    if ready is not None and ready.fingerprint == key:
        if newest is not None and newest.pk != ready.pk:
            return NextVersion(Step.REPEAT, version=following)
        return NextVersion(Step.FINISH)
    if _failed_analysis_of(newest, key):
        return NextVersion(Step.NOTHING)  # this input's failure is already the newest
    if empty:
        return NextVersion(Step.FAILED, version=following, error=NO_SCORES)
    if failed is not None:
        return NextVersion(Step.FAILED, version=following, error=failed.error)
    return NextVersion(Step.COMPUTE, version=following)
