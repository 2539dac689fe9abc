"""The demo inputs the contract, golden and interval tests analyse (no database needed):
the four benchmarks the demo loader (leaderboard/demo.py) creates, as ResultTables."""

from __future__ import annotations

from functools import cache

import numpy as np

from estimation.core.analysis import Analysis, AnalysisSettings, analyze
from estimation.core.table import ResultTable
from leaderboard.demo import (
    SIMULATED_FOLDS,
    SIMULATED_TASKS,
    simulated_study_scores,
    tabzilla_full_scores,
)
from leaderboard.ingest.results_csv import parse_results_csv
from leaderboard.published import published_table

# A smaller bootstrap than the default keeps the tests fast; every code path still runs.
SETTINGS = AnalysisSettings(bootstrap=200)


def demsar_table() -> ResultTable:
    parsed = parse_results_csv(str(published_table("demsar2006", "demsar2006_table6_auc.csv")))
    return parsed.to_table(metric=None, higher_is_better=True)


def simulated_table() -> ResultTable:
    """The simulated fold benchmark as the database service builds it (sorted names)."""
    scores = simulated_study_scores()
    algorithms = tuple(sorted(scores))
    folds = np.stack([scores[a] for a in algorithms], axis=2)
    assert folds.shape == (SIMULATED_TASKS, SIMULATED_FOLDS, len(algorithms))
    return ResultTable(
        datasets=tuple(f"task-{t + 1:02d}" for t in range(SIMULATED_TASKS)),
        algorithms=algorithms,
        values=folds.mean(axis=1),
        fold_values=folds,
    )


def tabzilla_top3_table() -> ResultTable:
    """The published top-3 lists (ranking-only input, K = 3)."""
    from tests.core.test_rankings import load_tabzilla_top3

    return load_tabzilla_top3()


def tabzilla_accuracy_table() -> ResultTable:
    """TabZilla's accuracy (the first metric of the two-metric demo), with its gaps."""
    scores = tabzilla_full_scores()
    algorithms = tuple(sorted(scores))
    datasets = tuple(sorted({d for by_dataset in scores.values() for d in by_dataset}))
    values = np.full((len(datasets), len(algorithms)), np.nan)
    for j, algorithm in enumerate(algorithms):
        for i, dataset in enumerate(datasets):
            if dataset in scores[algorithm]:
                values[i, j] = scores[algorithm][dataset][0]
    return ResultTable(datasets=datasets, algorithms=algorithms, values=values)


DEMO_TABLES = {
    "demsar": demsar_table,
    "simulated": simulated_table,
    "tabzilla_top3": tabzilla_top3_table,
    "tabzilla_accuracy": tabzilla_accuracy_table,
}


@cache
def demo_analysis(name: str) -> Analysis:
    return analyze(DEMO_TABLES[name](), SETTINGS)
