"""The two demo inputs the contract and golden tests analyse (no database needed)."""

from __future__ import annotations

from functools import cache

import numpy as np

from estimation.core.analysis import Analysis, AnalysisSettings, analyze
from estimation.core.table import ResultTable
from estimation.results_csv import parse_results_csv
from leaderboard.demo import SIMULATED_FOLDS, SIMULATED_TASKS, simulated_study_scores
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


@cache
def demo_analysis(name: str) -> Analysis:
    table = {"demsar": demsar_table, "simulated": simulated_table}[name]()
    return analyze(table, SETTINGS)
