"""The Papers with Code archive: ``evaluation-tables.json``.

A list of tasks, each ``{"task", "datasets": [{"dataset", "sota": {"metrics": [...],
"rows": [{"model_name", "paper_title", "paper_url", "paper_date", "code_links",
"metrics": {name: "88.5%"}}]}}], "subtasks": [...]}`` (subtasks nest the same way).

Mapping: algorithm = ``model_name``; dataset = ``<task>: <dataset>``; metric = the
metric's name, its values read as numbers (a trailing ``%`` gives the unit ``%``). A
value written with its spread, ``0.8428 ± 0.0014`` (or ``+-``, ``+/-``), is the value,
and the spread is kept as the result's standard error (the archive does not say which
spread a paper reports: OGB's are standard deviations over runs). Values that are not
numbers ("-", "N/A", "1.2M params") are left out, each listed at its file and key, as is
a second row for a model already seen on a dataset (the archive repeats models across
papers): the first row is kept. The archive states no directions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from estimation.core.wording import agreeing, counted
from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
    missing,
)
from leaderboard.ingest.results_csv import plain_number

FORMAT = "pwc"


def read_pwc(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    skipped = {"values": 0, "repeats": 0}
    for path in sorted(p for p in files if p.endswith(".json")):
        doc = out.json(path, files[path])
        if missing(doc):
            continue
        if not isinstance(doc, list):
            out.problem(path, "(document)", "expected a list of tasks")
            continue
        for i, task in enumerate(doc):
            _task(out, path, f"[{i}]", task, skipped)
    if n := skipped["values"]:
        what = counted(n, "value that is not a number", "values that are not numbers")
        out.notes.append(f"{what} {agreeing(n, 'was', 'were')} left out")
    if n := skipped["repeats"]:
        what = counted(n, "repeated model row")
        out.notes.append(f"{what} {agreeing(n, 'was', 'were')} left out (first kept)")
    return out.finish()


def _task(out: Collector, path: str, key: str, task: Any, skipped: dict[str, int]) -> None:
    name = out.get(path, task, "task", path=key, kind=str)
    if missing(name):
        return
    datasets = task.get("datasets", [])
    if not isinstance(datasets, list):
        out.problem(path, f"{key}.datasets", "expected a list")
        return
    for j, dataset in enumerate(datasets):
        _dataset(out, path, f"{key}.datasets[{j}]", name, dataset, skipped)
    subtasks = task.get("subtasks") or []
    if not isinstance(subtasks, list):
        out.problem(path, f"{key}.subtasks", "expected a list")
        return
    for j, sub in enumerate(subtasks):
        _task(out, path, f"{key}.subtasks[{j}]", sub, skipped)


def _dataset(
    out: Collector, path: str, key: str, task: str, dataset: Any, skipped: dict[str, int]
) -> None:
    title = out.get(path, dataset, "dataset", path=key, kind=str)
    sota = out.get(path, dataset, "sota", path=key, kind=dict)
    if missing(title) or missing(sota):
        return
    rows = out.get(path, sota, "rows", path=f"{key}.sota", kind=list)
    if missing(rows):
        return
    label = f"{task}: {title}"
    seen: set[str] = set()
    for r, row in enumerate(rows):
        where = f"{key}.sota.rows[{r}]"
        model = out.get(path, row, "model_name", path=where, kind=str)
        metrics = out.get(path, row, "metrics", path=where, kind=dict)
        if missing(model) or missing(metrics):
            continue
        model = model.strip()
        if not model:
            out.problem(path, f"{where}.model_name", "the row names no model")
            continue
        if model in seen:
            skipped["repeats"] += 1
            out.leave_out(path, f"{where}.model_name", f"{model[:60]!r} repeated (first kept)")
            continue
        seen.add(model)
        url = row.get("paper_url") if isinstance(row.get("paper_url"), str) else ""
        out.algorithm(AlgorithmInfo(name=model, url=url))
        papers = out.provenance.setdefault(model, {}).setdefault("papers", {})
        papers[label] = {"title": row.get("paper_title"), "url": url, "date": row.get("paper_date")}
        for metric, raw in metrics.items():
            value, unit, spread = _value(raw)
            if value is None:
                skipped["values"] += 1
                if raw not in (None, "", "-"):
                    out.leave_out(
                        path, f"{where}.metrics.{metric}", f"{str(raw)[:40]!r} is not a number"
                    )
                continue
            out.metric(MetricInfo(str(metric), unit=unit), file=path, key=f"{where}.metrics")
            out.add(
                dataset=label,
                algorithm=model,
                metric=str(metric),
                value=value,
                file=path,
                key=f"{where}.metrics.{metric}",
                standard_error=spread,
            )


_SPREAD_SIGNS = ("±", "+/-", "+-")


def _value(raw: Any) -> tuple[float | None, str, float | None]:
    """The value, its unit and its spread ("x ± s"; None without one)."""
    if isinstance(raw, bool):
        return None, "", None
    if isinstance(raw, (int, float)):
        return float(raw), "", None
    if not isinstance(raw, str):
        return None, "", None
    text, spread_text = raw, ""
    for sign in _SPREAD_SIGNS:
        if sign in raw:
            text, _, spread_text = raw.partition(sign)
            break
    value, unit = _number(text)
    if value is None:
        return None, "", None
    if not spread_text:
        return value, unit, None
    spread, spread_unit = _number(spread_text)
    unit = unit or spread_unit  # "84.28 ± 0.14%": the unit is written once, at the end
    # A spread that is no number ("± n/a") leaves the value standing without it.
    return value, unit, spread if spread is not None and spread >= 0 else None


def _number(raw: str) -> tuple[float | None, str]:
    # Stripped and split by hand, not matched by a pattern: "1", many spaces, "x" made
    # the old regex backtrack quadratically (a 40 KB value held a worker 45 s).
    text = raw.replace(",", "").strip()
    unit = ""
    if text.endswith("%"):
        text, unit = text[:-1].rstrip(), "%"
    value = plain_number(text)
    return (None, "") if value is None else (value, unit)
