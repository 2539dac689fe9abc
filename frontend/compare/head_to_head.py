"""Two algorithms of one snapshot head to head, read from its typed sections.

Every test value is the stored one for the pair (:meth:`PairwiseMatrix.get` reads the
pair's position in the triangle; no matrix is expanded); the per-dataset outcome comes
from the stored ranks, and the probability that A beats B on a new dataset from
:func:`estimation.core.pairwise.pair_record`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from estimation.core.contract import (
    Board,
    NemenyiSection,
    NotApplicable,
    PracticalSection,
    RankMatrixSection,
    TukeyTable,
    WilcoxonSection,
    WinsSection,
    WithinDatasetSection,
    pair_index,
)
from estimation.core.pairwise import PairRecord, pair_record
from estimation.core.pairwise_scope import PairTests
from estimation.core.practical import PracticalPair, practical_probabilities

Outcome = Literal["win", "tie", "loss", "none"]


@dataclass(frozen=True)
class DatasetDifference:
    """One dataset: A's and B's values and A's advantage (positive: A better)."""

    dataset: str
    value_a: float | None
    value_b: float | None
    advantage: float | None
    rank_a: float | None
    rank_b: float | None
    outcome: Outcome
    # By the standard errors the files gave with the two scores (the snapshot's z-test
    # of the pair on this dataset): False where the difference is within them, so the
    # outcome is not a win or a loss that the data separate; None: not tested.
    separable: bool | None = None

    @property
    def outcome_words(self) -> str:
        """The outcome for A as a page says it."""
        words = {"win": "win", "loss": "loss", "tie": "tie", "none": "–"}[self.outcome]
        if self.separable is False and self.outcome in ("win", "loss"):
            return f"{words}, not separable by the standard errors"
        return words


@dataclass(frozen=True)
class PairTest:
    """One test's result for the pair, or why there is none."""

    pvalue: float | None = None
    pvalue_raw: float | None = None
    effect: float | None = None  # rank-biserial, positive: A better
    not_applicable: str | None = None


@dataclass(frozen=True)
class PairTukey:
    """The within-dataset Tukey HSD (and per-fold Wilcoxon) result for the pair."""

    dataset: str
    n_folds: int
    difference: float | None  # mean fold score of A minus B, positive: A better
    cohens_d: float | None
    pvalue: float | None
    significant: bool
    wilcoxon_pvalue: float | None
    rank_biserial: float | None


@dataclass(frozen=True)
class PairByErrors:
    """The pair's z-test on one dataset without folds, by the files' standard errors."""

    dataset: str
    difference: float | None  # A minus B, positive: A better
    standard_error: float | None  # sqrt(se_A^2 + se_B^2)
    pvalue: float | None  # corrected across the dataset's pairs
    significant: bool


@dataclass(frozen=True)
class PairPractical:
    """P(A practically better), P(equivalent), P(B practically better) for the pair."""

    rope: float | None = None
    a_better: float | None = None
    equivalent: float | None = None
    b_better: float | None = None
    decision: str | None = None  # "A practically better", "practically equivalent", ...
    computed_here: bool = False  # not stored with the snapshot: computed for this page
    not_applicable: str | None = None


@dataclass(frozen=True)
class HeadToHead:
    a: str
    b: str
    kind: Literal["score", "rank"]
    higher_is_better: bool  # the metric's direction (scores); advantages are oriented by it
    alpha: float
    record: PairRecord
    stored_share: float | None  # the wins section's value for the pair (ties split)
    outcome_source: Literal["ranks", "scores"]
    differences: tuple[DatasetDifference, ...]
    wilcoxon: PairTest
    wilcoxon_correction: str | None
    nemenyi: PairTest
    tukey: tuple[PairTukey, ...]
    tukey_note: str | None  # why there is no Tukey row (or why some are missing)
    tukey_left_out: tuple[str, ...]  # datasets whose tables the snapshot did not store
    practical: PairPractical = PairPractical(not_applicable="not computed")
    computed_here: bool = False  # the pair's wins and tests are not stored: computed
    by_standard_errors: tuple[PairByErrors, ...] = ()

    def separated_counts(self) -> tuple[int, int, int]:
        """Datasets tested by the standard errors where A is better beyond them, where B
        is, and where the two are not separable."""
        rows = self.by_standard_errors
        a_better = sum(1 for r in rows if r.significant and (r.difference or 0) > 0)
        b_better = sum(1 for r in rows if r.significant and (r.difference or 0) < 0)
        return a_better, b_better, len(rows) - a_better - b_better


def _pair_value(section: Any, attribute: str, a: str, b: str) -> float | None:
    index = {name: i for i, name in enumerate(section.algorithms)}
    if a not in index or b not in index:
        return None
    return getattr(section, attribute).get(index[a], index[b], len(section.algorithms))


# A pair outside the stored pairwise sections whose Holm correction was not stored.
_NO_HOLM_STEPS = (
    "the corrected p-value of a pair outside the stored sections needs more Holm steps "
    "than a snapshot stores"
)


def _wilcoxon(
    section: WilcoxonSection | NotApplicable | None,
    a: str,
    b: str,
    computed: PairTests | None = None,
) -> PairTest:
    if isinstance(section, NotApplicable):
        return PairTest(not_applicable=section.reason)
    if computed is not None:
        if computed.wilcoxon_note is not None and computed.wilcoxon_raw is None:
            return PairTest(not_applicable=computed.wilcoxon_note)
        if computed.wilcoxon_raw is not None and computed.wilcoxon is None:
            return PairTest(not_applicable=_NO_HOLM_STEPS)
        if computed.wilcoxon_note is not None:
            return PairTest(not_applicable=computed.wilcoxon_note)
        return PairTest(
            pvalue=computed.wilcoxon,
            pvalue_raw=computed.wilcoxon_raw,
            effect=computed.rank_biserial,
        )
    if section is None:
        return PairTest(not_applicable="not stored with this snapshot")
    index = {name: i for i, name in enumerate(section.algorithms)}
    if a not in index or b not in index:
        return PairTest(not_applicable="the pair is not part of the test")
    low, high = sorted((index[a], index[b]))
    for note in section.not_applicable_pairs:
        if (note.a, note.b) == (low, high):
            return PairTest(not_applicable=note.reason)
    return PairTest(
        pvalue=_pair_value(section, "pvalues", a, b),
        pvalue_raw=_pair_value(section, "pvalues_raw", a, b),
        effect=_pair_value(section, "rank_biserial", a, b),
    )


def _nemenyi(
    section: NemenyiSection | NotApplicable | None,
    board: Board,
    a: str,
    b: str,
    computed: PairTests | None = None,
):
    if isinstance(board.nemenyi, NotApplicable):
        return PairTest(not_applicable=board.nemenyi.reason)
    if isinstance(section, NotApplicable):
        return PairTest(not_applicable=section.reason)
    if computed is not None and computed.nemenyi is not None:
        return PairTest(pvalue=computed.nemenyi)
    if section is None:
        return PairTest(not_applicable="not stored with this snapshot")
    return PairTest(pvalue=_pair_value(section, "pvalues", a, b))


def _decided(a: str, b: str, a_better: float, equivalent: float, b_better: float, level: float):
    if equivalent >= level:
        return "practically equivalent"
    if a_better >= level:
        return f"{a} practically better"
    if b_better >= level:
        return f"{b} practically better"
    return None


def _practical(
    sections: Mapping[str, Any],
    board: Board,
    a: str,
    b: str,
    values: Mapping[str, Mapping[str, float]],
    higher_is_better: bool,
) -> PairPractical:
    """The stored probabilities of the pair (the practical section, else the leader's
    row of the board); for a pair stored in neither, the same test computed here on the
    two algorithms' scores with the snapshot's seed and number of draws."""
    stored = board.practical
    if isinstance(stored, NotApplicable):
        return PairPractical(not_applicable=stored.reason)
    level = stored.decision_level
    section = sections.get("practical")
    if isinstance(section, PracticalSection) and {a, b} <= set(section.algorithms):
        index = {name: i for i, name in enumerate(section.algorithms)}
        k = len(section.algorithms)
        i, j = index[a], index[b]
        p_a, p_b = section.better.get(i, j, k), section.better.get(j, i, k)
        eq = section.equivalent.get(i, j, k)
        if p_a is None or p_b is None or eq is None:
            return PairPractical(not_applicable="fewer than two datasets with results of both")
        return PairPractical(stored.rope, p_a, eq, p_b, _decided(a, b, p_a, eq, p_b, level))
    for leader, other, flip in ((a, b, False), (b, a, True)):
        if stored.leader == leader:
            row = next((v for v in stored.versus if v.algorithm == other), None)
            if row is not None:
                p_a, p_b = (
                    (row.other_better, row.leader_better)
                    if flip
                    else (
                        row.leader_better,
                        row.other_better,
                    )
                )
                return PairPractical(
                    stored.rope,
                    p_a,
                    row.equivalent,
                    p_b,
                    _decided(a, b, p_a, row.equivalent, p_b, level),
                )
    # the engine's datasets in its order: the same posterior draws as the engine's
    datasets = list(board.input.datasets)
    sign = 1.0 if higher_is_better else -1.0
    scores = np.array(
        [[sign * values.get(name, {}).get(d, np.nan) for name in (a, b)] for d in datasets],
        dtype=float,
    ).reshape(len(datasets), 2)
    seed = section.seed if isinstance(section, PracticalSection) else 0
    result = practical_probabilities(
        scores, [(0, 1)], rope=stored.rope, rng=seed, n_samples=stored.n_samples
    )[(0, 1)]
    if not isinstance(result, PracticalPair):
        return PairPractical(not_applicable=result)
    return PairPractical(
        stored.rope,
        result.a_better,
        result.equivalent,
        result.b_better,
        _decided(a, b, result.a_better, result.equivalent, result.b_better, level),
        computed_here=True,
    )


def _oriented(value: float | None, flip: bool) -> float | None:
    return None if value is None else (-value if flip else value)


def _tukey(
    within: WithinDatasetSection | NotApplicable | None, a: str, b: str
) -> tuple[tuple[PairTukey, ...], str | None, tuple[str, ...]]:
    if isinstance(within, NotApplicable):
        return (), within.reason, ()
    if within is None:
        return (), "not stored with this snapshot", ()
    index = {name: i for i, name in enumerate(within.algorithms)}
    i, j = index[a], index[b]
    flip = i > j
    position = pair_index(min(i, j), max(i, j), len(within.algorithms))
    rows, left_out, reasons = [], [], []
    for entry in within.datasets:
        table = entry.tukey
        if table is None:
            left_out.append(entry.dataset)
            continue
        if isinstance(table, NotApplicable):
            reasons.append(f"{entry.dataset}: {table.reason}")
            continue
        rows.append(_tukey_row(entry.dataset, entry.n_folds, table, position, flip))
    note = within.note if left_out else None
    if not rows and not left_out and reasons:
        note = "; ".join(reasons[:3])
    return tuple(rows), note, tuple(left_out)


def _tukey_row(dataset: str, n_folds: int, table: TukeyTable, k: int, flip: bool) -> PairTukey:
    return PairTukey(
        dataset=dataset,
        n_folds=n_folds,
        difference=_oriented(table.diff[k], flip),
        cohens_d=_oriented(table.cohens_d[k], flip),
        pvalue=table.pvalue[k],
        significant=table.significant[k],
        wilcoxon_pvalue=table.wilcoxon_pvalue[k],
        rank_biserial=_oriented(table.rank_biserial[k], flip),
    )


def _by_standard_errors(
    within: WithinDatasetSection | NotApplicable | None, a: str, b: str
) -> tuple[PairByErrors, ...]:
    """The pair's z-test on every dataset the snapshot tested by standard errors, read as
    the dataset page reads it (:meth:`WithinDatasetSection.standard_error_tests`)."""
    if not isinstance(within, WithinDatasetSection):
        return ()
    return tuple(
        PairByErrors(
            dataset=dataset,
            difference=test.diff,
            standard_error=test.se,
            pvalue=test.pvalue,
            significant=test.significant,
        )
        for dataset, test in within.standard_error_tests(a, b).items()
    )


def _differences(
    board: Board,
    ranks: RankMatrixSection | NotApplicable | None,
    values: Mapping[str, Mapping[str, float]],
    a: str,
    b: str,
    higher_is_better: bool,
    by_errors: tuple[PairByErrors, ...] = (),
) -> tuple[tuple[DatasetDifference, ...], Literal["ranks", "scores"]]:
    """A row per dataset of the analysis. The outcome comes from the stored ranks (the
    analysis's ties and missing-data policy); without them, from the values, a gap
    within the benchmark's tie tolerance counting as a tie. ``by_errors``: whether the
    files' standard errors separate the two on a dataset."""
    separable = {row.dataset: row.significant for row in by_errors}
    datasets = board.input.datasets
    rank_of: dict[str, tuple[float, float]] = {}
    if isinstance(ranks, RankMatrixSection):
        ia, ib = ranks.algorithms.index(a), ranks.algorithms.index(b)
        rank_of = {
            d: (row[ia], row[ib]) for d, row in zip(ranks.datasets, ranks.ranks, strict=True)
        }
    lower_better = board.input.kind == "rank" or not higher_is_better
    sign = -1.0 if lower_better else 1.0
    tolerance = board.settings.tie_tol if board.input.kind == "score" else 0.0
    rows = []
    for dataset in datasets:
        value_a = values.get(a, {}).get(dataset)
        value_b = values.get(b, {}).get(dataset)
        advantage = None
        if value_a is not None and value_b is not None:
            advantage = sign * (value_a - value_b)
        rank_a, rank_b = rank_of.get(dataset, (None, None))
        if rank_a is not None and rank_b is not None:
            gap = rank_b - rank_a
        elif advantage is not None:
            gap = 0.0 if abs(advantage) <= tolerance else advantage
        else:
            gap = None
        outcome: Outcome = (
            "none" if gap is None else "win" if gap > 0 else "loss" if gap < 0 else "tie"
        )
        rows.append(
            DatasetDifference(
                dataset,
                value_a,
                value_b,
                advantage,
                rank_a,
                rank_b,
                outcome,
                separable.get(dataset),
            )
        )
    return tuple(rows), ("ranks" if rank_of else "scores")


def head_to_head(
    sections: Mapping[str, Any],
    a: str,
    b: str,
    *,
    values: Mapping[str, Mapping[str, float]],
    higher_is_better: bool,
    computed: PairTests | None = None,
) -> HeadToHead:
    """A against B from a snapshot's typed sections and the two algorithms' dataset-level
    values (``{algorithm: {dataset: value}}``: scores, or given ranks for a ranking file);
    ``computed``: the pair's wins and tests when the pairwise sections do not hold it
    (:func:`estimation.pair_tests.pair_tests_on_demand`).

    Raises ``KeyError`` when either is not one of the board's algorithms.
    """
    board: Board = sections["board"]
    for name in (a, b):
        if name not in board.algorithms:
            raise KeyError(name)
    by_errors = _by_standard_errors(sections.get("within_dataset"), a, b)
    differences, source = _differences(
        board, sections.get("rank_matrix"), values, a, b, higher_is_better, by_errors
    )
    advantage = np.array(
        [
            np.nan if row.outcome == "none" else {"win": 1.0, "tie": 0.0, "loss": -1.0}[row.outcome]
            for row in differences
        ],
        dtype=float,
    )
    wins: WinsSection | None = sections.get("wins")
    tukey, tukey_note, left_out = _tukey(sections.get("within_dataset"), a, b)
    wilcoxon_summary = board.wilcoxon
    return HeadToHead(
        a=a,
        b=b,
        kind=board.input.kind,
        higher_is_better=higher_is_better,
        alpha=board.settings.alpha,
        record=pair_record(advantage),
        stored_share=(
            computed.share
            if computed is not None
            else _pair_value(wins, "wins", a, b)
            if wins is not None
            else None
        ),
        outcome_source=source,
        differences=differences,
        wilcoxon=_wilcoxon(sections.get("wilcoxon"), a, b, computed),
        wilcoxon_correction=(
            None if isinstance(wilcoxon_summary, NotApplicable) else wilcoxon_summary.correction
        ),
        nemenyi=_nemenyi(sections.get("nemenyi"), board, a, b, computed),
        tukey=tukey,
        tukey_note=tukey_note,
        tukey_left_out=left_out,
        practical=_practical(sections, board, a, b, values, higher_is_better)
        if board.input.kind == "score"
        else PairPractical(not_applicable="ranking-only input has no score differences"),
        computed_here=computed is not None,
        by_standard_errors=by_errors,
    )
