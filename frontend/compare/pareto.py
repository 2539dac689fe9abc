"""The Pareto view of two metrics: each algorithm's mean over datasets on both, and which
algorithms no other one beats on both (:func:`estimation.core.pairwise.pareto_front`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from estimation.core.pairwise import pareto_front
from estimation.core.table import ResultTable


@dataclass(frozen=True)
class MetricAxis:
    name: str
    higher_is_better: bool

    @property
    def direction_text(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"


@dataclass(frozen=True)
class ParetoPoint:
    algorithm: str
    values: tuple[float, float]  # mean over the metric's datasets, per metric
    on_front: bool
    dominated_by: str | None  # an algorithm on the front that beats it on both


@dataclass(frozen=True)
class ParetoView:
    metrics: tuple[MetricAxis, MetricAxis]
    points: tuple[ParetoPoint, ...] = ()
    n_datasets: tuple[int, int] = (0, 0)  # datasets each mean is taken over
    left_out: tuple[str, ...] = ()  # algorithms without a value on both metrics
    not_applicable: str | None = None

    @property
    def front(self) -> tuple[ParetoPoint, ...]:
        return tuple(p for p in self.points if p.on_front)


def pareto_view(
    metrics: tuple[MetricAxis, MetricAxis], tables: Sequence[ResultTable]
) -> ParetoView:
    """``tables[k]`` holds metric k's dataset-level values (the analysis's input:
    :func:`estimation.tables.result_table_build`).

    Each mean is over the same datasets for every algorithm: those where every compared
    algorithm (one with a value on both metrics) has a value for that metric, so no
    algorithm is flattered by having skipped the hard datasets.
    """
    present = [set(table.algorithms) for table in tables]
    algorithms = sorted(present[0] & present[1])
    left_out = tuple(sorted((present[0] | present[1]) - set(algorithms)))
    if len(algorithms) < 2:
        return ParetoView(
            metrics,
            left_out=left_out,
            not_applicable="fewer than two algorithms have accepted results on both metrics",
        )
    means = np.empty((len(algorithms), 2))
    counts = []
    for k, table in enumerate(tables):
        column = {name: j for j, name in enumerate(table.algorithms)}
        values = table.values[:, [column[name] for name in algorithms]]
        complete = ~np.isnan(values).any(axis=1)
        if not complete.any():
            return ParetoView(
                metrics,
                left_out=left_out,
                not_applicable=(
                    f"no dataset has a {metrics[k].name} value for every algorithm, so their "
                    "means would not be over the same datasets"
                ),
            )
        counts.append(int(complete.sum()))
        means[:, k] = values[complete].mean(axis=0)
    directions = [m.higher_is_better for m in metrics]
    on_front = pareto_front(means, directions)
    oriented = np.where(directions, means, -means)
    front_index = np.flatnonzero(on_front)
    # For each algorithm off the front, the first front algorithm that beats it on both.
    beaten = np.asarray(
        (oriented[:, None, :] <= oriented[None, front_index, :]).all(axis=2)
        & (oriented[:, None, :] < oriented[None, front_index, :]).any(axis=2)
    )
    points = [
        ParetoPoint(
            name,
            (float(means[i, 0]), float(means[i, 1])),
            bool(on_front[i]),
            None if on_front[i] else algorithms[front_index[int(np.argmax(beaten[i]))]],
        )
        for i, name in enumerate(algorithms)
    ]
    points.sort(key=lambda p: (not p.on_front, -_oriented(p, directions[0]), p.algorithm))
    return ParetoView(metrics, tuple(points), (counts[0], counts[1]), left_out)


def _oriented(point: ParetoPoint, higher_is_better: bool) -> float:
    return point.values[0] if higher_is_better else -point.values[0]
