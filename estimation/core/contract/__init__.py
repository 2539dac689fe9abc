"""The snapshot contract: what an analysis publishes, as typed, versioned sections.

An analysis (:func:`estimation.core.analysis.analyze`) returns a :class:`SnapshotPayload`
made of sections that are stored and served apart:

``board``
    O(m): everything the leaderboard table and its headline need (every estimator's
    probabilities with bootstrap intervals, the per-algorithm columns, the tests'
    verdicts and group letters, the evaluation, the notes).
``wins``, ``nemenyi``, ``wilcoxon``
    O(m²): pairwise matrices, stored as the upper triangle of each matrix (and the lower
    one when the matrix is not symmetric), in the order of :func:`pair_index`.
``rank_matrix``
    O(m·n): each algorithm's rank on each dataset.
``within_dataset``
    O(n·m²): per-dataset tests on folds.
``advisor``
    O(m + estimators): the estimator advisor and size planner (METHODS section 8), from
    benchmarks simulated in the background; stored right after the other sections of a
    snapshot (readers do not wait for it) and served whole. It carries the power of the
    #1-vs-#2 comparison (how many more datasets).
``practical``
    O(k²): practical equivalence (a region of practical equivalence per metric) of every
    pair of the board's first ``k`` algorithms (METHODS section 6.1).
``dataset_scores``
    O(m·n): the dataset-level values the analysis ranked (fold means where folds were
    given), so that a version's per-dataset columns show its own input, not today's.

Every per-algorithm array is aligned with the section's ``algorithms``. A view that does
not apply (or would be unreadable at this size) is a :class:`NotApplicable` with a reason
in plain words, never a missing key or a NaN; JSON gives it as ``{"not_applicable": ...}``.

Each dataclass documents its fields in their metadata (:func:`describe`): the JSON Schema
(:func:`json_schema`, committed as ``docs/snapshot.schema.json``) and the field reference
(:func:`contract_markdown`, committed as ``docs/snapshot-contract.md``) are generated from
it, so the contract is written once. To add a field: add it to the dataclass with
``describe(...)``, fill it in ``analysis.py``, bump ``SCHEMA_VERSION`` and
``ENGINE_VERSION``, and regenerate both files (``python -m estimation.core.contract``).
"""

from estimation.core.contract.basics import (
    SCHEMA_VERSION,
    NotApplicable,
    PairwiseMatrix,
    T,
    applicable,
    describe,
    floats,
    pair_index,
    plain_float,
)
from estimation.core.contract.board import (
    AnalysisSettings,
    Board,
    BootstrapSummary,
    ControlComparison,
    EstimatorResult,
    Evaluation,
    ExcludedAlgorithm,
    Friedman,
    InputFacts,
    MethodSensitivity,
    NemenyiSummary,
    PracticalLeader,
    PracticalVersus,
    RankIntervals,
    ScoreSummary,
    Verdict,
    WilcoxonSummary,
    WinInterval,
)
from estimation.core.contract.choosing import (
    MAX_CHOSEN_ALGORITHMS,
    UnknownAlgorithmsError,
    choose_algorithms,
    restrict,
)
from estimation.core.contract.codec import from_json, to_json
from estimation.core.contract.payload import (
    SECTION_NAMES,
    SECTION_TYPES,
    SnapshotPayload,
    section_from_json,
    section_to_json,
)
from estimation.core.contract.schema import (
    SCHEMA_ID,
    contract_markdown,
    json_schema,
    main,
    section_schema,
)
from estimation.core.contract.schema import _dataclasses_in_order as _dataclasses_in_order
from estimation.core.contract.sections import (
    AdvisorEstimator,
    AdvisorPower,
    AdvisorSection,
    AdvisorSize,
    AdvisorTruth,
    DatasetScoresSection,
    DatasetTests,
    FoldsPower,
    HierarchicalComparison,
    HierarchicalVersus,
    NemenyiSection,
    PairNote,
    PairwiseScope,
    PracticalSection,
    RankMatrixSection,
    RepeatedMeasuresAnova,
    StandardErrorPair,
    StandardErrorTable,
    TukeyTable,
    WilcoxonSection,
    WinsSection,
    WithinDatasetSection,
)

__all__ = [
    "MAX_CHOSEN_ALGORITHMS",
    "SCHEMA_ID",
    "SCHEMA_VERSION",
    "SECTION_NAMES",
    "SECTION_TYPES",
    "AdvisorEstimator",
    "AdvisorPower",
    "AdvisorSection",
    "AdvisorSize",
    "AdvisorTruth",
    "AnalysisSettings",
    "Board",
    "BootstrapSummary",
    "ControlComparison",
    "DatasetScoresSection",
    "DatasetTests",
    "EstimatorResult",
    "Evaluation",
    "ExcludedAlgorithm",
    "FoldsPower",
    "Friedman",
    "HierarchicalComparison",
    "HierarchicalVersus",
    "InputFacts",
    "MethodSensitivity",
    "NemenyiSection",
    "NemenyiSummary",
    "NotApplicable",
    "PairNote",
    "PairwiseMatrix",
    "PairwiseScope",
    "PracticalLeader",
    "PracticalSection",
    "PracticalVersus",
    "RankIntervals",
    "RankMatrixSection",
    "RepeatedMeasuresAnova",
    "ScoreSummary",
    "SnapshotPayload",
    "StandardErrorPair",
    "StandardErrorTable",
    "T",
    "TukeyTable",
    "UnknownAlgorithmsError",
    "Verdict",
    "WilcoxonSection",
    "WilcoxonSummary",
    "WinInterval",
    "WinsSection",
    "WithinDatasetSection",
    "applicable",
    "choose_algorithms",
    "contract_markdown",
    "describe",
    "floats",
    "from_json",
    "json_schema",
    "main",
    "pair_index",
    "plain_float",
    "restrict",
    "section_from_json",
    "section_schema",
    "section_to_json",
    "to_json",
]
