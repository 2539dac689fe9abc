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
    MetricInfo,
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
    for task, metrics in results.items():
        if isinstance(groups.get(task), list) and groups[task]:
            continue
        stated = directions.get(task)
        _task(out, path, algorithm, task, metrics, stated if isinstance(stated, dict) else {})


def _task(
    out: Collector, path: str, algorithm: str, task: str, metrics: Any, directions: dict
) -> None:
    """One task's metrics ("<metric>,<filter>": value), their stderr left out."""
    key = f"results.{task}"
    if not isinstance(metrics, dict):
        out.problem(path, key, "expected an object of metrics")
        return
    for name, value in metrics.items():
        if name == "alias" or "_stderr" in name:
            continue
        metric, _, filter_ = name.partition(",")
        label = metric if filter_ in ("", "none") else f"{metric} ({filter_})"
        number = out.number(path, value, key=f'{key}."{name}"')
        if number is None:
            continue
        direction = directions.get(metric)
        out.metric(
            MetricInfo(label, higher_is_better=direction if isinstance(direction, bool) else None),
            file=path,
            key=f"higher_is_better.{task}.{metric}",
        )
        stderr = metrics.get(f"{metric}_stderr,{filter_}" if filter_ else f"{metric}_stderr")
        out.add(
            dataset=str(task),
            algorithm=algorithm,
            metric=label,
            value=number,
            origin=f'{path}: {key}."{name}"',
            standard_error=_standard_error(stderr),
        )


def _standard_error(value: Any) -> float | None:
    """lm-eval writes "N/A" where it computed none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None
