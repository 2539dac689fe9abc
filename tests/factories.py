"""Small builders for test data, all through the services."""

from __future__ import annotations

from leaderboard.models import Benchmark
from leaderboard.services import ScoreInput, benchmark_create, submission_create


def make_benchmark(slug: str = "toy", direction: str = "higher") -> Benchmark:
    return benchmark_create(slug=slug, title=f"Benchmark {slug}", metrics=[("score", direction)])


def make_submission(benchmark: Benchmark, algorithm: str, values: dict, folds: int | None = None):
    """values: {dataset: score} or, with folds, {dataset: [score per fold]}."""
    if folds is None:
        scores = [ScoreInput(dataset=d, value=v) for d, v in values.items()]
    else:
        scores = [
            ScoreInput(dataset=d, value=v, fold=f)
            for d, per_fold in values.items()
            for f, v in enumerate(per_fold)
        ]
    return submission_create(benchmark=benchmark, algorithm_name=algorithm, scores=scores)
