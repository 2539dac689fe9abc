"""One call from a ResultTable to the full, JSON-ready analysis of a benchmark."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import rankdata

from estimation.core.table import ResultTable

ENGINE_VERSION = "0.1.0"


@dataclass(frozen=True)
class AnalysisSettings:
    """The analysis choices a benchmark makes (METHODS.md); defaults as documented there."""

    missing: str = "complete"
    min_coverage: float = 0.5
    tie_tol: float = 0.0
    k: int = 3
    alpha: float = 0.05
    correction: str = "holm"
    bootstrap: int = 1000
    evaluation_folds: int = 10
    evaluation_repeats: int = 5
    seed: int = 0
    default_estimator: str = "loo_kl"

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class Analysis:
    algorithms: tuple[str, ...]
    n_datasets: int
    n_datasets_used: int
    dropped_datasets: tuple[str, ...]
    mean_rank: np.ndarray
    win_rate: np.ndarray
    settings: AnalysisSettings

    def to_dict(self) -> dict[str, Any]:
        def by_algorithm(values: np.ndarray) -> dict[str, float]:
            return {a: float(v) for a, v in zip(self.algorithms, values, strict=True)}

        return {
            "engine_version": ENGINE_VERSION,
            "input": {
                "n_datasets": self.n_datasets,
                "n_datasets_used": self.n_datasets_used,
                "algorithms": list(self.algorithms),
                "dropped_datasets": list(self.dropped_datasets),
            },
            "params": self.settings.to_dict(),
            "mean_rank": by_algorithm(self.mean_rank),
            "win_rate": by_algorithm(self.win_rate),
        }


def analyze(
    table: ResultTable,
    settings: AnalysisSettings | None = None,
    progress: Callable[[str, float], None] | None = None,
) -> Analysis:
    """Rank every complete dataset and summarise the algorithms.

    ``progress(stage, fraction)`` is called as the work advances, so long runs can show it.
    """
    settings = settings or AnalysisSettings()
    if progress is not None:
        progress("ranking", 0.0)
    complete = ~np.isnan(table.values).any(axis=1)
    oriented = table.oriented()[complete]
    ranks = rankdata(-oriented, axis=1, method="average")
    # A tie for first shares the win: each of t winners gets 1/t.
    best = ranks.min(axis=1, keepdims=True)
    winners = ranks == best
    win_share = winners / winners.sum(axis=1, keepdims=True)
    return Analysis(
        algorithms=table.algorithms,
        n_datasets=table.n_datasets,
        n_datasets_used=int(complete.sum()),
        dropped_datasets=tuple(d for d, ok in zip(table.datasets, complete, strict=True) if not ok),
        mean_rank=ranks.mean(axis=0),
        win_rate=win_share.mean(axis=0),
        settings=settings,
    )
