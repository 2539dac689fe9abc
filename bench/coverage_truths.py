"""The truths the coverage grid draws from: Plackett-Luce populations of known shape and
real benchmarks' datasets resampled, each with its win probabilities known."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

COVER_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class Truth:
    """A population of rankings with known win probabilities.

    ``draw(rng, n)`` returns the average ranks of ``n`` datasets; ``p`` is the true
    probability that each algorithm wins a new dataset (a tie for first of ``t``
    counting ``1/t`` for each member).
    """

    key: str
    label: str
    p: np.ndarray
    draw: Callable[[np.random.Generator, int], np.ndarray]
    source: str = ""
    known_positions: int | None = None
    """Positions known on every dataset (top-K input), None when rankings are whole."""
    population: np.ndarray | None = None
    """A resampled real table's own rankings (None for a simulated truth)."""

    @property
    def m(self) -> int:
        return len(self.p)

    @property
    def leaders(self) -> np.ndarray:
        """Indices of the truly best algorithms (more than one when tied)."""
        return np.flatnonzero(self.p >= self.p.max() - COVER_TOL)


PL_SHAPES: dict[str, str] = {
    "pl_clear": "Plackett–Luce, one clear leader (P(win) 0.5, the rest equal)",
    "pl_two": "Plackett–Luce, two close leaders (0.30 and 0.25, the rest equal)",
    "pl_flat": "Plackett–Luce, near-flat (worths falling evenly from 1.5 to 1)",
}


def pl_worths(shape: str, m: int) -> np.ndarray:
    """Worths of a Plackett-Luce truth, scaled so that they are its win probabilities."""
    if shape == "pl_clear":
        worths = np.r_[0.5, np.full(m - 1, 0.5 / (m - 1))]
    elif shape == "pl_two":
        worths = np.r_[0.30, 0.25, np.full(m - 2, 0.45 / (m - 2))]
    elif shape == "pl_flat":
        worths = np.linspace(1.5, 1.0, m)
    else:
        raise ValueError(f"shape must be one of {list(PL_SHAPES)}, got {shape!r}")
    return worths / worths.sum()


def plackett_luce_truth(shape: str, m: int) -> Truth:
    """Rankings by sequential choice with fixed worths (the Gumbel-max construction)."""
    from estimation.core.rankings import rank_scores

    worths = pl_worths(shape, m)
    log_worths = np.log(worths)

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return rank_scores(log_worths + rng.gumbel(size=(n, m)))

    return Truth(key=shape, label=PL_SHAPES[shape], p=worths, draw=draw, source="simulated")


def resampled_truth(
    key: str,
    label: str,
    population: np.ndarray,
    source: str,
    known_positions: int | None = None,
) -> Truth:
    """``n`` rankings drawn with replacement from a real table's rankings."""
    from estimation.core.win_probability import mle

    population = np.array(population, dtype=float)
    population.setflags(write=False)

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return population[rng.integers(0, len(population), size=n)]

    p = np.array(mle(population).p)
    return Truth(
        key, label, p, draw, source=source, known_positions=known_positions, population=population
    )


def real_truths() -> list[Truth]:
    """Demšar (2006) Table 6 (AUC, m = 4, 14 datasets), TabZilla (accuracy, m = 18, 104
    datasets) and TabZilla's published top-3 lists (36 datasets, only the first three
    positions known), ranked as the engine ranks them (``prepare_rankings``, defaults)."""
    from estimation.core.rankings import prepare_rankings
    from estimation.core.table import ResultTable
    from leaderboard.ingest.results_csv import parse_results_csv
    from leaderboard.published import published_table, tabzilla_full_scores

    demsar = parse_results_csv(str(published_table("demsar2006", "demsar2006_table6_auc.csv")))
    demsar_ranks = prepare_rankings(demsar.to_table(metric=None, higher_is_better=True)).ranks
    scores = tabzilla_full_scores()
    algorithms = tuple(sorted(scores))
    datasets = tuple(sorted(scores[algorithms[0]]))
    accuracy = np.array([[scores[a].get(d, (np.nan,))[0] for a in algorithms] for d in datasets])
    tabzilla = ResultTable(datasets=datasets, algorithms=algorithms, values=accuracy)
    top3 = prepare_rankings(_tabzilla_top3_table())
    return [
        resampled_truth(
            "demsar",
            f"Demšar 2006 Table 6 resampled (AUC, {demsar_ranks.shape[0]} datasets)",
            demsar_ranks,
            "data/published/demsar2006/demsar2006_table6_auc.csv",
        ),
        resampled_truth(
            "tabzilla",
            f"TabZilla resampled (accuracy, {len(datasets)} datasets)",
            prepare_rankings(tabzilla).ranks,
            "data/published/tabzilla_full/tuned_aggregated_results.csv",
        ),
        resampled_truth(
            "tabzilla_top3",
            f"TabZilla top-3 lists resampled ({top3.n_datasets} datasets, first "
            f"{top3.known_positions} positions known)",
            top3.ranks,
            "data/published/tabzilla_top3/tabzilla_table4_top3.csv",
            known_positions=top3.known_positions,
        ),
    ]


def _tabzilla_top3_table() -> Any:
    """The published top-3 lists as a rank table (positions 1-3, the rest not listed)."""
    import csv

    from estimation.core.table import ResultTable
    from leaderboard.published import published_table

    path = published_table("tabzilla_top3", "tabzilla_table4_top3.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    columns = ("first", "second", "third")
    algorithms = tuple(sorted({row[c] for row in rows for c in columns}))
    values = np.full((len(rows), len(algorithms)), np.nan)
    for i, row in enumerate(rows):
        for position, column in enumerate(columns, start=1):
            values[i, algorithms.index(row[column])] = float(position)
    return ResultTable(
        datasets=tuple(row["dataset"] for row in rows),
        algorithms=algorithms,
        values=values,
        kind="rank",
    )


def grid_truths(grid_m: Sequence[int], *, real: bool = True) -> list[Truth]:
    truths = [plackett_luce_truth(shape, m) for shape in PL_SHAPES for m in grid_m]
    return truths + (real_truths() if real else [])
