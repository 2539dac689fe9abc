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
    ResultRows,
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
    aggregates: dict[frozenset[str], dict[str, bool]] = {}  # see _Reading.is_aggregate
    for path in sorted(p for p in files if p.endswith(".json")):
        doc = out.json(path, files[path])
        if missing(doc):
            continue
        _document(out, path, doc, aggregates)
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
_UNSAID = object()


def _document(
    out: Collector, path: str, doc: Any, aggregates: dict[frozenset[str], dict[str, bool]]
) -> None:
    info = out.get(path, doc, "model_info", path="", kind=dict)
    results = out.get(path, doc, "evaluation_results", path="", kind=list)
    if missing(info) or missing(results):
        return
    model = _model(out, path, doc, info)
    if model is None:
        return
    variant = _precision(info)
    source = doc.get("source_metadata") if isinstance(doc.get("source_metadata"), dict) else {}
    overall = frozenset({_plain(source.get("source_name"))} - {""})
    reading = _Reading(path, model, overall=overall, aggregate=aggregates.setdefault(overall, {}))
    _results(out, reading, results, shared=_shared_datasets(results))
    out.add_rows(file=path, algorithm=model, rows=reading.rows, variant=variant)


def _results(out: Collector, reading: _Reading, results: list, *, shared: set[str]) -> None:
    """Each of a document's results, as :func:`_result` reads it: the usual shape (a
    finite score, a dataset, no uncertainty or details) read here without a call of
    its own, anything else by :func:`_result`."""
    rows = reading.rows
    datasets, metrics, values = rows.datasets, rows.metrics, rows.values
    errors, keys = rows.standard_errors, rows.keys
    score_keys = _score_keys(len(results))
    aggregate = reading.aggregate
    isfinite = math.isfinite
    # What the last metric statement read said (raw), and whether it is settled: a
    # result whose config says the same needs no statement (see _result).
    said_metric: Any = _UNSAID
    said_lower = said_low = said_high = _UNSAID
    said_in = False
    run = 0  # the first of the latest usual results: their keys and errors are added at once
    for i, result in enumerate(results):
        # Subscripts, not .get(): a result, its score_details and source_data are
        # objects if these succeed (JSON's other values refuse a key with TypeError).
        try:
            details = result["score_details"]
            value = details["score"]
            dataset = result["source_data"]["dataset_name"]
            name = result["evaluation_name"]
            config = result["metric_config"]
        except (KeyError, TypeError):
            value = None
        if (
            type(value) is not float
            or not isfinite(value)
            or type(name) is not str
            or type(dataset) is not str
            or type(config) is not dict
            or "details" in details
            or "uncertainty" in details
            or not dataset.strip()
            or (known if (known := aggregate.get(name)) is not None else reading.is_aggregate(name))
        ):
            if run < i:
                keys.extend(score_keys[run:i])
                errors.extend([None] * (i - run))
            _result(out, reading, i, result, shared=shared)
            run = i + 1
            said_in = False  # it may have stated a metric
            continue
        metric = config.get("metric_name")
        metric = metric.strip() if type(metric) is str else ""
        if dataset in shared:
            dataset, metric = name, metric or "score"
        elif not metric:
            metric = name if name != dataset else "score"
        lower = config.get("lower_is_better")
        low, high = config.get("min_score"), config.get("max_score")
        if not (
            said_in
            and metric == said_metric
            and lower is said_lower
            and (low is said_low or (type(low) is type(said_low) and low == said_low))
            and (high is said_high or (type(high) is type(said_high) and high == said_high))
        ):
            said_metric, said_lower, said_low, said_high = metric, lower, low, high
            said_in = _state_metric(out, reading, i, metric, lower, low, high)
        datasets.append(dataset)
        metrics.append(metric)
        values.append(value)
    if run < len(results):
        keys.extend(score_keys[run : len(results)])
        errors.extend([None] * (len(results) - run))


class _Reading:
    """One document's results as they are read: the rows for
    :meth:`Collector.add_rows`, and what its results share (each evaluation name's
    standing as an aggregate, the metric statements already settled)."""

    def __init__(
        self, path: str, model: str, *, overall: frozenset[str], aggregate: dict[str, bool]
    ) -> None:
        self.path = path
        self.model = model
        self.overall = overall
        self.rows = ResultRows()
        # Evaluation name -> whether it is an aggregate, shared by the documents of one
        # source (it depends on the name and the source's name only).
        self.aggregate = aggregate
        self.settled: set[tuple] = set()  # see lm_eval._rows

    def is_aggregate(self, name: str) -> bool:
        known = self.aggregate.get(name)
        if known is None:
            known = self.aggregate[name] = (
                name.strip().lower() in AGGREGATE_NAMES or _plain(name) in self.overall
            )
        return known


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
    # Most documents name a dataset of its own for each result: then none is shared.
    try:
        if len({result["source_data"]["dataset_name"] for result in results}) == len(results):
            return set()
    except (KeyError, TypeError):  # a result without one, or not an object: see below
        pass
    # Else find the datasets named by several evaluations first (a look-up a result),
    # and weigh only their results.
    first: dict[str, str] = {}
    several: set[str] = set()
    for result in results:
        if type(result) is dict and type(source := result.get("source_data")) is dict:
            dataset, name = source.get("dataset_name"), result.get("evaluation_name")
            if (
                type(dataset) is str
                and type(name) is str
                and first.setdefault(dataset, name) != name
            ):
                several.add(dataset)
    if not several:
        return set()
    names: dict[str, set[str]] = {}
    metrics: dict[str, set[str]] = {}
    for result in results:
        if not isinstance(result, dict):
            continue
        source = result.get("source_data")
        dataset = source.get("dataset_name") if isinstance(source, dict) else None
        name = result.get("evaluation_name")
        if not isinstance(dataset, str) or dataset not in several or not isinstance(name, str):
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


def _result(out: Collector, reading: _Reading, i: int, result: Any, *, shared: set[str]) -> None:
    """One evaluation result: its metric (and direction), its score and folds."""
    path = reading.path
    name = config = details = None
    if type(result) is dict:  # as documents are: no problem to word
        name = result.get("evaluation_name")
        config = result.get("metric_config")
        details = result.get("score_details")
    if type(name) is not str or type(config) is not dict or type(details) is not dict:
        key = f"evaluation_results[{i}]"
        name = out.get(path, result, "evaluation_name", path=key, kind=str)
        config = out.get(path, result, "metric_config", path=key, kind=dict)
        details = out.get(path, result, "score_details", path=key, kind=dict)
        if missing(name) or missing(config) or missing(details):
            return
    score_key = f"evaluation_results[{i}].score_details.score"
    if "score" not in details:
        out.problem(path, score_key, "missing key")
        return
    value = details["score"]
    if type(value) is not float or not math.isfinite(value):
        value = out.number(path, value, key=score_key)
        if value is None:
            return
    if reading.is_aggregate(name):
        tab = _inner(details).get("tab")
        tab = tab if isinstance(tab, str) else ""
        label = f"{name} ({tab})" if tab else name
        out.published.setdefault(label, {})[reading.model] = value
        out.leave_out(
            path,
            score_key,
            f"{label!r} is the source's aggregate of the other results, not a dataset: "
            "kept as the source's published order",
        )
        return
    dataset, metric = _names(result, name, config, details, shared)
    _state_metric(
        out,
        reading,
        i,
        metric,
        config.get("lower_is_better"),
        config.get("min_score"),
        config.get("max_score"),
    )
    rows = reading.rows
    folds = _folds(details)
    if folds is not None:
        rows.folds[len(rows)] = tuple(folds)
    rows.datasets.append(str(dataset))
    rows.metrics.append(metric)
    rows.values.append(value)
    rows.keys.append(score_key)
    rows.standard_errors.append(_standard_error(details))


def _state_metric(
    out: Collector, reading: _Reading, i: int, metric: str, lower: Any, low: Any, high: Any
) -> bool:
    """What result ``i``'s ``metric_config`` says of its metric (``lower_is_better``,
    ``min_score``, ``max_score``), stated unless already settled; whether it is settled
    now (a statement at odds with another file's is not: it is stated again)."""
    said = (
        metric,
        None if not isinstance(lower, bool) else not lower,
        None if low is None else _float(low),
        None if high is None else _float(high),
    )
    settled = reading.settled
    if said in settled:
        return True
    if not out.metric_settled(*said):
        out.metric_stated(
            *said, file=reading.path, key=f"evaluation_results[{i}].metric_config.lower_is_better"
        )
        settled.clear()
    if out.metric_settled(*said):
        settled.add(said)
        return True
    return False


# "evaluation_results[i].score_details.score" by i, made once for the documents of a
# process (their keys repeat); a document of more results makes its own beyond these.
_SCORE_KEYS: list[str] = []
_MOST_SCORE_KEYS = 20_000


def _score_keys(n: int) -> list[str]:
    """The keys of the scores of a document's first ``n`` results."""
    keys = _SCORE_KEYS
    if len(keys) < n:
        made = min(n, _MOST_SCORE_KEYS)
        keys.extend(
            [f"evaluation_results[{i}].score_details.score" for i in range(len(keys), made)]
        )
        if made < n:
            keys = keys + [f"evaluation_results[{i}].score_details.score" for i in range(made, n)]
    return keys


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
