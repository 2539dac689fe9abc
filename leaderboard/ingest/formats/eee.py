"""Every Eval Ever (``eval.schema.json``): one JSON document per model's evaluation.

A document holds ``schema_version``, ``evaluation_id``, ``retrieved_timestamp``,
``source_metadata`` (who ran or reported it), ``model_info`` (``name``, ``id``,
``developer``, ...) and ``evaluation_results[]``, each with ``evaluation_name``,
``source_data`` (``dataset_name``, ...), ``metric_config`` (``evaluation_description``,
``lower_is_better``, ``score_type``, ``min_score``, ``max_score``) and
``score_details.score``.

Mapping: algorithm = ``model_info.id`` (else ``model_info.name``); dataset =
``source_data.dataset_name`` (else ``evaluation_name``); metric =
``metric_config.metric_name`` where given, else ``evaluation_name`` when it differs from
the dataset, else ``score``; direction and range from ``metric_config``.

:func:`eee_documents` writes the other way: a benchmark's results as one document per
algorithm (the fold means; the folds under ``score_details.details``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
    missing,
)

FORMAT = "eee"
SCHEMA_VERSION = "0.1.0"


def read_eee(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    for path in sorted(p for p in files if p.endswith(".json")):
        doc = out.json(path, files[path])
        if missing(doc):
            continue
        _document(out, path, doc)
    return out.finish()


def _document(out: Collector, path: str, doc: Any) -> None:
    info = out.get(path, doc, "model_info", path="", kind=dict)
    results = out.get(path, doc, "evaluation_results", path="", kind=list)
    if missing(info) or missing(results):
        return
    model = _model(out, path, doc, info)
    if model is None:
        return
    for i, result in enumerate(results):
        _result(out, path, f"evaluation_results[{i}]", result, model)


def _model(out: Collector, path: str, doc: Any, info: Any) -> str | None:
    """The document's model, recorded with its metadata; None after a problem."""
    model = info.get("id") or info.get("name")
    if not isinstance(model, str) or not model.strip():
        out.problem(path, "model_info.id", "missing key (nor model_info.name)")
        return None
    model = model.strip()
    details = (
        info.get("additional_details") if isinstance(info.get("additional_details"), dict) else {}
    )
    out.algorithm(
        AlgorithmInfo(
            name=model,
            family=str(info.get("developer") or ""),
            parameters=_int(details.get("parameters")),
            licence=str(details.get("licence") or details.get("license") or ""),
            url=str(details.get("url") or ""),
            revision=str(details.get("revision") or ""),
        ),
        {
            "schema_version": doc.get("schema_version"),
            "evaluation_id": doc.get("evaluation_id"),
            "retrieved_timestamp": doc.get("retrieved_timestamp"),
            "source_metadata": doc.get("source_metadata"),
            "inference_platform": info.get("inference_platform"),
        },
    )
    return model


def _result(out: Collector, path: str, key: str, result: Any, model: str) -> None:
    """One evaluation result: its metric (and direction), its score and folds."""
    name = out.get(path, result, "evaluation_name", path=key, kind=str)
    config = out.get(path, result, "metric_config", path=key, kind=dict)
    details = out.get(path, result, "score_details", path=key, kind=dict)
    if missing(name) or missing(config) or missing(details):
        return
    if "score" not in details:
        out.problem(path, f"{key}.score_details.score", "missing key")
        return
    value = out.number(path, details["score"], key=f"{key}.score_details.score")
    if value is None:
        return
    source = result.get("source_data") if isinstance(result.get("source_data"), dict) else {}
    dataset = source.get("dataset_name") if isinstance(source.get("dataset_name"), str) else name
    metric = config.get("metric_name")
    if not isinstance(metric, str) or not metric.strip():
        metric = name if name != dataset else "score"
    lower = config.get("lower_is_better")
    out.metric(
        MetricInfo(
            metric,
            higher_is_better=None if not isinstance(lower, bool) else not lower,
            min_value=_float(config.get("min_score")),
            max_value=_float(config.get("max_score")),
        ),
        file=path,
        key=f"{key}.metric_config.lower_is_better",
    )
    out.add(
        dataset=str(dataset),
        algorithm=model,
        metric=metric,
        value=value,
        folds=_folds(details),
        origin=f"{path}: {key}.score_details.score",
    )


def _folds(details: dict) -> list[float] | None:
    """The per-fold values of score_details.details.folds, when every one is a number."""
    folds = (
        details.get("details", {}).get("folds")
        if isinstance(details.get("details"), dict)
        else None
    )
    if isinstance(folds, list) and folds and all(_float(v) is not None for v in folds):
        return [float(v) for v in folds]
    return None


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def eee_documents(
    *,
    source: str,
    retrieved: str,
    metrics: Sequence[MetricInfo],
    algorithms: Sequence[AlgorithmInfo],
    results: Mapping[str, Sequence[tuple[str, str, float, Sequence[float] | None]]],
) -> dict[str, dict]:
    """One Every Eval Ever document per algorithm.

    ``results[algorithm]`` lists ``(dataset, metric, value, folds)``; ``source`` names
    the leaderboard (its URL or slug), ``retrieved`` is an ISO 8601 timestamp. Returns
    ``{file name: document}``.
    """
    by_name = {m.name: m for m in metrics}
    documents: dict[str, dict] = {}
    for index, info in enumerate(algorithms):
        evaluations = []
        for dataset, metric, value, folds in results.get(info.name, ()):
            described = by_name.get(metric, MetricInfo(metric))
            config: dict[str, Any] = {
                "evaluation_description": f"{metric} on {dataset}",
                "metric_name": metric,
                "score_type": "continuous",
            }
            if described.higher_is_better is not None:
                config["lower_is_better"] = not described.higher_is_better
            if described.min_value is not None:
                config["min_score"] = described.min_value
            if described.max_value is not None:
                config["max_score"] = described.max_value
            score: dict[str, Any] = {"score": value}
            if folds:
                score["details"] = {"folds": list(folds)}
            evaluations.append(
                {
                    "evaluation_name": dataset,
                    "source_data": {"dataset_name": dataset, "source_type": "other"},
                    "metric_config": config,
                    "score_details": score,
                }
            )
        details = {
            k: v
            for k, v in (
                ("parameters", info.parameters),
                ("licence", info.licence),
                ("url", info.url),
                ("revision", info.revision),
            )
            if v
        }
        model_info: dict[str, Any] = {"name": info.name, "id": info.name}
        if info.family:
            model_info["developer"] = info.family
        if details:
            model_info["additional_details"] = details
        documents[f"{index:04d}_{_file_name(info.name)}.json"] = {
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": f"{source}/{info.name}/{retrieved}",
            "retrieved_timestamp": retrieved,
            "source_metadata": {
                "source_name": source,
                "source_type": "evaluation_platform",
                "evaluator_relationship": "third_party",
            },
            "model_info": model_info,
            "evaluation_results": evaluations,
        }
    return documents


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
