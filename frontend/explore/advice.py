"""What the charts and methods pages show of the estimator advisor and of the comparison
with a control: plain rows for the templates, built from the snapshot's typed sections.

The comparison with a control needs only the board's mean ranks, so a page that picks
another control (``?control=<name>``) recomputes it here with the engine's own function
(:func:`estimation.core.control.control_comparison`), O(m), without a new snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimation.core.advisor import size_label
from estimation.core.contract import AdvisorSection, Board, ControlComparison, NotApplicable
from estimation.core.control import control_comparison
from estimation.core.registry import estimator_get
from estimation.recommendation import board_recommendation

TRUTH_LABELS = {
    "plackett_luce": "if the benchmark's population were its fitted Plackett–Luce model",
    "empirical": "if the benchmark's population were its own datasets (resampled)",
    "mixture": "if each dataset came from either of those two models, half the time each "
    "(the truth the recommendation reads: neither estimator's own model)",
}
# The page shows these sizes; four times is in the API's section.
SHOWN_FACTORS = (1, 2)


@dataclass(frozen=True)
class AdvisorRow:
    key: str
    label: str
    kl: float | None
    tv: float | None
    leader_first: float | None
    spread_width: float | None
    best: bool


@dataclass(frozen=True)
class AdvisorTable:
    truth: str
    truth_label: str
    size_label: str
    n_datasets: int
    n_simulations: int
    interval_width: float | None
    best_label: str
    leader: str
    rows: list[AdvisorRow]


@dataclass(frozen=True)
class AdvisorView:
    tables: list[AdvisorTable]
    leader: str
    n_datasets: int
    notes: tuple[str, ...]
    not_applicable: str | None = None
    pending: bool = False
    # How the simulations relate to the board's recommended estimator, one sentence.
    relation: str | None = None


def advisor_view(
    section: AdvisorSection | NotApplicable | None,
    *,
    has_board: bool = True,
    board: Board | None = None,
) -> AdvisorView | None:
    """The advisor's tables "at your size" and "with twice the datasets". A ready
    snapshot whose advisor is not stored yet (it follows the other sections) is pending;
    None when there is nothing to show (no results yet)."""
    if section is None:
        return AdvisorView([], "", 0, (), pending=True) if has_board else None
    if isinstance(section, NotApplicable):
        return AdvisorView([], "", 0, (), not_applicable=section.reason)
    tables = []
    for factor in SHOWN_FACTORS:
        for truth in section.truths:
            size = next((s for s in truth.sizes if s.factor == factor), None)
            if size is None:
                continue
            rows = [
                AdvisorRow(
                    key=e.key,
                    label=estimator_get(e.key).label,
                    kl=e.kl,
                    tv=e.tv,
                    leader_first=e.leader_first,
                    spread_width=e.spread_width,
                    best=e.key == size.best,
                )
                for e in size.estimators
            ]
            tables.append(
                AdvisorTable(
                    truth=truth.truth,
                    truth_label=TRUTH_LABELS[truth.truth],
                    size_label=size_label(factor),
                    n_datasets=size.n_datasets,
                    n_simulations=size.n_simulations,
                    interval_width=size.interval_width,
                    best_label=estimator_get(size.best).label,
                    leader=truth.leader,
                    rows=rows,
                )
            )
    pl = section.truth("plackett_luce")
    return AdvisorView(
        tables=tables,
        leader=pl.leader if pl else "",
        n_datasets=section.n_datasets,
        notes=section.notes,
        relation=(
            board_recommendation(board, section).advisor if isinstance(board, Board) else None
        ),
    )


@dataclass(frozen=True)
class ControlRow:
    algorithm: str
    mean_rank: float | None
    z: float | None
    pvalue: float | None
    pvalue_holm: float | None
    significant_holm: bool
    significant_bonferroni_dunn: bool
    is_control: bool


@dataclass(frozen=True)
class ControlView:
    comparison: ControlComparison | None
    rows: list[ControlRow]
    choices: list[str]
    not_applicable: str | None = None
    unknown_choice: str | None = None


MAX_CONTROL_CHOICES = 500


def control_view(board: Board | None, wanted: str | None) -> ControlView | None:
    """The comparison with ``wanted`` (a page's choice), else the board's default."""
    if board is None:
        return None
    names = list(board.algorithms)
    unknown = None
    if wanted and wanted not in names:
        unknown, wanted = wanted[:100], None
    comparison: ControlComparison | NotApplicable
    if wanted:
        comparison = control_comparison(
            board.algorithms,
            board.mean_rank,
            board.input.n_datasets_used,
            wanted=wanted,
            alpha=board.settings.alpha,
            chosen_by_page=True,
        )
    else:
        comparison = board.control
    if isinstance(comparison, NotApplicable):
        return ControlView(None, [], [], not_applicable=comparison.reason, unknown_choice=unknown)
    mean_rank = board.column(board.mean_rank)
    rows = [
        ControlRow(
            algorithm=name,
            mean_rank=mean_rank.get(name),
            z=comparison.z[i],
            pvalue=comparison.pvalue[i],
            pvalue_holm=comparison.pvalue_holm[i],
            significant_holm=comparison.significant_holm[i],
            significant_bonferroni_dunn=comparison.significant_bonferroni_dunn[i],
            is_control=name == comparison.control,
        )
        for i, name in enumerate(names)
    ]
    rows.sort(key=lambda r: (r.mean_rank if r.mean_rank is not None else float("inf")))
    choices = sorted(names)[:MAX_CONTROL_CHOICES]
    return ControlView(comparison, rows, choices, unknown_choice=unknown)
