"""OpenML evaluations with per-fold values.

OpenML's REST API evaluation lists (``/api/v1/evaluation/list/function/<f>/...``) as
XML (``<oml:evaluations><oml:evaluation>...``) or as its JSON (``/api/v1/json/...``:
``{"evaluations": {"evaluation": [...]}}``, numbers as text), or the records of
``openml.evaluations.list_evaluations(function, ..., per_fold=True)``
saved as JSON (a list of records, ``DataFrame.to_json(orient="records")``, or the
dict keyed by run id that ``output_format="dict"`` gives, each as ``vars()`` of an
``OpenMLEvaluation``) or as CSV (``DataFrame.to_csv``; ``values`` then holds the JSON
text of the list). Each record has ``run_id``, ``task_id``, ``setup_id``, ``flow_id``,
``flow_name``, ``data_id``, ``data_name``, ``function``, ``upload_time``, ``value``
(``None`` with per-fold values) and ``values``: a list per repeat of the values per
fold, which become folds (repeat-major).

Mapping: algorithm = ``flow_name``; dataset = ``data_name`` (``data_name (task N)``
when the files hold several tasks on one dataset); metric = ``function``. Two runs of
one flow on one task are refused, naming both runs: choose one. OpenML's records do not
state a direction; for its common measures the direction and range are those of
OpenML's measure definitions (the table below).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
    json_loads,
    missing,
)
from leaderboard.ingest.results_csv import plain_number

FORMAT = "openml"
REQUIRED = ("run_id", "task_id", "flow_name", "data_name", "function")
# OpenML's evaluation measures (https://www.openml.org/search?type=measure): direction, range.
KNOWN_MEASURES: dict[str, tuple[bool, float | None, float | None]] = {
    "predictive_accuracy": (True, 0.0, 1.0),
    "area_under_roc_curve": (True, 0.0, 1.0),
    "f_measure": (True, 0.0, 1.0),
    "precision": (True, 0.0, 1.0),
    "recall": (True, 0.0, 1.0),
    "kappa": (True, -1.0, 1.0),
    "mean_absolute_error": (False, 0.0, None),
    "root_mean_squared_error": (False, 0.0, None),
    "mean_prior_absolute_error": (False, 0.0, None),
    "root_mean_prior_squared_error": (False, 0.0, None),
    "relative_absolute_error": (False, 0.0, None),
    "root_relative_squared_error": (False, 0.0, None),
}


def read_openml(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    records: list[tuple[str, str, dict]] = []
    for path in sorted(files):
        if path.endswith(".csv"):
            records += _csv_records(out, path, files[path])
        elif path.endswith(".xml"):
            records += _xml_records(out, path, files[path])
        elif path.endswith(".json"):
            doc = out.json(path, files[path])
            if missing(doc):
                continue
            listed = doc.get("evaluations") if isinstance(doc, dict) else None
            if isinstance(listed, dict) and isinstance(listed.get("evaluation"), list):
                records += [  # the REST API's JSON: numbers written as text
                    (path, f"evaluations.evaluation[{i}]", _typed(out, path, i, item))
                    for i, item in enumerate(listed["evaluation"])
                    if isinstance(item, dict)
                ]
                continue
            if isinstance(doc, dict):
                items = [(f"[{k}]", v) for k, v in doc.items()]
            elif isinstance(doc, list):
                items = [(f"[{i}]", v) for i, v in enumerate(doc)]
            else:
                out.problem(path, "(document)", "expected a list of evaluation records")
                continue
            for key, record in items:
                if not isinstance(record, dict):
                    out.problem(path, key, "expected an evaluation record (an object)")
                else:
                    records.append((path, key, record))
    tasks_per_data: dict[str, set[str]] = {}
    for _, _, r in records:
        tasks_per_data.setdefault(str(r.get("data_name")), set()).add(str(r.get("task_id")))
    seen: dict[tuple[str, str, str], tuple[str, Any]] = {}
    for path, key, record in records:
        _record(out, path, key, record, tasks_per_data, seen)
    return out.finish()


class _Declared(Exception):
    pass


def _declares(data: bytes) -> bool:
    """Whether the document declares a document type or an entity, as expat reads it (in
    the encoding it declares: a byte search misses UTF-16), stopping at the first one,
    before anything is expanded. A document expat cannot read is ElementTree's to name."""

    def declared(*args: object) -> None:
        raise _Declared

    parser = expat.ParserCreate()
    parser.StartDoctypeDeclHandler = declared
    parser.EntityDeclHandler = declared
    try:
        parser.Parse(data, True)
    except _Declared:
        return True
    except (expat.ExpatError, LookupError, ValueError):
        return False
    return False


def _xml_records(out: Collector, path: str, data: bytes) -> list[tuple[str, str, dict]]:
    """``<oml:evaluation>`` elements, each child's text under its name without the
    namespace. A document type or entity declaration is refused unread (no expansion)."""
    if _declares(data):
        out.problem(path, "", "declares a document type or entities: not read")
        return []
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        out.problem(path, "", f"is not well-formed XML: {exc}")
        return []
    except (LookupError, ValueError) as exc:  # encoding="foo", encoding="utf-32"
        out.problem(path, "", f"is not XML Podium reads: its declared encoding: {exc}")
        return []
    found = []
    evaluations = [e for e in root.iter() if _local(e.tag) == "evaluation"]
    for i, element in enumerate(evaluations):
        item = {_local(child.tag): (child.text or "").strip() for child in element}
        found.append((path, f"evaluation[{i}]", _typed(out, path, i, item)))
    return found


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _typed(out: Collector, path: str, index: int, item: dict) -> dict:
    """A record of the REST API (every field text) with ``value`` a number and
    ``values`` the per-repeat, per-fold lists."""
    record = dict(item)
    value = record.get("value")
    if isinstance(value, str):
        number = plain_number(value.strip()) if value.strip() else None
        record["value"] = number if number is not None or not value.strip() else value
    values = record.get("values")
    if isinstance(values, str):
        try:
            record["values"] = json_loads(values) if values.strip() else None
        except (json.JSONDecodeError, RecursionError):
            out.problem(path, f"evaluation[{index}].values", "is not a JSON list per repeat")
            record["values"] = None
    return record


def _csv_records(out: Collector, path: str, data: bytes) -> list[tuple[str, str, dict]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        out.problem(path, "", "is not UTF-8 text")
        return []
    reader = csv.DictReader(io.StringIO(text))
    try:
        rows = list(reader)
    except csv.Error as exc:  # a field past csv's size limit, a NUL byte
        out.problem(path, f"line {reader.line_num + 1}", f"is not readable CSV: {exc}")
        return []
    found = []
    for i, row in enumerate(rows, start=2):
        record: dict[str, Any] = {
            k.strip(): v for k, v in row.items() if k is not None and k.strip()
        }
        if "" in record:
            record.pop("")
        for name in ("value",):
            if record.get(name) in ("", None):
                record[name] = None
            else:
                try:
                    record[name] = float(record[name])
                except ValueError:
                    pass  # reported as not a number below
        if record.get("values") not in ("", None):
            try:
                record["values"] = json_loads(record["values"])
            except json.JSONDecodeError as exc:
                out.problem(path, f"line {i}.values", f"is not a JSON list: {exc.msg}")
                continue
            except RecursionError:
                out.problem(path, f"line {i}.values", "is nested too deeply")
                continue
        else:
            record["values"] = None
        found.append((path, f"line {i}", record))
    return found


def _record(
    out: Collector,
    path: str,
    key: str,
    record: dict,
    tasks_per_data: dict[str, set[str]],
    seen: dict[tuple[str, str, str], tuple[str, Any]],
) -> None:
    absent = [name for name in REQUIRED if name not in record or record[name] in (None, "")]
    for name in absent:
        out.problem(path, f"{key}.{name}", "missing key")
    if absent:
        return
    flow, data, task, function = (
        str(record[k]) for k in ("flow_name", "data_name", "task_id", "function")
    )
    run = record["run_id"]
    earlier = seen.get((flow, task, function))
    if earlier is not None:
        out.problem(
            path,
            f"{key}.run_id",
            f"run {run} and run {earlier[1]} ({earlier[0]}) both evaluate flow {flow!r} on "
            f"task {task} ({function}): keep one",
        )
        return
    seen[(flow, task, function)] = (path, run)
    dataset = data if len(tasks_per_data[data]) == 1 else f"{data} (task {task})"
    folds = _folds(out, path, key, record.get("values"))
    if folds is None:
        return
    value: float | None
    if record.get("value") is None:
        if not folds:
            out.problem(path, f"{key}.value", "no value and no per-fold values")
            return
        value = sum(folds) / len(folds)
    else:
        value = out.number(path, record["value"], key=f"{key}.value")
        if value is None:
            return
    known = KNOWN_MEASURES.get(function)
    out.metric(
        MetricInfo(function, *known) if known else MetricInfo(function),
        file=path,
        key=f"{key}.function",
    )
    out.algorithm(
        AlgorithmInfo(
            name=flow,
            url=f"https://www.openml.org/f/{record['flow_id']}" if record.get("flow_id") else "",
        ),
        None,
    )
    runs = out.provenance.setdefault(flow, {}).setdefault("openml_runs", {})
    runs[dataset] = {
        "run_id": run,
        "task_id": task,
        "setup_id": record.get("setup_id"),
        "upload_time": record.get("upload_time"),
    }
    out.add(
        dataset=dataset,
        algorithm=flow,
        metric=function,
        value=value,
        folds=folds or None,
        file=path,
        key=f"{key}.values" if folds else f"{key}.value",
    )


def _folds(out: Collector, path: str, key: str, values: Any) -> list[float] | None:
    """Per-repeat, per-fold values flattened repeat-major ([] when the record has none);
    None after a problem."""
    if values is None:
        return []
    if not isinstance(values, list) or not all(isinstance(r, list) for r in values):
        out.problem(path, f"{key}.values", "expected a list per repeat of values per fold")
        return None
    flat: list[float] = []
    for r, repeat in enumerate(values):
        for f, item in enumerate(repeat):
            number = out.number(path, item, key=f"{key}.values[{r}][{f}]")
            if number is None:
                return None
            flat.append(number)
    return flat
