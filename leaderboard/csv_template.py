"""A results-file template for one benchmark: its datasets, metrics and folds.

The long format the upload reads (``dataset,algorithm[,metric][,fold],score``), one row
per cell to fill, the score left empty; for a ranking-only benchmark the ranking format
(``dataset,algorithm,rank``), which is all such a benchmark takes. Dataset and metric names are user input: the
file is written by :func:`leaderboard.spreadsheet.csv_text`, which neutralises a name a
spreadsheet would run as a formula; the typo guard then points such a row back to the
real name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from leaderboard.ingest.results_csv import RANKING_HEADER
from leaderboard.spreadsheet import csv_text

PLACEHOLDER_ALGORITHM = "your-algorithm"
_NO_FOLD: tuple[None] = (None,)


def csv_template(
    *,
    datasets: Sequence[str],
    metrics: Sequence[str],
    folds: Mapping[str, Sequence[int]],
    ranking_only: bool = False,
) -> str:
    """``folds``: the folds each dataset's accepted results use (absent: no folds)."""
    if ranking_only:
        to_rank = ({"dataset": dataset, "algorithm": PLACEHOLDER_ALGORITHM} for dataset in datasets)
        return csv_text(RANKING_HEADER, to_rank)
    with_metric = len(metrics) > 1
    with_fold = any(folds.get(d) for d in datasets)
    columns = ["dataset", "algorithm"]
    columns += ["metric"] if with_metric else []
    columns += ["fold"] if with_fold else []
    columns.append("score")
    rows = (
        {"dataset": dataset, "algorithm": PLACEHOLDER_ALGORITHM, "metric": metric, "fold": fold}
        for dataset in datasets
        for metric in (metrics if with_metric else metrics[:1])
        for fold in folds.get(dataset) or _NO_FOLD
    )
    return csv_text(columns, rows)
