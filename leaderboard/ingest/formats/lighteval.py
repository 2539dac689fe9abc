"""lighteval (the Open LLM Leaderboard v1's harness): ``results_<timestamp>.json``.

A file holds ``config_general`` (``model_name``, ``model_sha``, ``model_dtype``,
``model_size``, ``lighteval_sha``, ...), ``results`` keyed ``<suite>|<task>|<few-shot>``
(``harness|arc:challenge|25``) with each metric and its ``<metric>_stderr``, and
``all``: lighteval's mean over the tasks.

Mapping: algorithm = ``config_general.model_name`` (``model (float16)`` where the files
hold one model at two ``model_dtype`` values); dataset = the task (``arc:challenge``;
``task (N-shot)`` where the files run one task with several few-shot counts); metric =
the metric's name, its ``_stderr`` kept as the result's standard error. ``all`` is the
harness's aggregate: left out, listed, and kept as the published order. lighteval's
metrics are higher-is-better but for the perplexities and bits per byte
(:data:`LOWER_IS_BETTER`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
    missing,
    model_organisation,
)

FORMAT = "lighteval"
LOWER_IS_BETTER = frozenset(
    {"word_perplexity", "byte_perplexity", "bits_per_byte", "perplexity", "ppl"}
)
AGGREGATE = "all"


def read_lighteval(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    documents = []
    for path in sorted(p for p in files if p.endswith(".json")):
        doc = out.json(path, files[path])
        if missing(doc):
            continue
        config = out.get(path, doc, "config_general", path="", kind=dict)
        results = out.get(path, doc, "results", path="", kind=dict)
        if missing(config) or missing(results):
            continue
        model = out.get(path, config, "model_name", path="config_general", kind=str)
        if missing(model) or not model.strip():
            continue
        documents.append((path, config, results, model.strip()))
    shots: dict[str, set[str]] = {}
    for _, _, results, _ in documents:
        for key in results:
            _, task, shot = _parts(str(key))
            shots.setdefault(task, set()).add(shot)
    for path, config, results, model in documents:
        _document(out, path, config, results, model, shots)
    return out.finish()


def _parts(key: str) -> tuple[str, str, str]:
    """``harness|arc:challenge|25`` as (suite, task, few-shot)."""
    pieces = key.split("|")
    if len(pieces) == 3:
        return pieces[0], pieces[1], pieces[2]
    return "", key, ""


def _document(
    out: Collector,
    path: str,
    config: dict,
    results: dict,
    model: str,
    shots: dict[str, set[str]],
) -> None:
    dtype = _text(config.get("model_dtype"))
    sha = _text(config.get("model_sha"))
    out.algorithm(
        AlgorithmInfo(
            name=model,
            family=model_organisation(model),
            revision=sha,
            url=f"https://huggingface.co/{model}" if "/" in model else "",
            precision=dtype,
        ),
        {
            "harness": "lighteval",
            "lighteval_sha": config.get("lighteval_sha"),
            "model_dtype": dtype,
            "model_size": config.get("model_size"),
            "num_few_shot_default": config.get("num_few_shot_default"),
            "results_file": path,
        },
    )
    for key, metrics in results.items():
        where = f"results.{key}"
        if not isinstance(metrics, dict):
            out.problem(path, where, "expected an object of metric: value")
            continue
        if key == AGGREGATE:
            for metric, value in metrics.items():
                if "_stderr" not in metric and _finite(value) is not None:
                    out.published.setdefault(f"{AGGREGATE} ({metric})", {})[model] = float(value)
            out.leave_out(
                path, where, "lighteval's mean over the tasks, not a dataset: kept as published"
            )
            continue
        _, task, shot = _parts(str(key))
        dataset = task if len(shots.get(task, ())) < 2 else f"{task} ({shot}-shot)"
        for metric, value in metrics.items():
            if "_stderr" in metric:
                continue
            number = out.number(path, value, key=f"{where}.{metric}")
            if number is None:
                continue
            out.metric(
                MetricInfo(metric, higher_is_better=metric not in LOWER_IS_BETTER),
                file=path,
                key=f"{where}.{metric}",
            )
            out.add(
                dataset=dataset,
                algorithm=model,
                metric=metric,
                value=number,
                file=path,
                key=f"{where}.{metric}",
                standard_error=_finite(metrics.get(f"{metric}_stderr")),
                variant=dtype.removeprefix("torch."),
            )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None
