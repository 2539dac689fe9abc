"""The payload of a snapshot: its sections by name, each stored and served apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from estimation.core.contract.basics import NotApplicable, describe
from estimation.core.contract.board import Board
from estimation.core.contract.codec import from_json, to_json
from estimation.core.contract.sections import (
    AdvisorSection,
    DatasetScoresSection,
    NemenyiSection,
    PairwiseScope,
    PracticalSection,
    RankMatrixSection,
    WilcoxonSection,
    WinsSection,
    WithinDatasetSection,
)

SECTION_TYPES: dict[str, Any] = {
    "board": Board,
    "wins": WinsSection | NotApplicable,
    "nemenyi": NemenyiSection | NotApplicable,
    "wilcoxon": WilcoxonSection | NotApplicable,
    "rank_matrix": RankMatrixSection | NotApplicable,
    "within_dataset": WithinDatasetSection | NotApplicable,
    "advisor": AdvisorSection | NotApplicable,
    "practical": PracticalSection | NotApplicable,
    "dataset_scores": DatasetScoresSection | NotApplicable,
    "pairwise": PairwiseScope | NotApplicable,
}
SECTION_NAMES: tuple[str, ...] = tuple(SECTION_TYPES)


@dataclass(frozen=True)
class SnapshotPayload:
    """A whole analysis: every section (what ``analyze --json`` prints)."""

    schema_version: int = describe("version of this contract")
    engine_version: str = describe("version of the engine")
    board: Board = describe("the leaderboard's O(m) section")
    wins: WinsSection | NotApplicable = describe(
        "pairwise wins, O(m²); above analysis.MAX_PAIRWISE_ALGORITHMS for the "
        "algorithms of the pairwise section only"
    )
    nemenyi: NemenyiSection | NotApplicable = describe(
        "Nemenyi's pairwise p-values; not applicable for top-K rankings or at a size "
        "where the matrix is not stored"
    )
    wilcoxon: WilcoxonSection | NotApplicable = describe(
        "pairwise Wilcoxon tests; not applicable for rankings or a single dataset"
    )
    rank_matrix: RankMatrixSection | NotApplicable = describe(
        "ranks per dataset; not applicable above the stored size"
    )
    within_dataset: WithinDatasetSection | NotApplicable = describe(
        "tests on folds; not applicable without folds"
    )
    advisor: AdvisorSection | NotApplicable = describe(
        "the estimator advisor; not applicable for a single algorithm or dataset, or "
        "beyond the simulation budget (and in analyze(advisor=False), whose caller runs "
        "analyze_advisor later: the recompute service stores it right after the other "
        "sections, so for a moment a served snapshot may not have it yet)",
        default=NotApplicable("computed by an engine before 0.5.0"),
    )
    practical: PracticalSection | NotApplicable = describe(
        "practical equivalence of every pair of the board's first algorithms; not "
        "applicable without a rope or without scores",
        default=NotApplicable("computed by an engine before 0.8.0"),
    )
    dataset_scores: DatasetScoresSection | NotApplicable = describe(
        "the dataset-level values the analysis ranked, O(m·n); not applicable above the "
        "stored size (analysis.MAX_SCORE_CELLS)",
        default=NotApplicable("computed by an engine before 0.10.0"),
    )
    pairwise: PairwiseScope | NotApplicable = describe(
        "which algorithms the pairwise sections cover above "
        "analysis.MAX_PAIRWISE_ALGORITHMS, and what a pair outside them needs; not "
        "applicable where they hold every pair",
        default=NotApplicable("computed by an engine before 0.11.0"),
    )

    def sections(self) -> dict[str, Any]:
        """{name: typed section} in :data:`SECTION_NAMES` order."""
        return {name: getattr(self, name) for name in SECTION_NAMES}

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SnapshotPayload:
        return from_json(cls, data)


def section_to_json(name: str, section: Any) -> dict[str, Any]:
    if name not in SECTION_TYPES:
        raise ValueError(f"section must be one of {list(SECTION_NAMES)}, got {name!r}")
    return to_json(section)


def section_from_json(name: str, data: Any) -> Any:
    if name not in SECTION_TYPES:
        raise ValueError(f"section must be one of {list(SECTION_NAMES)}, got {name!r}")
    return from_json(SECTION_TYPES[name], data)
