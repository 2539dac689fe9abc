"""Turn a snapshot payload into what a page shows: rows in reading order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LeaderboardRow:
    algorithm: str
    probability: float | None
    low: float | None
    high: float | None
    p_best: float | None
    win_rate: float | None
    mean_rank: float | None
    significance_rank: float | None
    group: str

    @property
    def bar(self) -> dict[str, float]:
        """Percent offsets of the interval bar and the point on a 0..max scale."""
        return {
            "left": (self.low or 0.0) * 100,
            "width": ((self.high or 0.0) - (self.low or 0.0)) * 100,
        }


def leaderboard_rows(payload: dict[str, Any]) -> list[LeaderboardRow]:
    estimator = payload["estimators"][payload["recommended"]]
    tests = payload.get("nemenyi") or {}
    letters = tests.get("letters") or (payload.get("wilcoxon") or {}).get("letters") or {}
    intervals = estimator.get("ci") or {}
    rows = [
        LeaderboardRow(
            algorithm=name,
            probability=estimator["p"].get(name),
            low=(intervals.get(name) or [None, None])[0],
            high=(intervals.get(name) or [None, None])[1],
            p_best=(estimator.get("p_best") or {}).get(name),
            win_rate=payload["win_rate"].get(name),
            mean_rank=(payload.get("mean_rank") or {}).get(name),
            significance_rank=(payload.get("significance_rank") or {}).get(name),
            group=letters.get(name, ""),
        )
        for name in payload["input"]["algorithms"]
    ]
    return sorted(rows, key=lambda row: -(row.probability or 0.0))


def friedman_summary(payload: dict[str, Any]) -> str:
    friedman = payload.get("friedman") or {}
    if "not_applicable" in friedman:
        return f"Friedman test: not applicable ({friedman['not_applicable']})."
    verdict = (
        "differ" if friedman["pvalue"] < payload["params"]["alpha"] else "do not clearly differ"
    )
    return (
        f"Friedman test: the algorithms {verdict} "
        f"(χ² = {friedman['statistic']:.2f}, p = {friedman['pvalue']:.3g}; "
        f"Iman–Davenport F = {friedman['iman_davenport'] or float('inf'):.2f})."
    )
