"""What a maintainer weighs a pending submission by: its scores beside the leaders'.

:func:`evidence_for` is pure (dicts of numbers in, a frozen result out); the selector
``frontend.contribute.selectors.moderation_evidence`` loads the numbers. For one metric it
gives, per dataset the submission covers, its value (the mean over folds), the best
accepted value and whose it is; the rank the submission would take by mean rank over
the datasets it covers (ties share the mean rank); and flags for results that deserve a
second look:

* **perfect**: every value is the best possible one: the better end of the metric's valid
  range when it has one; without a range, only 1 when higher is better and accepted values
  exist, all within [0, 1] (0 when lower is better and none is negative). A value beyond
  that end is not "perfect" (the services refuse it when the metric has a range);
* **constant**: the same value on every dataset (three or more datasets);
* **out of range**: a value outside the range the accepted algorithms span on that
  dataset by more than twice its width and a fifth of the values' magnitude;
* **duplicate**: the same values as an accepted algorithm on every dataset both have.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

MIN_CONSTANT_DATASETS = 3
DUPLICATE_TOLERANCE = 1e-12
# "Far outside" the accepted range [low, high]: beyond it by more than twice its width,
# and by more than a fifth of the values' magnitude (a narrow range is no yardstick).
RANGE_WIDTHS = 2.0
RANGE_SHARE = 0.2
MIN_MARGIN = 1e-9


@dataclass(frozen=True)
class DatasetEvidence:
    dataset: str
    value: float
    leader: str | None
    leader_value: float | None
    low: float | None  # the range the accepted algorithms span on this dataset
    high: float | None
    out_of_range: bool
    beats_leader: bool | None  # None: no accepted value on this dataset


@dataclass(frozen=True)
class Evidence:
    metric: str
    higher_is_better: bool
    rows: tuple[DatasetEvidence, ...]
    rank: int | None  # 1 = best, among the accepted algorithms and this one
    n_ranked: int
    flags: tuple[str, ...]


def evidence_for(
    *,
    metric: str,
    higher_is_better: bool,
    submission: Mapping[str, float],
    accepted: Mapping[str, Mapping[str, float]],
    best_possible: float | None = None,
) -> Evidence:
    """``submission``: dataset -> value; ``accepted``: algorithm -> dataset -> value;
    ``best_possible``: the better end of the metric's valid range, if it has one."""
    datasets = sorted(submission)
    algorithms = sorted(accepted)
    sign = 1.0 if higher_is_better else -1.0
    table = np.array(
        [[accepted[a].get(d, np.nan) for a in algorithms] for d in datasets], dtype=float
    ).reshape(len(datasets), len(algorithms))
    mine = np.array([submission[d] for d in datasets], dtype=float)

    rows = []
    for i, dataset in enumerate(datasets):
        others = table[i]
        present = ~np.isnan(others)
        if not present.any():
            rows.append(
                DatasetEvidence(dataset, float(mine[i]), None, None, None, None, False, None)
            )
            continue
        best = int(np.nanargmax(sign * others))
        low, high = float(np.nanmin(others)), float(np.nanmax(others))
        margin = max(
            RANGE_WIDTHS * (high - low), RANGE_SHARE * max(abs(low), abs(high)), MIN_MARGIN
        )
        outside = mine[i] < low - margin or mine[i] > high + margin
        rows.append(
            DatasetEvidence(
                dataset=dataset,
                value=float(mine[i]),
                leader=algorithms[best],
                leader_value=float(others[best]),
                low=low,
                high=high,
                out_of_range=bool(outside),
                beats_leader=bool(sign * mine[i] > sign * others[best]),
            )
        )

    rank, n_ranked = _would_be_rank(table, mine, sign)
    flags = []
    accepted_values = table[~np.isnan(table)]
    if len(mine) and _perfect(mine, accepted_values, higher_is_better, best_possible):
        flags.append("perfect score on every dataset")
    if len(mine) >= MIN_CONSTANT_DATASETS and np.ptp(mine) == 0:
        flags.append(f"the same value ({mine[0]:g}) on every dataset")
    n_outside = sum(row.out_of_range for row in rows)
    if n_outside:
        flags.append(
            f"far outside the accepted algorithms' range on {n_outside} "
            f"dataset{'s' if n_outside > 1 else ''}"
        )
    for j, name in enumerate(algorithms):
        both = ~np.isnan(table[:, j])
        if both.sum() >= 2 and np.all(np.abs(table[both, j] - mine[both]) <= DUPLICATE_TOLERANCE):
            flags.append(f"identical to the scores of {name}")
    return Evidence(
        metric=metric,
        higher_is_better=higher_is_better,
        rows=tuple(rows),
        rank=rank,
        n_ranked=n_ranked,
        flags=tuple(flags),
    )


def _perfect(
    mine: np.ndarray, accepted: np.ndarray, higher_is_better: bool, best_possible: float | None
) -> bool:
    if best_possible is not None:
        return bool(np.all(mine == best_possible))
    if accepted.size == 0:
        return False  # no range and nothing to infer one from: no end to reach
    if higher_is_better:
        bounded = accepted.min() >= 0 and accepted.max() <= 1
        return bool(bounded and np.all(mine == 1))
    return bool(accepted.min() >= 0 and np.all(mine == 0))


def _would_be_rank(table: np.ndarray, mine: np.ndarray, sign: float) -> tuple[int | None, int]:
    """Mean rank over the submission's datasets (complete cases), and its place."""
    if table.shape[1] == 0 or table.shape[0] == 0:
        return None, 0
    shared = ~np.isnan(table).all(axis=1)  # datasets some accepted algorithm has
    table, mine = table[shared], mine[shared]
    complete = ~np.isnan(table).any(axis=0)  # algorithms with every one of them
    field = np.column_stack([table[:, complete], mine])
    if field.shape[0] == 0:
        return None, 0
    if field.shape[1] < 2:
        return None, 0
    ranks = rankdata(-sign * field, axis=1)  # 1 = best, ties share the mean rank
    mean_ranks = ranks.mean(axis=0)
    place = int(np.sum(mean_ranks[:-1] < mean_ranks[-1]) + 1)
    return place, field.shape[1]
