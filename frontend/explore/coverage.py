"""The measured coverage of every displayed interval, for the methods page.

``python -m bench coverage`` writes ``docs/coverage.json`` (bench/suite_coverage.py says
what each field means); this module reads it into typed rows. What each interval is
called on the pages comes from the registry (``interval_kind``, :func:`interval_label`),
so the table shows the measurement beside the name it justifies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings

from estimation.core.registry import (
    ESTIMATOR_KEYS,
    WIN_RATE_INTERVAL_KIND,
    estimator_get,
    interval_label,
)
from frontend.readers.presenters import PLAUSIBLE_MARK, rank_interval_label

COVERAGE_JSON = Path(settings.BASE_DIR) / "docs" / "coverage.json"

# What a family's coverage counts, by its claim (the JSON's ``claim``).
CLAIMS = {
    "each": ("per_algorithm", "each algorithm's interval covers its true value"),
    "all": ("joint", "all intervals of a benchmark cover together"),
    "set": ("joint", "the set holds the true best"),
}


@dataclass(frozen=True)
class Worst:
    """The worst cell of the grid at one number of datasets."""

    coverage: float
    se: float
    cell: str
    reaches_floor: bool

    @property
    def text(self) -> str:
        return f"{self.coverage * 100:.1f} % ± {self.se * 100:.1f}"


@dataclass(frozen=True)
class CoverageRow:
    key: str
    label: str
    claim: str  # in words
    called: str  # what the pages call it ("" for the ones not named by the registry)
    worst: tuple[Worst | None, ...]  # aligned with CoverageTable.sizes


@dataclass(frozen=True)
class CellRow:
    truth: str
    n: int
    m: int
    coverage: tuple[float | None, ...]  # aligned with CoverageTable.rows


@dataclass(frozen=True)
class CoverageTable:
    level: float
    floor: float
    replicates: int
    analytic_replicates: int  # benchmarks per cell for the closed forms (the exact intervals)
    bootstrap: int
    command: str
    measured: str
    machine: str
    cpu_seconds: float
    sizes: tuple[int, ...]
    rows: tuple[CoverageRow, ...]
    cells: tuple[CellRow, ...]

    @property
    def se_max(self) -> float:
        """The largest standard error of one cell: sqrt(0.25 / R)."""
        return (0.25 / self.replicates) ** 0.5


def _called(key: str, level: float) -> str:
    if key in ESTIMATOR_KEYS:
        return interval_label(estimator_get(key).interval_kind, level)
    if key in ("exact", "exact_simultaneous"):
        label = interval_label(WIN_RATE_INTERVAL_KIND, level, source="exact")
        together = ", simultaneous" if key == "exact_simultaneous" else ""
        return f"{label}{together} (beside the win rate)"
    if key.startswith("ranks_"):
        return rank_interval_label(level)
    if key.startswith("winners_"):
        return f"plausible winners ({PLAUSIBLE_MARK})"
    return ""


def coverage_table_from(data: dict[str, Any]) -> CoverageTable:
    level = float(data["level"])
    sizes = tuple(sorted({int(cell["n"]) for cell in data["cells"]}))
    truths = {truth["key"]: truth["label"] for truth in data["truths"]}
    rows = []
    for family in data["families"]:
        key = family["key"]
        _, claim = CLAIMS[family["claim"]]
        verdicts = data["verdicts"].get(key, {})
        worst = tuple(
            Worst(v["worst"], v["worst_se"], v["worst_cell"], v["confidence"])
            if (v := verdicts.get(str(n)))
            else None
            for n in sizes
        )
        rows.append(CoverageRow(key, family["label"], claim, _called(key, level), worst))
    cells = tuple(
        CellRow(
            truth=truths.get(cell["truth"], cell["truth"]),
            n=int(cell["n"]),
            m=int(cell["m"]),
            coverage=tuple(
                cell["coverage"].get(family["key"], {}).get(CLAIMS[family["claim"]][0])
                for family in data["families"]
            ),
        )
        for cell in data["cells"]
    )
    return CoverageTable(
        level=level,
        floor=float(data["confidence_floor"]),
        replicates=int(data["replicates"]),
        analytic_replicates=int(data.get("analytic_replicates", data["replicates"])),
        bootstrap=int(data["bootstrap"]),
        command=data["command"],
        measured=data["measured"],
        machine=data["machine"],
        cpu_seconds=float(data["cpu_seconds"]),
        sizes=sizes,
        rows=tuple(rows),
        cells=cells,
    )


@cache
def coverage_table(path: Path = COVERAGE_JSON) -> CoverageTable | None:
    """The committed table (read once per process), or None when there is none."""
    try:
        return coverage_table_from(json.loads(path.read_text()))
    except FileNotFoundError:
        return None


RANK_SETS_JSON = Path(settings.BASE_DIR) / "docs" / "rank_sets.json"


@dataclass(frozen=True)
class RankSetRow:
    """One cell of ``python -m bench rank_sets``: the set of the best and the rank
    intervals of expected ranks beside Nemenyi's group and Holm against the best."""

    truth: str
    n: int
    m: int
    podium_coverage: float
    podium_size: float
    nemenyi_coverage: float
    nemenyi_size: float
    holm_coverage: float
    holm_size: float
    ranks_coverage: float
    ranks_width: float


@dataclass(frozen=True)
class RankSetTable:
    replicates: int
    truths: dict[str, str]
    rows: tuple[RankSetRow, ...]

    @property
    def lowest(self) -> float:
        return min(min(r.podium_coverage, r.ranks_coverage) for r in self.rows)


@cache
def rank_set_table(path: Path = RANK_SETS_JSON) -> RankSetTable | None:
    """The measured table, or None before ``python -m bench rank_sets`` has written it."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    fields = RankSetRow.__dataclass_fields__
    rows = tuple(RankSetRow(**{k: cell[k] for k in fields}) for cell in data["cells"])
    return RankSetTable(replicates=data["replicates"], truths=data["truths"], rows=rows)


POWER_JSON = Path(settings.BASE_DIR) / "docs" / "power.json"


@dataclass(frozen=True)
class PowerCoverage:
    """``python -m bench power`` in one line: how often the datasets needed's interval
    holds the true size, and how often the figure alone falls short of it."""

    replicates: int
    lowest_coverage: float
    highest_below_truth: float
    cells: int


@cache
def power_coverage(path: Path = POWER_JSON) -> PowerCoverage | None:
    """The measured summary, or None before ``python -m bench power`` has written it."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    shown = [c for c in data["cells"] if c["shown"]]
    return PowerCoverage(
        replicates=data["replicates"],
        lowest_coverage=min(c["coverage"] for c in shown),
        highest_below_truth=max(c["below_truth"] for c in shown),
        cells=len(shown),
    )
