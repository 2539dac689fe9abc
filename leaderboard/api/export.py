"""A snapshot's payload as one row per algorithm.

The payload's shape grows with the engine (estimators, intervals, pairwise tables), so
the columns are not listed here: every mapping in the payload whose keys are algorithm
names becomes columns, named by its path (``win_rate``, ``estimates.loo_kl``); a value
that is itself a mapping or a list is spread over ``<path>.<key>`` columns
(``win_probability.beta``, ``interval.0``). ``input`` and ``params`` describe the run,
not the algorithms, and are left out.
"""

from __future__ import annotations

import csv
import io
from typing import Any

NOT_PER_ALGORITHM = ("input", "params")


def _algorithms(payload: dict) -> list[str]:
    listed = (payload.get("input") or {}).get("algorithms")
    if isinstance(listed, list) and listed:
        return [str(a) for a in listed]
    for key in ("win_rate", "mean_rank"):
        if isinstance(payload.get(key), dict):
            return list(payload[key])
    return []


def _spread(value: Any, path: str) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [cell for key, item in value.items() for cell in _spread(item, f"{path}.{key}")]
    if isinstance(value, list | tuple):
        return [cell for i, item in enumerate(value) for cell in _spread(item, f"{path}.{i}")]
    return [(path, value)]


def snapshot_rows(payload: dict | None) -> tuple[list[str], list[dict[str, Any]]]:
    """``(columns, rows)``: each row maps ``algorithm`` and every column to a value."""
    payload = payload or {}
    algorithms = _algorithms(payload)
    known = set(algorithms)
    columns: dict[str, None] = {}
    cells: dict[str, dict[str, Any]] = {name: {} for name in algorithms}

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict) or not node:
            return
        if set(node) <= known:
            for algorithm, value in node.items():
                for column, cell in _spread(value, path):
                    columns.setdefault(column, None)
                    cells[algorithm][column] = cell
            return
        for key, child in node.items():
            walk(child, f"{path}.{key}" if path else str(key))

    for key, node in payload.items():
        if key not in NOT_PER_ALGORITHM:
            walk(node, str(key))
    names = list(columns)
    rows = [{"algorithm": a, **{c: cells[a].get(c) for c in names}} for a in algorithms]
    return ["algorithm", *names], rows


def rows_as_csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return out.getvalue()
