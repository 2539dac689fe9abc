"""lm-evaluation-harness: ``results_<timestamp>.json``, one per model run.

``results.<task>."<metric>,<filter>"`` holds each score (``<metric>_stderr,<filter>``
its standard error, kept as the result's; lm-eval 0.3 writes ``<metric>`` and
``<metric>_stderr``); ``higher_is_better.<task>.<metric>`` its direction;
``n-samples``, ``n-shot``, ``versions``, ``config`` (``model``, ``model_args``,
``model_num_parameters``, ``model_revision``, ``model_sha``, ``model_dtype``),
``lm_eval_version`` and ``git_hash`` how it was made. Tasks that are groups of others
(``group_subtasks``) are left out: their subtasks are the datasets.

Mapping: algorithm = ``model_name``, else the name given as ``algorithm`` (the command's
``--algorithm NAME``), else ``pretrained=`` of ``config.model_args``, else
``config.model``; dataset = the task; metric = the metric name, with `` (<filter>)``
unless the filter is ``none``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    ResultRows,
    missing,
    model_organisation,
    model_precision,
    parameter_count,
)

FORMAT = "lm-eval"


def read_lm_eval(
    files: Mapping[str, bytes],
    *,
    max_results: int | None = None,
    on_error: str = "refuse",
    algorithm: str = "",
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    paths = [p for p in sorted(files) if p.endswith(".json")]
    chosen = [p for p in paths if PurePosixPath(p).name.startswith("results")] or paths
    for path in chosen:
        _run(out, path, files[path], algorithm.strip())
    return out.finish()


def _model(out: Collector, path: str, doc: dict, config: dict, given: str) -> str | None:
    name = doc.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    if given:
        return given
    args = config.get("model_args")
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "pretrained" and value.strip():
                return value.strip()
    model = config.get("model")
    if isinstance(model, str) and model.strip() and not args:
        return model.strip()
    out.problem(
        path,
        "model_name",
        "missing key (nor pretrained= in config.model_args): name the model with --algorithm",
    )
    return None


def _run(out: Collector, path: str, data: bytes, given: str) -> None:
    doc = out.json(path, data)
    if missing(doc):
        return
    results = out.get(path, doc, "results", path="", kind=dict)
    if missing(results):
        return
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    algorithm = _model(out, path, doc, config, given)
    if algorithm is None:
        return
    directions = (
        doc.get("higher_is_better") if isinstance(doc.get("higher_is_better"), dict) else {}
    )
    groups = doc.get("group_subtasks") if isinstance(doc.get("group_subtasks"), dict) else {}
    out.algorithm(
        AlgorithmInfo(
            name=algorithm,
            family=model_organisation(algorithm),
            parameters=parameter_count(config.get("model_num_parameters")),
            revision=str(config.get("model_revision") or config.get("model_sha") or ""),
            url=f"https://huggingface.co/{algorithm}" if "/" in algorithm else "",
            precision=model_precision(config.get("model_dtype")),
        ),
        {
            "harness": "lm-evaluation-harness",
            "lm_eval_version": doc.get("lm_eval_version"),
            "git_hash": doc.get("git_hash"),
            "date": doc.get("date"),
            "model_args": config.get("model_args"),
            "model_sha": config.get("model_sha"),
            "model_dtype": config.get("model_dtype"),
            "n-samples": doc.get("n-samples"),
            "n-shot": doc.get("n-shot"),
            "versions": doc.get("versions"),
            "results_file": path,
        },
    )
    out.add_rows(file=path, algorithm=algorithm, rows=_rows(out, path, results, directions, groups))


def _rows(out: Collector, path: str, results: dict, directions: dict, groups: dict) -> ResultRows:
    """Each task's metrics ("<metric>,<filter>": value) as rows for
    :meth:`Collector.add_rows`, each with its standard error; tasks that are groups of
    others are left out. One loop for the file: a million results are a million turns."""
    rows = ResultRows()
    datasets, metric_names, values, keys, errors = rows.appenders()
    named: dict[str, tuple[str, str, str]] = {}  # "<metric>,<filter>" -> its parts
    settled: set[tuple[str, bool | None]] = set()  # directions stated and unchanged since
    for task, metrics in results.items():
        if groups and isinstance(groups.get(task), list) and groups[task]:
            continue
        if not isinstance(metrics, dict):
            out.problem(path, f"results.{task}", "expected an object of metrics")
            continue
        stated = directions.get(task)
        if not isinstance(stated, dict):
            stated = {}
        for name, value in metrics.items():
            if name == "alias" or "_stderr" in name:
                continue
            parts = named.get(name)
            if parts is None:
                parts = named[name] = _metric_named(name)
            metric, label, stderr_key = parts
            key = f'results.{task}."{name}"'
            if type(value) is not float or not math.isfinite(value):
                value = out.number(path, value, key=key)
                if value is None:
                    continue
            direction = stated.get(metric)
            if direction is not True and direction is not False:
                direction = None
            if (label, direction) not in settled:
                if not out.metric_settled(label, direction):
                    out.metric_stated(
                        label, direction, file=path, key=f"higher_is_better.{task}.{metric}"
                    )
                    settled.clear()
                if out.metric_settled(label, direction):
                    settled.add((label, direction))
            stderr = metrics.get(stderr_key)
            datasets(task)
            metric_names(label)
            values(value)
            keys(key)
            errors(None if stderr is None else _standard_error(stderr))
    return rows


def _metric_named(name: str) -> tuple[str, str, str]:
    """A result's metric, its label and the key of its standard error."""
    metric, _, filter_ = name.partition(",")
    label = metric if filter_ in ("", "none") else f"{metric} ({filter_})"
    return metric, label, f"{metric}_stderr,{filter_}" if filter_ else f"{metric}_stderr"


def _standard_error(value: Any) -> float | None:
    """lm-eval writes "N/A" where it computed none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None
