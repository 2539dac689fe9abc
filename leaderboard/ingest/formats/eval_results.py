"""Hugging Face Hub evaluation results: ``.eval_results/*.yaml`` in a model repository.

A file is a YAML list of results (the Hub's spec, ``huggingface.co/docs/hub/eval-results``):
``dataset.id`` (the benchmark's Hub dataset; required), ``dataset.task_id`` and
``dataset.revision``, ``value`` (required), and optionally ``date``, ``source`` (``url``,
``name``, ``user``, ``org``), ``notes`` (the evaluation's setup: "With tools") and
``verifyToken``. The file names no model (it lives in the model's repository) and no metric
or direction (the benchmark's own ``eval.yaml`` defines its score).

Mapping: algorithm = the repository the file sits in (the one or two folders above
``.eval_results/``, as a Hub id ``owner/name``: ``acme/m-7b/.eval_results/gpqa.yaml`` ->
``acme/m-7b``), else the name given as ``algorithm`` (the command's ``--algorithm NAME``, for
a lone file); a result with ``notes`` is the model in that setup (``acme/m-7b (With
tools)``), never mixed with the model's default runs. Dataset = ``dataset.id``, with
``/<task_id>`` unless the task is absent or ``default``. Metric = ``score``, with no
direction: a new benchmark needs ``--direction``. Of two results of one model on one task,
the newer (``date``) is kept. ``value`` may be a number or a number written as text
("63.3", "63.3%").
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
)
from leaderboard.ingest.formats.yaml_text import UnreadableYaml, load_yaml

FORMAT = "eval-results"
FOLDER = ".eval_results"
METRIC = "score"
_MAX_NUMBER_TEXT = 40  # characters of a value written as text ("63.3%")


def read_eval_results(
    files: Mapping[str, bytes],
    *,
    max_results: int | None = None,
    on_error: str = "refuse",
    algorithm: str = "",
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    out.metrics[METRIC] = MetricInfo(METRIC)
    results: list[tuple[str, str, int, dict]] = []  # (model, path, index, result)
    for path in sorted(p for p in files if p.endswith((".yaml", ".yml"))):
        model = _model(path) or algorithm.strip()
        if not model:
            out.problem(
                path,
                "",
                f"names no model: it is not inside <model>/{FOLDER}/; name the model "
                "with --algorithm",
            )
            continue
        results += [(model, path, i, r) for i, r in _results(out, path, files[path])]
    # Newest first: of two results of one model on one task the newer is kept, by the
    # format's own rule (listed, whatever on_error says).
    results.sort(key=lambda item: _date(item[3]), reverse=True)
    kept: dict[tuple[str, str], str] = {}
    for model, path, index, result in results:
        _result(out, model, path, index, result, kept)
    return out.finish()


def _model(path: str) -> str:
    """The Hub id of the repository ``path`` sits in ("" outside ``.eval_results/``)."""
    parts = PurePosixPath(path).parts
    if FOLDER not in parts:
        return ""
    above = parts[: parts.index(FOLDER)]
    return "/".join(above[-2:])


def _results(out: Collector, path: str, data: bytes) -> list[tuple[int, dict]]:
    try:
        document = load_yaml(data)
    except UnreadableYaml as exc:
        out.problem(path, "", str(exc))
        return []
    if isinstance(document, dict):  # one result written without the list around it
        document = [document]
    if not isinstance(document, list):
        out.problem(path, "", "expected a list of results (- dataset: ... value: ...)")
        return []
    found = []
    for index, result in enumerate(document):
        if isinstance(result, dict):
            found.append((index, result))
        else:
            out.problem(path, f"[{index}]", "expected a result (dataset: ..., value: ...)")
    return found


def _result(
    out: Collector,
    model: str,
    path: str,
    index: int,
    result: dict,
    kept: dict[tuple[str, str], str],
) -> None:
    where = f"[{index}]"
    dataset = _dataset(out, path, where, result.get("dataset"))
    value = _value(out, path, f"{where}.value", result.get("value", _ABSENT))
    if dataset is None or value is None:
        return
    notes = _text(result.get("notes"))
    name = f"{model} ({notes})" if notes else model
    newer = kept.setdefault((name, dataset), f"{path}: {where}")
    if newer != f"{path}: {where}":
        out.leave_out(
            path,
            f"{where}.value",
            f"an older result of {name!r} on {dataset!r}: the newer, at {newer}, is kept",
        )
        return
    stated = result.get("source")
    source: dict = stated if isinstance(stated, dict) else {}
    out.algorithm(
        AlgorithmInfo(name=name, url=f"https://huggingface.co/{model}" if "/" in model else ""),
        {
            "source_url": _text(source.get("url")),
            "source_name": _text(source.get("name")),
            "source_user": _text(source.get("user")),
        },
    )
    if _text(result.get("verifyToken")):  # carried, not checked: Podium holds no key
        out.provenance.setdefault(name, {}).setdefault("verify_token_on", []).append(dataset)
    out.add(
        dataset=dataset,
        algorithm=name,
        metric=METRIC,
        value=value,
        file=path,
        key=f"{where}.value",
    )


def _dataset(out: Collector, path: str, where: str, dataset: Any) -> str | None:
    if not isinstance(dataset, dict):
        out.problem(path, f"{where}.dataset", "missing key (the benchmark's id: dataset.id)")
        return None
    identifier = _text(dataset.get("id"))
    if not identifier:
        out.problem(path, f"{where}.dataset.id", "missing key (the benchmark's Hub dataset)")
        return None
    task = _text(dataset.get("task_id"))
    return identifier if task in ("", "default") else f"{identifier}/{task}"


class _Absent:
    pass


_ABSENT = _Absent()


def _value(out: Collector, path: str, key: str, value: Any) -> float | None:
    if value is _ABSENT:
        out.problem(path, key, "missing key")
        return None
    if isinstance(value, str) and len(value) <= _MAX_NUMBER_TEXT:
        try:
            value = float(value.strip().removesuffix("%").strip())
        except ValueError:
            pass
    return out.number(path, value, key=key)


def _date(result: dict) -> str:
    """The result's date as sortable text ("" when it has none: oldest)."""
    date = result.get("date")
    if isinstance(date, (dt.date, dt.datetime)):
        return date.isoformat()
    return _text(date)


def _text(value: Any) -> str:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    return value.strip() if isinstance(value, str) else ""
