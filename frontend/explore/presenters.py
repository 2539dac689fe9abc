"""Turn a snapshot's typed sections and a few score rows into what the explore pages show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from estimation.core.contract import (
    Board,
    NotApplicable,
    RankMatrixSection,
    WithinDatasetSection,
)
from estimation.core.contract import RepeatedMeasuresAnova as StoredAnova
from estimation.core.contract import StandardErrorTable as StoredErrors
from estimation.core.contract import TukeyTable as StoredTukey
from estimation.core.pairwise_scope import MAX_PAIRWISE_ALGORITHMS
from estimation.core.win_probability import minimax_weights
from estimation.core.within_dataset import (
    repeated_measures_anova,
    repeated_measures_tukey,
    tukey_intervals,
)


@dataclass(frozen=True)
class AlgorithmScores:
    """One algorithm on one dataset: its folds, their spread, its ranks there."""

    algorithm: str
    mean: float
    minimum: float
    maximum: float
    folds: list[float]
    rank: float | None
    significance_rank: float | None
    standard_error: float | None = None  # as the source file gave it with the score
    # The snapshot's z-test of this algorithm against the best's score on the dataset does
    # not separate them (:meth:`WithinDatasetSection.standard_error_test`, the engine's
    # decision); False for the best itself and where the snapshot did not test the pair.
    not_separable_from_best: bool = False


def dataset_score_summaries(
    *,
    cells: dict[str, dict[int | None, float]],
    rank_matrix: RankMatrixSection | NotApplicable | None,
    within: WithinDatasetSection | NotApplicable | None,
    dataset: str,
    higher_is_better: bool,
    standard_errors: Mapping[str, float] | None = None,
) -> list[AlgorithmScores]:
    """Best first; ranks from the snapshot when the dataset was part of the analysis."""
    ranks: dict[str, float] = {}
    aware: dict[str, float | None] = {}
    if isinstance(rank_matrix, RankMatrixSection) and dataset in rank_matrix.datasets:
        row = rank_matrix.ranks[rank_matrix.datasets.index(dataset)]
        ranks = dict(zip(rank_matrix.algorithms, row, strict=True))
    if isinstance(within, WithinDatasetSection):
        entry = within.entry(dataset)
        if entry is not None:
            aware = dict(zip(within.algorithms, entry.significance_rank, strict=True))
    summaries = []
    for algorithm, by_fold in cells.items():
        values = [by_fold[fold] for fold in sorted(by_fold, key=lambda f: (f is None, f or 0))]
        folded = [by_fold[f] for f in by_fold if f is not None]
        shown = folded or values
        summaries.append(
            AlgorithmScores(
                algorithm=algorithm,
                mean=float(np.mean(shown)),
                minimum=float(min(shown)),
                maximum=float(max(shown)),
                folds=[by_fold[f] for f in sorted(f for f in by_fold if f is not None)],
                rank=ranks.get(algorithm),
                significance_rank=aware.get(algorithm),
                standard_error=(standard_errors or {}).get(algorithm),
            )
        )
    sign = -1.0 if higher_is_better else 1.0
    ordered = sorted(summaries, key=lambda row: (sign * row.mean, row.algorithm))
    return _marked_not_separable(ordered, within, dataset)


def _marked_not_separable(
    ordered: list[AlgorithmScores],
    within: WithinDatasetSection | NotApplicable | None,
    dataset: str,
) -> list[AlgorithmScores]:
    """``ordered`` (best first) with each row the snapshot's z-test does not separate from
    the best marked; none where the snapshot holds no such test of the dataset."""
    if not ordered or not isinstance(within, WithinDatasetSection):
        return ordered
    best = ordered[0]
    marked = [best]
    for row in ordered[1:]:
        test = within.standard_error_test(dataset, best.algorithm, row.algorithm)
        marked.append(
            row if test is None else replace(row, not_separable_from_best=not test.significant)
        )
    return marked


def standard_errors_untested(
    *,
    board: Board | None,
    within: WithinDatasetSection | NotApplicable | None,
    dataset: str,
    best: str | None = None,
) -> str | None:
    """Why the snapshot holds no z-test by the files' standard errors for ``dataset`` (so
    no score is marked against the best's), or None where it holds one. ``best`` is the
    algorithm the page shows first (from the live scores): one the snapshot did not
    compute has no test against it, though the dataset has a table."""
    if board is None or within is None:
        return "no results have been computed yet"
    if len(board.algorithms) > MAX_PAIRWISE_ALGORITHMS:
        return (
            f"pairs are tested by the standard errors up to {MAX_PAIRWISE_ALGORITHMS} "
            f"algorithms, and this board has {len(board.algorithms)}"
        )
    if isinstance(within, NotApplicable):
        return within.reason
    entry = within.entry(dataset)
    if entry is None:
        return "this dataset was not part of the analysis"
    if entry.standard_errors is not None:
        if best is not None and best not in within.algorithms:
            return "the newest results are not computed yet"
        return None
    if entry.n_folds:
        return "this dataset is compared on its folds instead (below)"
    if within.note is not None:
        return "the stored results leave the pairwise tables out at this size"
    return "the stored results hold no test of this dataset by the standard errors"


@dataclass(frozen=True)
class TukeyRow:
    a: str
    b: str
    diff: float | None
    cohens_d: float | None
    pvalue: float | None
    significant: bool
    # The per-fold Wilcoxon test beside Tukey (stored snapshots only).
    wilcoxon_pvalue: float | None = None
    rank_biserial: float | None = None
    # The simultaneous Tukey interval of diff (None from snapshots of older engines).
    ci_lower: float | None = None
    ci_upper: float | None = None


@dataclass(frozen=True)
class AnovaSummary:
    """The omnibus repeated-measures ANOVA over every algorithm on the dataset."""

    statistic: float | None
    pvalue: float | None
    df: tuple[int, int] | None
    note: str | None


@dataclass(frozen=True)
class TukeyTable:
    rows: list[TukeyRow]
    source: str  # "snapshot" or "computed"
    not_applicable: str | None = None
    anova: AnovaSummary | None = None


def _stored_anova(anova: StoredAnova | NotApplicable | None) -> AnovaSummary | None:
    if anova is None:
        return None
    if isinstance(anova, NotApplicable):
        return AnovaSummary(None, None, None, anova.reason)
    return AnovaSummary(anova.statistic, anova.pvalue, anova.df, anova.note)


def _stored_rows(table: StoredTukey, names: tuple[str, ...]) -> list[TukeyRow]:
    """The stored arrays (pair order, a_i before a_j) as one row per pair."""
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    return [
        TukeyRow(
            a=a,
            b=b,
            diff=table.diff[k],
            cohens_d=table.cohens_d[k],
            pvalue=table.pvalue[k],
            significant=table.significant[k],
            wilcoxon_pvalue=table.wilcoxon_pvalue[k],
            rank_biserial=table.rank_biserial[k],
            ci_lower=table.ci_lower[k] if table.ci_lower else None,
            ci_upper=table.ci_upper[k] if table.ci_upper else None,
        )
        for k, (a, b) in enumerate(pairs)
    ]


def dataset_tukey_table(
    *,
    board: Board | None,
    within: WithinDatasetSection | NotApplicable | None,
    dataset: str,
    cells: dict[str, dict[int | None, float]],
    higher_is_better: bool,
) -> TukeyTable | None:
    """The within-dataset Tukey HSD table: stored in the snapshot, or computed for this dataset.

    The snapshot leaves the tables out when a benchmark has too many pairs; then the test
    runs here on this one dataset's complete folds (the algorithms of the analysis only),
    oriented so that a positive difference means the first algorithm is better.
    """
    if board is None or within is None:
        return None
    if isinstance(within, NotApplicable):
        return TukeyTable([], "snapshot", within.reason)
    entry = within.entry(dataset)
    if entry is None:
        return TukeyTable([], "snapshot", "this dataset was not part of the analysis")
    if isinstance(entry.tukey, NotApplicable):
        return TukeyTable([], "snapshot", entry.tukey.reason)
    if entry.tukey is not None:
        return TukeyTable(
            _stored_rows(entry.tukey, within.algorithms),
            "snapshot",
            anova=_stored_anova(entry.anova),
        )
    return _computed_tukey(board, cells, higher_is_better)


def _computed_tukey(
    board: Board, cells: dict[str, dict[int | None, float]], higher_is_better: bool
) -> TukeyTable:
    """The Tukey HSD table of one dataset's complete folds, computed here."""
    names = [a for a in board.algorithms if a in cells]
    folds = sorted({f for a in names for f in cells[a] if f is not None})
    matrix = np.array(
        [[cells[a].get(f, np.nan) for a in names] for f in folds], dtype=float
    ).reshape(len(folds), len(names))
    matrix = matrix[np.isfinite(matrix).all(axis=1)]
    if not higher_is_better:
        matrix = -matrix
    result = repeated_measures_tukey(matrix, alpha=board.settings.alpha)
    if result.not_applicable:
        return TukeyTable([], "computed", result.not_applicable)
    # Applicable: every matrix is present.
    assert result.cohen_d is not None and result.mean_difference is not None
    assert result.pvalues is not None and result.significant is not None
    lower, upper = tukey_intervals(result)
    omnibus = repeated_measures_anova(matrix)
    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            d = float(result.cohen_d[i, j])
            rows.append(
                TukeyRow(
                    a=names[i],
                    b=names[j],
                    diff=float(result.mean_difference[i, j]),
                    cohens_d=d if np.isfinite(d) else None,
                    pvalue=float(result.pvalues[i, j]),
                    significant=bool(result.significant[i, j]),
                    ci_lower=float(lower[i, j]),
                    ci_upper=float(upper[i, j]),
                )
            )
    anova = AnovaSummary(omnibus.statistic, omnibus.pvalue, omnibus.df, omnibus.note)
    return TukeyTable(rows, "computed", anova=anova)


@dataclass(frozen=True)
class StandardErrorRow:
    """One pair's z-test on a dataset without folds, by the files' standard errors."""

    a: str
    b: str
    diff: float | None  # A minus B, positive: A better
    standard_error: float | None  # sqrt(se_A^2 + se_B^2)
    z: float | None
    pvalue: float | None  # corrected across the dataset's pairs
    significant: bool


@dataclass(frozen=True)
class StandardErrorPairs:
    rows: list[StandardErrorRow]
    correction: str
    not_stored: str | None = None  # why the snapshot keeps no table for this dataset


def dataset_standard_error_pairs(
    *, within: WithinDatasetSection | NotApplicable | None, dataset: str
) -> StandardErrorPairs | None:
    """The snapshot's z-tests of every pair on ``dataset`` by the files' standard errors
    (tested pairs only), or None where the dataset was not tested by them."""
    if not isinstance(within, WithinDatasetSection):
        return None
    entry = within.entry(dataset)
    if entry is None or entry.standard_errors is None:
        return None
    table: StoredErrors = entry.standard_errors
    names = within.algorithms
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    rows = [
        StandardErrorRow(
            a, b, table.diff[k], table.se[k], table.z[k], table.pvalue[k], table.significant[k]
        )
        for k, (a, b) in enumerate(pairs)
        if table.se[k] is not None
    ]
    return StandardErrorPairs(rows, table.correction)


@dataclass(frozen=True)
class Margin:
    dataset: str
    score: float
    best: float
    winner: str
    margin: float  # >= 0: how far behind the winner (0 = won or tied first)


def algorithm_margins(
    *, scores: dict[str, dict[str, float]], algorithm: str, higher_is_better: bool
) -> list[Margin]:
    """Per dataset where ``algorithm`` has a score: its gap to the best score there."""
    margins = []
    for dataset, by_algorithm in scores.items():
        if algorithm not in by_algorithm:
            continue
        pick = max if higher_is_better else min
        winner = pick(sorted(by_algorithm), key=lambda a: by_algorithm[a])
        best = by_algorithm[winner]
        own = by_algorithm[algorithm]
        gap = best - own if higher_is_better else own - best
        margins.append(Margin(dataset, own, best, winner, max(gap, 0.0)))
    return sorted(margins, key=lambda row: (-row.margin, row.dataset))


@dataclass(frozen=True)
class DatasetRank:
    dataset: str
    rank: float
    listed: bool  # False: not in a top-K list (its rank there is unknown)


def worst_datasets(
    board: Board,
    matrix: RankMatrixSection | NotApplicable | None,
    algorithm: str,
    limit: int = 10,
) -> list[DatasetRank]:
    """The datasets where ``algorithm`` lost (some algorithm ranked above it), worst first.

    A dataset it won or tied for first is never listed, so a strong algorithm has a short
    list, or none.
    """
    if not isinstance(matrix, RankMatrixSection) or algorithm not in matrix.algorithms:
        return []
    column = matrix.algorithms.index(algorithm)
    ranks = np.asarray(matrix.ranks, dtype=float).reshape(len(matrix.datasets), -1)
    own = ranks[:, column]
    lost = own > ranks.min(axis=1)
    known = board.input.known_positions if board.input.kind == "rank" else None
    rows = [
        DatasetRank(matrix.datasets[d], float(own[d]), known is None or own[d] <= known)
        for d in np.flatnonzero(lost)
    ]
    return sorted(rows, key=lambda row: (-row.rank, row.dataset))[:limit]


@dataclass(frozen=True)
class MinimaxExample:
    m: int
    n: int
    bound_mle: float
    bound_k2: float
    weights_k2: tuple[float, float]
    bound_k3: float
    weights_k3: tuple[float, ...]


def minimax_examples(m: int = 5, sizes: tuple[int, ...] = (5, 10)) -> list[MinimaxExample]:
    """The three worst-case bounds of METHODS 2.2, computed now (cached by the core)."""
    examples = []
    for n in sizes:
        k2 = minimax_weights(m, n, 2)
        k3 = minimax_weights(m, n, 3)
        examples.append(
            MinimaxExample(
                m=m,
                n=n,
                bound_mle=k3.bound_mle,
                bound_k2=k2.bound,
                weights_k2=(float(k2.weights[0]), float(k2.weights[1])),
                bound_k3=k3.bound,
                weights_k3=tuple(float(w) for w in k3.weights),
            )
        )
    return examples
