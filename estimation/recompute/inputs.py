"""What a run reads before it computes: a metric's input, and whether newer is waiting."""

from __future__ import annotations

from collections.abc import Callable

from estimation.core.table import ResultTable
from estimation.models import RecomputeState
from estimation.recompute.commits import snapshot_read_atomic
from estimation.tables import NotRanked, analysis_table_build, result_table_build
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import accepted_submissions


def metric_input_read(
    *, benchmark: Benchmark, metric: Metric
) -> tuple[list[int], ResultTable, tuple[NotRanked, ...]]:
    """The accepted submissions' ids and the table the engine analyses (the benchmark's
    rule for algorithms with empty cells applied), read from one database snapshot
    (REPEATABLE READ on PostgreSQL, unless the caller's transaction is already open)."""
    with snapshot_read_atomic():
        accepted = accepted_submissions(benchmark=benchmark)  # read once, for both
        table = result_table_build(benchmark=benchmark, metric=metric, submissions=accepted)
    table, not_ranked = analysis_table_build(table, benchmark=benchmark)
    return sorted(pk for pk, _ in accepted), table, not_ranked


def revision_newer_than(benchmark_id: int, revision: int) -> Callable[[], bool]:
    """Whether a revision newer than ``revision`` has been requested (one indexed read)."""
    return RecomputeState.objects.filter(pk=benchmark_id, requested_revision__gt=revision).exists
