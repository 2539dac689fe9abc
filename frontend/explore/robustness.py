"""What the charts page shows of the engine's robustness views: whether the winner
depends on the method (the board's sensitivity), practical equivalence of the first
algorithms (the 'practical' section) and how many more datasets would separate #1 from
#2 (the advisor's power). Plain rows for the templates, read from the typed sections."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from estimation.core.contract import (
    AdvisorPower,
    AdvisorSection,
    Board,
    FoldsPower,
    HierarchicalComparison,
    MethodSensitivity,
    NotApplicable,
    PracticalSection,
)
from estimation.core.registry import estimator_get
from estimation.core.sensitivity import kendall_tau_b


@dataclass(frozen=True)
class SensitivityRow:
    label: str
    leader: str
    top3: str
    taus: tuple[float | None, ...]


@dataclass(frozen=True)
class SensitivityView:
    sentence: str
    labels: tuple[str, ...]
    rows: tuple[SensitivityRow, ...]
    top1_agree: bool
    top3_agree: bool
    min_tau: float | None
    not_applicable: str | None = None


def sensitivity_view(board: Board | None) -> SensitivityView | None:
    if board is None:
        return None
    section = board.sensitivity
    if isinstance(section, NotApplicable):
        return SensitivityView("", (), (), False, False, None, not_applicable=section.reason)
    assert isinstance(section, MethodSensitivity)
    rows = tuple(
        SensitivityRow(label, leader, ", ".join(top), taus)
        for label, leader, top, taus in zip(
            section.labels, section.leaders, section.top3, section.tau, strict=True
        )
    )
    return SensitivityView(
        section.sentence,
        section.labels,
        rows,
        section.top1_agree,
        section.top3_agree,
        section.min_tau,
    )


@dataclass(frozen=True)
class SourceOrderRow:
    """A source's own order ("Mean win rate") beside the board's: Kendall's tau-b over
    the algorithms both hold (None where it cannot be computed: under two, or all tied)."""

    name: str
    source_format: str
    leader: str  # the source's first
    n_common: int
    tau_p_win: float | None  # against the recommended estimator's P(win)
    tau_mean_rank: float | None  # against the mean rank (the best first)


@dataclass(frozen=True)
class SourceOrdersView:
    estimator_label: str
    rows: tuple[SourceOrderRow, ...]


def source_orders_view(
    board: Board | None, orders: Iterable[tuple[str, str, Mapping[str, float]]]
) -> SourceOrdersView | None:
    """``orders`` as (name, format, algorithm -> value, higher first) beside ``board``."""
    orders = list(orders)
    if board is None or not orders or isinstance(board.mean_rank, NotApplicable):
        return None
    p_win = board.estimator(board.recommended).p
    mean_rank = board.mean_rank
    rows = []
    for name, source_format, values in orders:
        common = [
            i
            for i, algorithm in enumerate(board.input.algorithms)
            if algorithm in values and p_win[i] is not None and mean_rank[i] is not None
        ]
        leader = max(values, key=lambda algorithm: (values[algorithm], algorithm))
        tau_p, tau_rank = None, None
        if len(common) >= 2:
            matrix = np.array(
                [
                    [values[board.input.algorithms[i]] for i in common],
                    [p_win[i] for i in common],
                    [mean_rank[i] for i in common],
                ],
                dtype=float,
            )
            matrix[2] *= -1  # the best mean rank first, as the other two rows
            tau = kendall_tau_b(matrix)[0]
            tau_p, tau_rank = (None if np.isnan(t) else float(t) for t in tau[1:])
        rows.append(SourceOrderRow(name, source_format, leader, len(common), tau_p, tau_rank))
    return SourceOrdersView(estimator_get(board.recommended).label, tuple(rows))


@dataclass(frozen=True)
class PracticalCell:
    better: float | None  # P(row algorithm practically better than the column's)
    equivalent: float | None
    worse: float | None
    decision: str  # "better", "equivalent", "worse" or "" (none reaches the level)


@dataclass(frozen=True)
class PracticalRow:
    algorithm: str
    cells: tuple[PracticalCell | None, ...]  # None on the diagonal


@dataclass(frozen=True)
class PracticalView:
    rope: float | None
    algorithms: tuple[str, ...]
    rows: tuple[PracticalRow, ...]
    level: float
    n_samples: int
    notes: tuple[str, ...]
    not_applicable: str | None = None
    # The hierarchical model over folds (the leader against the next few), or why not.
    hierarchical: HierarchicalComparison | None = None
    hierarchical_reason: str | None = None


def practical_view(section: PracticalSection | NotApplicable | None) -> PracticalView | None:
    if section is None:
        return None
    if isinstance(section, NotApplicable):
        return PracticalView(None, (), (), 0.95, 0, (), not_applicable=section.reason)
    k = len(section.algorithms)
    level = section.decision_level
    rows = []
    for i, name in enumerate(section.algorithms):
        cells: list[PracticalCell | None] = []
        for j in range(k):
            if i == j:
                cells.append(None)
                continue
            better = section.better.get(i, j, k)
            worse = section.better.get(j, i, k)
            equivalent = section.equivalent.get(i, j, k)
            decision = ""
            if equivalent is not None and equivalent >= level:
                decision = "equivalent"
            elif better is not None and better >= level:
                decision = "better"
            elif worse is not None and worse >= level:
                decision = "worse"
            cells.append(PracticalCell(better, equivalent, worse, decision))
        rows.append(PracticalRow(name, tuple(cells)))
    hierarchical = section.hierarchical
    return PracticalView(
        section.rope,
        section.algorithms,
        tuple(rows),
        level,
        section.n_samples,
        section.notes,
        hierarchical=hierarchical if isinstance(hierarchical, HierarchicalComparison) else None,
        hierarchical_reason=hierarchical.reason
        if isinstance(hierarchical, NotApplicable)
        else None,
    )


def folds_power_view(
    section: AdvisorSection | NotApplicable | None,
) -> FoldsPower | str | None:
    """The advisor's "how many more folds", the reason it does not apply, or None (no
    advisor yet)."""
    if section is None or isinstance(section, NotApplicable):
        return None
    folds = section.folds_power
    return folds.reason if isinstance(folds, NotApplicable) else folds


def power_view(section: AdvisorSection | NotApplicable | None) -> AdvisorPower | str | None:
    """The advisor's power figures, the reason they do not apply, or None (no advisor
    yet: the advisor's own panel says it is being computed)."""
    if section is None or isinstance(section, NotApplicable):
        return None if section is None else section.reason
    power = section.power
    return power.reason if isinstance(power, NotApplicable) else power
