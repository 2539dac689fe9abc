"""A benchmark whose algorithms lack folds unevenly, and the engine's values for it.

Folds 0.8 and 0.9 have the plain float mean 0.8500000000000001, the engine's fold mean
(:func:`estimation.core.table.fold_means`) 0.85: a reader that averages folds itself
shows a difference where the analysis sees a tie.
"""

from __future__ import annotations

from estimation.services import result_table_build
from leaderboard.models import Benchmark
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    benchmark_create,
    submission_accept,
    submission_create,
)
from tests.factories import make_user

# {algorithm: {dataset: {fold: value}}}; missing folds on purpose.
UNEVEN_FOLDS = {
    "a": {"d1": {0: 0.8, 1: 0.9}, "d2": {0: 0.1, 1: 0.2, 2: 0.3}, "d3": {1: 0.4}},
    "b": {"d1": {0: 0.85, 1: 0.85, 2: 0.85}, "d2": {2: 0.2}, "d3": {0: 0.7, 2: 0.1}},
}


def submit_folds(benchmark: Benchmark, algorithm: str, cells: dict, *, accept: bool = True):
    """One submission of ``cells`` ({dataset: {fold: value}}, fold None: no folds)."""
    scores = [
        ScoreInput(dataset=dataset, fold=fold, value=value)
        for dataset, by_fold in cells.items()
        for fold, value in by_fold.items()
    ]
    submission = submission_create(
        benchmark=benchmark,
        submitter=make_user(f"folder-{algorithm}-{benchmark.slug}"),
        entry=SubmissionInput(algorithm=algorithm, scores=scores),
        new_datasets_confirmed=True,
    )
    if accept:
        submission_accept(submission=submission)
    return submission


def uneven_folds_benchmark(slug: str = "uneven-folds", folds: dict = UNEVEN_FOLDS) -> Benchmark:
    """A benchmark with ``folds`` accepted (not yet computed: callers refresh if needed)."""
    benchmark = benchmark_create(
        slug=slug, title="Uneven folds", metrics=[("score", "higher")], bootstrap_size=200
    )
    for algorithm, cells in folds.items():
        submit_folds(benchmark, algorithm, cells)
    return benchmark


def engine_values(benchmark: Benchmark) -> dict[str, dict[str, float]]:
    """{algorithm: {dataset: value}}: the analysis's own input, read from its table."""
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
    return {
        algorithm: {
            dataset: float(table.values[i, j])
            for i, dataset in enumerate(table.datasets)
            if table.values[i, j] == table.values[i, j]  # not NaN
        }
        for j, algorithm in enumerate(table.algorithms)
    }
