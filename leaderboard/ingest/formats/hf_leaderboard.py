"""The Hugging Face leaderboard template: one JSON file per model,
``{"config": {"model_name", "model_sha", "model_dtype"}, "results": {task: {metric: value}}}``.

Mapping: algorithm = ``config.model_name`` (``model (bfloat16)`` where the files hold
one model at two ``model_dtype`` values); dataset = the task; metric = the metric key. The
template states no direction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    ResultRows,
    missing,
    model_organisation,
    parameter_count,
)

FORMAT = "hf-leaderboard"


def read_hf_leaderboard(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    for path in sorted(p for p in files if p.endswith(".json")):
        doc = out.json(path, files[path])
        if missing(doc):
            continue
        config = out.get(path, doc, "config", path="", kind=dict)
        results = out.get(path, doc, "results", path="", kind=dict)
        if missing(config) or missing(results):
            continue
        model = out.get(path, config, "model_name", path="config", kind=str)
        if missing(model):
            continue
        sha = config.get("model_sha") if isinstance(config.get("model_sha"), str) else ""
        dtype = config.get("model_dtype") if isinstance(config.get("model_dtype"), str) else ""
        out.algorithm(
            AlgorithmInfo(
                name=model,
                family=model_organisation(model),
                parameters=parameter_count(config.get("model_num_parameters")),
                revision=sha,
                url=f"https://huggingface.co/{model}" if "/" in model else "",
                precision=dtype,
            ),
            {"model_sha": sha, "model_dtype": config.get("model_dtype"), "results_file": path},
        )
        rows = _rows(out, path, results)
        out.add_rows(
            file=path, algorithm=model, rows=rows, variant=dtype.strip().removeprefix("torch.")
        )
    return out.finish()


def _rows(out: Collector, path: str, results: dict) -> ResultRows:
    """Each task's metrics (metric: value) as rows for :meth:`Collector.add_rows`; a
    null value is a result not run."""
    rows = ResultRows()
    datasets, metric_names, values, keys, errors = rows.appenders()
    for task, metrics in results.items():
        if not isinstance(metrics, dict):
            out.problem(path, f"results.{task}", "expected an object of metric: value")
            continue
        for metric, value in metrics.items():
            if value is None:  # the template's way of saying "not run"
                continue
            key = f"results.{task}.{metric}"
            if type(value) is not float or not math.isfinite(value):
                value = out.number(path, value, key=key)
                if value is None:
                    continue
            datasets(task)
            metric_names(metric)
            values(value)
            keys(key)
            errors(None)
    return rows
