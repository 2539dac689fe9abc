"""What a board says about its input: the facts (``Board.input``), the metric's mean and SD
(``Board.scores``) and what every view should say in plain words about the data behind the
numbers (``Board.notes``: datasets left out, algorithms not ranked, ties, top-K input)."""

from __future__ import annotations

import numpy as np

from estimation.core.contract import (
    AnalysisSettings,
    ExcludedAlgorithm,
    InputFacts,
    NotApplicable,
    ScoreSummary,
    floats,
)
from estimation.core.rankings import PreparedRankings
from estimation.core.table import ResultTable
from estimation.core.wording import agreeing, counted

__all__ = ["coverage_notes", "input_facts", "score_summary"]


def _count(n: int, noun: str) -> str:
    return f"{counted(n, noun)} {agreeing(n, 'has', 'have')}"


def coverage_notes(
    table: ResultTable, prepared: PreparedRankings, K: int, settings: AnalysisSettings
) -> list[str]:
    """What every view should say in plain words about the data behind the numbers."""
    notes = []
    if prepared.dropped_datasets:
        culprits = ", ".join(
            f"{a} ({c})" for a, c in sorted(prepared.dropped_by.items(), key=lambda kv: -kv[1])
        )
        notes.append(
            f"{len(prepared.dropped_datasets)} of {counted(table.n_datasets, 'dataset')} "
            f"{agreeing(len(prepared.dropped_datasets), 'was', 'were')} left out because some "
            f"algorithms have no result there: {culprits}."
        )
    without = [a for a in prepared.excluded_algorithms if prepared.coverage[a] == 0]
    scarce = [a for a in prepared.excluded_algorithms if prepared.coverage[a] > 0]
    if scarce:
        notes.append(
            f"{_count(len(scarce), 'algorithm')} results on fewer than "
            f"{settings.min_coverage:.0%} of the datasets and "
            f"{agreeing(len(scarce), 'is', 'are')} not ranked: "
            f"{', '.join(scarce)}."
        )
    if without:
        notes.append(
            f"{_count(len(without), 'algorithm')} no result on any dataset and "
            f"{'is' if len(without) == 1 else 'are'} not ranked: {', '.join(without)}."
        )
    if prepared.n_datasets == 1:
        notes.append(
            "With a single dataset there is nothing to leave out: the leave-one-out "
            "estimators equal the win rate."
        )
    ranks = prepared.ranks
    tied_first = int(((ranks == ranks.min(axis=1, keepdims=True)).sum(axis=1) > 1).sum())
    if tied_first:
        notes.append(
            f"{_count(tied_first, 'dataset')} a tie for first place; a shared win counts "
            "1/t for each of the t winners."
        )
    if prepared.kind == "rank" and prepared.known_positions < prepared.n_algorithms:
        notes.append(
            f"Only the top {counted(prepared.known_positions, 'position')} "
            f"{agreeing(prepared.known_positions, 'is', 'are')} known on every dataset: "
            f"estimators use positions 1..{K}; score-based tests do not apply."
        )
    if settings.k > K:
        notes.append(f"K was lowered from {settings.k} to {K}, the number of known positions.")
    if settings.control is not None and settings.control not in prepared.algorithms:
        notes.append(
            f"The control {settings.control!r} is not among the ranked algorithms; the "
            "comparison with a control uses the best mean rank instead."
        )
    return notes


def score_summary(
    table: ResultTable, used: np.ndarray, prepared: PreparedRankings
) -> ScoreSummary | NotApplicable:
    """Mean and SD over the datasets used of each algorithm's score, in the metric's units
    (``used``: :func:`analysis._used_values`)."""
    if table.kind != "score":
        return NotApplicable("the input is rankings, not scores")
    values = used
    present = np.isfinite(values)
    n = present.sum(axis=0)
    # Each column divided by a power of two (exact) that keeps its sums and squares
    # finite near the float limits; the results are scaled back.
    exponent = np.frexp(np.nanmax(np.where(present, np.abs(values), 0.0), axis=0))[1]
    values = np.ldexp(values, -exponent)
    total = np.where(present, values, 0.0).sum(axis=0)
    mean = np.divide(total, n, out=np.full(n.shape, np.nan), where=n > 0)
    squares = np.where(present, (values - mean) ** 2, 0.0).sum(axis=0)
    sd = np.sqrt(np.divide(squares, n - 1, out=np.full(n.shape, np.nan), where=n > 1))
    with np.errstate(over="ignore"):
        mean, sd = np.ldexp(mean, exponent), np.ldexp(sd, exponent)
    beyond = np.isinf(mean) | np.isinf(sd)
    if beyond.any():
        j = int(np.flatnonzero(beyond)[0])
        largest = float(np.nanmax(np.abs(np.ldexp(values[:, j], exponent[j]))))
        return NotApplicable(
            f"the scores of {prepared.algorithms[j]!r} (as large as {largest:.6g}) have a "
            "mean or standard deviation beyond the float range (about 1.8e308)"
        )
    return ScoreSummary(mean=floats(mean), sd=floats(sd), n_datasets=tuple(int(v) for v in n))


def input_facts(table: ResultTable, prepared: PreparedRankings) -> InputFacts:
    ranks = prepared.ranks
    first = ranks.min(axis=1, keepdims=True)
    return InputFacts(
        kind="rank" if prepared.kind == "rank" else "score",
        direction="rank"
        if table.kind == "rank"
        else ("higher" if table.higher_is_better else "lower"),
        algorithms=tuple(prepared.algorithms),
        datasets=tuple(prepared.datasets),
        n_datasets=table.n_datasets,
        n_datasets_used=prepared.n_datasets,
        known_positions=int(prepared.known_positions),
        has_folds=prepared.fold_scores is not None,
        n_tied_first=int(((ranks == first).sum(axis=1) > 1).sum()),
        excluded_algorithms=tuple(
            ExcludedAlgorithm(algorithm=a, coverage=float(prepared.coverage[a]))
            for a in prepared.excluded_algorithms
        ),
        dropped_datasets=tuple(prepared.dropped_datasets),
        dropped_by={a: int(c) for a, c in prepared.dropped_by.items()},
    )
