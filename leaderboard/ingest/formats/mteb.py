"""The MTEB results repository: ``results/<org>__<model>/<revision>/<Task>.json``.

Each task file (mteb >= 1.11) holds ``task_name``, ``dataset_revision``,
``mteb_version`` and ``scores.<split>[]``, one entry per ``hf_subset`` with its
``main_score`` and, for tasks run several times (classification, clustering),
``scores_per_experiment``: a list of the same scores per run, which become folds. A
``model_meta.json`` beside the task files gives the model's metadata.

Mapping: algorithm = the model (``org/model``): its revision folders (``<sha>/``,
``external/``, ``no_revision_available/``) are one model, each task taken from the
folder run with the newest ``mteb_version`` (on a tie, a commit folder before
``no_revision_available`` before ``external``); the task files passed over are listed
as left out, with the folder kept. Dataset = the task, its subsets averaged
(``subsets="mean"``, MTEB's own rule for a task's score: the mean of its subsets' main
scores, run by run where every subset has the same runs) or each subset a dataset
``Task (subset)`` (``subsets="datasets"``); the ``test`` split where there is one, else
every split as ``Task [split]``. Metric ``main_score``. MTEB's files do not state a
direction; its main scores are all higher-is-better by its own convention (ndcg@10,
accuracy, v-measure, Spearman correlation, MAP), which is what the metric says.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
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


SUBSETS: tuple[str, ...] = ("mean", "datasets")


@dataclass(frozen=True)
class _TaskFile:
    path: str
    model_dir: str
    revision: str
    task: str
    doc: dict
    version: tuple[int, ...]

    @property
    def rank(self) -> tuple[tuple[int, ...], int]:
        """Newest mteb version first, then a commit folder over the named ones."""
        folder = 0 if self.revision == "external" else 2 if _is_commit(self.revision) else 1
        return self.version, folder


def read_mteb(
    files: Mapping[str, bytes],
    *,
    max_results: int | None = None,
    on_error: str = "refuse",
    subsets: str = "mean",
) -> ImportedResults:
    if subsets not in SUBSETS:
        raise ValueError(f"subsets must be one of {', '.join(SUBSETS)}, got {subsets!r}")
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    meta: dict[tuple[str, str], str] = {}
    chosen: dict[tuple[str, str], _TaskFile] = {}
    for path in sorted(files):
        parts = PurePosixPath(path).parts
        if len(parts) < 3 or not path.endswith(".json"):
            continue
        model_dir, revision, name = parts[-3], parts[-2], parts[-1]
        if name == "model_meta.json":
            meta[(model_dir, revision)] = path
            continue
        found = _task_file(out, path, files[path], model_dir, revision)
        if found is None:
            continue
        key = (model_dir, found.task)
        earlier = chosen.get(key)
        if earlier is None or found.rank > earlier.rank:
            chosen[key] = found
            passed = earlier
        else:
            passed = found
        if passed is not None:
            kept = chosen[key]
            out.leave_out(
                passed.path,
                "mteb_version",
                f"task {found.task!r} of this model is taken from {kept.path} "
                f"(mteb {_shown(kept.version)}; this file: mteb {_shown(passed.version)})",
            )
    for found in chosen.values():
        model = found.model_dir.replace("__", "/", 1)
        if model not in out.algorithms:
            revisions = sorted(
                (r for d, r in meta if d == found.model_dir),
                key=lambda r: (r == "external", not _is_commit(r)),
            )
            meta_path = meta[(found.model_dir, revisions[0])] if revisions else None
            revision = revisions[0] if revisions else found.revision
            revision = revision if _is_commit(revision) else ""
            _model_meta(out, files, meta_path, model, model, revision)
        out.provenance.setdefault(model, {}).setdefault("model_revisions", {})[found.task] = (
            found.revision
        )
        _task(out, found, model, subsets=subsets)
    return out.finish()


def _is_commit(revision: str) -> bool:
    return len(revision) == 40 and all(c in "0123456789abcdef" for c in revision.lower())


def _version(text: Any) -> tuple[int, ...]:
    """``"1.14.12"`` as (1, 14, 12); () where the file gives no readable version."""
    if not isinstance(text, str):
        return ()
    parts = []
    for part in text.strip().lstrip("v").split("."):
        # isdecimal, not isdigit: "²" is a digit int() cannot read (a ValueError).
        digits = "".join(itertools.takewhile(str.isdecimal, part))
        if not digits:
            break
        parts.append(int(digits[:9]))
    return tuple(parts)


def _shown(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version)) if version else "unknown"


def _task_file(
    out: Collector, path: str, data: bytes, model_dir: str, revision: str
) -> _TaskFile | None:
    doc = out.json(path, data)
    if missing(doc):
        return None
    if not isinstance(doc, dict):
        out.problem(path, "(document)", "expected an object with task_name and scores")
        return None
    task = doc.get("task_name")
    if not isinstance(task, str) or not task.strip():
        task = PurePosixPath(path).stem
    return _TaskFile(path, model_dir, revision, task, doc, _version(doc.get("mteb_version")))


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
            open_weights=doc.get("open_weights"),
        ),
        {"model": model, "model_revision": revision, "model_meta": path},
    )


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return value.strip() if isinstance(value, str) else ""


def _task(out: Collector, found: _TaskFile, algorithm: str, *, subsets: str) -> None:
    path, doc, task = found.path, found.doc, found.task
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
        found_scores = [
            score
            for i, row in enumerate(rows)
            if (score := _score(out, path, f"scores.{split}[{i}]", row, task=task)) is not None
        ]
        suffix = f" [{split}]" if len(splits) > 1 else ""
        if subsets == "mean" and len(found_scores) > 1:
            _add_mean(
                out, path, split, found_scores, dataset=f"{task}{suffix}", algorithm=algorithm
            )
            continue
        for key, subset, main, folds in found_scores:
            dataset = task if subset == "default" else f"{task} ({subset})"
            out.add(
                dataset=f"{dataset}{suffix}",
                algorithm=algorithm,
                metric=METRIC,
                value=main,
                folds=folds,
                file=path,
                key=f"{key}.main_score",
            )


def _add_mean(
    out: Collector,
    path: str,
    split: str,
    found: list[tuple[str, str, float, list[float] | None]],
    *,
    dataset: str,
    algorithm: str,
) -> None:
    """A task's score as MTEB gives it: the mean of its subsets' main scores (and of
    their runs, run by run, where every subset has the same number of runs)."""
    mains = [main for _, _, main, _ in found]
    runs = [folds for _, _, _, folds in found]
    folds = None
    if all(r is not None for r in runs) and len({len(r) for r in runs if r is not None}) == 1:
        folds = [
            sum(values) / len(values)
            for values in zip(*(r for r in runs if r is not None), strict=True)
        ]
    out.add(
        dataset=dataset,
        algorithm=algorithm,
        metric=METRIC,
        value=sum(mains) / len(mains),
        folds=folds,
        file=path,
        key=f"scores.{split}[*].main_score (mean of {len(mains)} subsets)",
    )


def _score(
    out: Collector, path: str, key: str, row: Any, *, task: str
) -> tuple[str, str, float, list[float] | None] | None:
    """One subset's key, name, main score and runs; None after a problem."""
    if not isinstance(row, dict):
        out.problem(path, key, "expected an object with main_score and hf_subset")
        return None
    if "main_score" not in row:
        out.problem(path, f"{key}.main_score", f"task {task!r} has no main score")
        return None
    main = out.number(path, row["main_score"], key=f"{key}.main_score")
    if main is None:
        return None
    subset = row.get("hf_subset", "default")
    if not isinstance(subset, str):
        out.problem(path, f"{key}.hf_subset", "expected a string")
        return None
    return key, subset, main, _experiments(out, path, key, row, main)


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
