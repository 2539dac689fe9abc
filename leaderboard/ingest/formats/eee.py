"""Every Eval Ever (``eval.schema.json``): one JSON document per model's evaluation.

A document holds ``schema_version``, ``evaluation_id``, ``retrieved_timestamp``,
``source_metadata`` (who ran or reported it), ``model_info`` (``name``, ``id``,
``developer``, ...) and ``evaluation_results[]``, each with ``evaluation_name``,
``source_data`` (``dataset_name``, ...), ``metric_config`` (``evaluation_description``,
``lower_is_better``, ``score_type``, ``min_score``, ``max_score``) and
``score_details.score``.

Mapping: algorithm = ``model_info.id`` (else ``model_info.name``), ``model (precision)``
where the files hold one model at two precisions (``model_info.additional_details.
precision``); direction and range from ``metric_config``; dataset and metric:

* ``metric_config.metric_name`` names the metric where given (else ``score``);
* results of one document that share a ``source_data.dataset_name`` under different
  evaluation names (Global MMLU Lite's languages, RewardBench's sections) are
  datasets of their own, named by ``evaluation_name``, unless their metric names tell
  them apart (then they are metrics of that one dataset);
* results without ``source_data`` named ``<scenario> - <metric>`` (HELM's tables) are
  the scenario's, on the metric of their table (``score_details.details.tab``:
  "Accuracy", "Efficiency"), which is how HELM ranks them;
* else the dataset is ``source_data.dataset_name`` (or ``evaluation_name``).

The source's own aggregates ("Mean win rate", "Mean score", an overall score named as
the source is) are never a dataset: they are left out, listed, and kept as the source's
published order (:attr:`ImportedResults.published`). A standard error
(``score_details.uncertainty.standard_error.value``) or a confidence interval
(``uncertainty.confidence_interval``, or a half-width in
``score_details.details.confidence_interval``, read as 95 %) is kept as the result's
standard error.

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
    metadata_text,
    missing,
    parameter_count,
)
from leaderboard.ingest.results_csv import plain_number

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


# Names the sources give their own aggregates over the other results (lower-cased).
# Global MMLU Lite's "Culturally Sensitive" and "Culturally Agnostic" are two splits of
# the questions scored over every language: aggregates of the language results.
AGGREGATE_NAMES = frozenset(
    {
        "mean win rate",
        "mean score",
        "average",
        "overall",
        "mean",
        "culturally sensitive",
        "culturally agnostic",
    }
)
_Z_95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


def _document(out: Collector, path: str, doc: Any) -> None:
    info = out.get(path, doc, "model_info", path="", kind=dict)
    results = out.get(path, doc, "evaluation_results", path="", kind=list)
    if missing(info) or missing(results):
        return
    model = _model(out, path, doc, info)
    if model is None:
        return
    variant = _precision(info)
    source = doc.get("source_metadata") if isinstance(doc.get("source_metadata"), dict) else {}
    overall = {_plain(source.get("source_name"))}
    shared = _shared_datasets(results)
    for i, result in enumerate(results):
        _result(
            out,
            path,
            f"evaluation_results[{i}]",
            result,
            model,
            variant=variant,
            overall=overall - {""},
            shared=shared,
        )


def _plain(name: Any) -> str:
    return "".join(c for c in name.lower() if c.isalnum()) if isinstance(name, str) else ""


def _precision(info: dict) -> str:
    details = info.get("additional_details")
    value = (details or {}).get("precision") if isinstance(details, dict) else None
    value = value or info.get("precision")
    return value.strip().removeprefix("torch.") if isinstance(value, str) else ""


def _shared_datasets(results: list) -> set[str]:
    """Dataset names under which one document holds several evaluations that no metric
    name tells apart: those evaluations are datasets of their own."""
    names: dict[str, set[str]] = {}
    metrics: dict[str, set[str]] = {}
    for result in results:
        if not isinstance(result, dict):
            continue
        source = result.get("source_data")
        dataset = source.get("dataset_name") if isinstance(source, dict) else None
        name = result.get("evaluation_name")
        if not isinstance(dataset, str) or not isinstance(name, str):
            continue
        if name.strip().lower() in AGGREGATE_NAMES:
            continue
        config = result.get("metric_config")
        metric = config.get("metric_name") if isinstance(config, dict) else None
        names.setdefault(dataset, set()).add(name)
        metrics.setdefault(dataset, set()).add(metric if isinstance(metric, str) else "")
    return {d for d, seen in names.items() if len(seen) > 1 and len(metrics[d]) == 1}


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
            parameters=_parameters(details),
            licence=metadata_text(
                details.get("licence")
                or details.get("license")
                or info.get("licence")
                or info.get("license")
            ),
            url=str(details.get("url") or ""),
            revision=str(details.get("revision") or ""),
            precision=_precision(info),
            open_weights=details.get("open_weights", info.get("open_weights")),
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


def _names(
    result: dict, name: str, config: dict, details: dict, shared: set[str]
) -> tuple[str, str]:
    """The dataset and metric of one evaluation result (see the module's mapping)."""
    metric = config.get("metric_name")
    metric = metric.strip() if isinstance(metric, str) and metric.strip() else ""
    source = result.get("source_data")
    dataset = source.get("dataset_name") if isinstance(source, dict) else None
    if isinstance(dataset, str) and dataset.strip():
        if dataset in shared:
            return name, metric or "score"
        return dataset, metric or (name if name != dataset else "score")
    scenario, dash, shown = name.partition(" - ")
    if dash and scenario.strip() and shown.strip():
        tab = _inner(details).get("tab")
        table = tab.strip() if isinstance(tab, str) and tab.strip() else shown.strip()
        return scenario.strip(), metric or table
    return name, metric or "score"


def _result(
    out: Collector,
    path: str,
    key: str,
    result: Any,
    model: str,
    *,
    variant: str,
    overall: set[str],
    shared: set[str],
) -> None:
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
    if name.strip().lower() in AGGREGATE_NAMES or _plain(name) in overall:
        tab = _inner(details).get("tab")
        tab = tab if isinstance(tab, str) else ""
        label = f"{name} ({tab})" if tab else name
        out.published.setdefault(label, {})[model] = value
        out.leave_out(
            path,
            f"{key}.score_details.score",
            f"{label!r} is the source's aggregate of the other results, not a dataset: "
            "kept as the source's published order",
        )
        return
    dataset, metric = _names(result, name, config, details, shared)
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
        standard_error=_standard_error(details),
        variant=variant,
    )


def _inner(details: dict) -> dict:
    inner = details.get("details")
    return inner if isinstance(inner, dict) else {}


def _standard_error(details: dict) -> float | None:
    """The score's standard error as the document gives it, directly or as an interval."""
    uncertainty = details.get("uncertainty")
    if isinstance(uncertainty, dict):
        error = uncertainty.get("standard_error")
        if isinstance(error, dict) and (value := _float(error.get("value"))) is not None:
            return value if value >= 0 else None
        interval = uncertainty.get("confidence_interval")
        if isinstance(interval, dict):
            low, high = _float(interval.get("lower")), _float(interval.get("upper"))
            level = _float(interval.get("confidence_level")) or 0.95
            if low is not None and high is not None and high >= low and 0 < level < 1:
                from statistics import NormalDist

                return (high - low) / (2 * NormalDist().inv_cdf(0.5 + level / 2))
    inner = details.get("details")
    if isinstance(inner, dict):
        half = inner.get("confidence_interval")
        if isinstance(half, str):
            half = plain_number(half.strip())
        half = _float(half)
        if half is not None and half >= 0:
            return half / _Z_95
    return None


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


def _parameters(details: dict) -> int | None:
    """The model's parameter count, under the names files give it (a count, "7B", or
    billions in ``params_billions``)."""
    for key in ("parameters", "num_parameters", "parameter_count", "params"):
        if (count := parameter_count(details.get(key))) is not None:
            return count
    return parameter_count(details.get("params_billions"), scale=10**9)


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
                ("precision", info.precision),
            )
            if v
        }
        if info.open_weights is not None:
            details["open_weights"] = info.open_weights
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
