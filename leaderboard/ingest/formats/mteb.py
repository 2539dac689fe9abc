"""The MTEB results repository: ``results/<org>__<model>/<revision>/<Task>.json``.

Each task file (mteb >= 1.11) holds ``task_name``, ``dataset_revision``,
``mteb_version`` and ``scores.<split>[]``, one entry per ``hf_subset`` with its
``main_score`` and, for tasks run several times (classification, clustering),
``scores_per_experiment``: a list of the same scores per run, which become folds. A
``model_meta.json`` beside the task files gives the model's metadata.

Mapping: algorithm = the model (``org/model``, with the revision when a model has
several); dataset = the task (``Task (subset)`` for a subset other than ``default``;
the ``test`` split where there is one, else every split as ``Task [split]``); metric
``main_score``. MTEB's files do not state a direction; its main scores are all
higher-is-better by its own convention (ndcg@10, accuracy, v-measure, Spearman
correlation, MAP), which is what the metric says.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
    missing,
)

FORMAT = "mteb"
METRIC = "main_score"
_NOT_SCORES = frozenset({"main_score", "hf_subset", "languages", "scores_per_experiment"})


def read_mteb(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    tasks: list[tuple[str, str, str, str]] = []  # (file, model dir, revision, task file)
    meta: dict[tuple[str, str], str] = {}
    for path in sorted(files):
        parts = PurePosixPath(path).parts
        if len(parts) < 3 or not path.endswith(".json"):
            continue
        model_dir, revision, name = parts[-3], parts[-2], parts[-1]
        if name == "model_meta.json":
            meta[(model_dir, revision)] = path
        else:
            tasks.append((path, model_dir, revision, name))
    revisions: dict[str, set[str]] = {}
    for _, model_dir, revision, _ in tasks:
        revisions.setdefault(model_dir, set()).add(revision)
    for path, model_dir, revision, _ in tasks:
        model = model_dir.replace("__", "/", 1)
        algorithm = model if len(revisions[model_dir]) == 1 else f"{model} ({revision[:12]})"
        if algorithm not in out.algorithms:
            _model_meta(out, files, meta.get((model_dir, revision)), algorithm, model, revision)
        _task(out, path, files[path], algorithm)
    return out.finish()


def _model_meta(
    out: Collector,
    files: Mapping[str, bytes],
    path: str | None,
    algorithm: str,
    model: str,
    revision: str,
) -> None:
    doc: Any = {} if path is None else out.json(path, files[path])
    if missing(doc) or not isinstance(doc, dict):
        doc = {}
    parameters = doc.get("n_parameters")
    out.algorithm(
        AlgorithmInfo(
            name=algorithm,
            family=_text(doc.get("framework")),
            parameters=parameters if isinstance(parameters, int) and parameters > 0 else None,
            licence=_text(doc.get("license")),
            url=_text(doc.get("reference")) or f"https://huggingface.co/{model}",
            revision=_text(doc.get("revision")) or revision,
        ),
        {"model": model, "model_revision": revision, "model_meta": path},
    )


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return value.strip() if isinstance(value, str) else ""


def _task(out: Collector, path: str, data: bytes, algorithm: str) -> None:
    doc = out.json(path, data)
    if missing(doc):
        return
    task = doc.get("task_name") if isinstance(doc, dict) else None
    if not isinstance(task, str) or not task.strip():
        task = PurePosixPath(path).stem
    scores = out.get(path, doc, "scores", path="", kind=dict)
    if missing(scores):
        return
    provenance = out.provenance.setdefault(algorithm, {})
    for key in ("mteb_version", "dataset_revision"):
        if isinstance(doc.get(key), str):
            provenance.setdefault(f"{key}s", {})[task] = doc[key]
    splits = ["test"] if "test" in scores else sorted(scores)
    if not splits:
        out.problem(path, "scores", "no split holds scores")
    out.metric(MetricInfo(METRIC, higher_is_better=True), file=path, key="scores")
    for split in splits:
        rows = out.get(path, scores, split, path="scores", kind=list)
        if missing(rows):
            continue
        for i, row in enumerate(rows):
            key = f"scores.{split}[{i}]"
            _score(
                out,
                path,
                key,
                row,
                task=task,
                split=split,
                many=len(splits) > 1,
                algorithm=algorithm,
            )


def _score(
    out: Collector,
    path: str,
    key: str,
    row: Any,
    *,
    task: str,
    split: str,
    many: bool,
    algorithm: str,
) -> None:
    if not isinstance(row, dict):
        out.problem(path, key, "expected an object with main_score and hf_subset")
        return
    if "main_score" not in row:
        out.problem(path, f"{key}.main_score", f"task {task!r} has no main score")
        return
    main = out.number(path, row["main_score"], key=f"{key}.main_score")
    if main is None:
        return
    subset = row.get("hf_subset", "default")
    if not isinstance(subset, str):
        out.problem(path, f"{key}.hf_subset", "expected a string")
        return
    dataset = task if subset == "default" else f"{task} ({subset})"
    if many:
        dataset = f"{dataset} [{split}]"
    folds = _experiments(out, path, key, row, main)
    out.add(
        dataset=dataset,
        algorithm=algorithm,
        metric=METRIC,
        value=main,
        folds=folds,
        origin=f"{path}: {key}.main_score",
    )


def _experiments(out: Collector, path: str, key: str, row: dict, main: float) -> list[float] | None:
    """The main score of each run, found by the score key whose value is the main score."""
    runs = row.get("scores_per_experiment")
    if runs is None:
        return None
    if not isinstance(runs, list) or not runs:
        out.problem(path, f"{key}.scores_per_experiment", "expected a non-empty list")
        return None
    if all(isinstance(r, dict) and "main_score" in r for r in runs):
        name = "main_score"
    else:
        candidates = [
            k
            for k, v in row.items()
            if k not in _NOT_SCORES
            and isinstance(v, (int, float))
            and not isinstance(v, bool)
            and abs(float(v) - main) <= 1e-12 * max(1.0, abs(main))
        ]
        if not candidates:
            return None  # the runs do not say which of their scores is the main one
        name = candidates[0]
    values = []
    for j, run in enumerate(runs):
        item = f"{key}.scores_per_experiment[{j}].{name}"
        if not isinstance(run, dict) or name not in run:
            out.problem(path, item, "missing key")
            return None
        value = out.number(path, run[name], key=item)
        if value is None:
            return None
        values.append(value)
    return values
