"""A snapshot's payload as one row per algorithm: the leaderboard table, for spreadsheets.

Pairwise tables (p-values, effect sizes, win matrix) stay in the JSON export; the CSV
keeps what a reader sorts and plots: the headline columns, then every estimator's
probability with its bootstrap interval and P(best), then the group letters.
"""

from __future__ import annotations

import csv
import io
from typing import Any

ESTIMATORS = ("loo_kl", "loo_tv", "minimax", "mle", "borda", "plackett_luce")


def _per_algorithm(payload: dict) -> list[tuple[str, dict[str, Any]]]:
    """(column, {algorithm: value}) in column order, for whatever the payload holds."""
    columns: list[tuple[str, dict[str, Any]]] = []
    for key in ("win_rate", "mean_rank", "significance_rank"):
        if isinstance(payload.get(key), dict):
            columns.append((key, payload[key]))
    estimators = payload.get("estimators") or {}
    for name in ESTIMATORS:
        estimate = estimators.get(name)
        if not estimate:
            continue
        columns.append((name, estimate.get("p") or {}))
        intervals = estimate.get("ci") or {}
        columns.append((f"{name}_ci_low", {a: ci[0] for a, ci in intervals.items() if ci}))
        columns.append((f"{name}_ci_high", {a: ci[1] for a, ci in intervals.items() if ci}))
        columns.append((f"{name}_p_best", estimate.get("p_best") or {}))
    for test in ("nemenyi", "wilcoxon"):
        letters = (payload.get(test) or {}).get("letters")
        if letters:
            columns.append((f"{test}_group", letters))
    return columns


def snapshot_rows(payload: dict | None) -> tuple[list[str], list[dict[str, Any]]]:
    """``(columns, rows)``: each row maps ``algorithm`` and every column to a value."""
    payload = payload or {}
    algorithms = list((payload.get("input") or {}).get("algorithms") or [])
    columns = _per_algorithm(payload)
    rows = [
        {"algorithm": algorithm, **{name: values.get(algorithm) for name, values in columns}}
        for algorithm in algorithms
    ]
    return ["algorithm", *(name for name, _ in columns)], rows


def rows_as_csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return out.getvalue()
