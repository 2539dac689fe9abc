"""HELM: ``benchmark_output/runs/<suite>/<run>/stats.json`` beside ``run_spec.json``.

``run_spec.json`` names the run (``name``, e.g. ``mmlu:subject=anatomy,method=
multiple_choice_joint,model=openai_gpt2``) and the model (``adapter_spec.model``);
``stats.json`` is a list of statistics, each ``{"name": {"name", "split",
"perturbation"?}, "count", "mean", ...}``.

Mapping: algorithm = ``adapter_spec.model``; dataset = the run's name without its
``model=`` and ``model_deployment=`` arguments; metric = the statistic's name, from the
``test`` split (``valid`` where a run has no test split) without perturbations; value =
its ``mean``. HELM states directions in its ``schema.yaml``, not in these files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    missing,
)

FORMAT = "helm"
_MODEL_ARGUMENTS = ("model=", "model_deployment=")


def read_helm(files: Mapping[str, bytes], *, max_results: int | None = None) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results)
    for path in sorted(p for p in files if PurePosixPath(p).name == "stats.json"):
        folder = PurePosixPath(path).parent
        spec_path = str(folder / "run_spec.json") if str(folder) != "." else "run_spec.json"
        if spec_path not in files:
            out.problem(spec_path, "", f"missing: {path} needs the run_spec.json beside it")
            continue
        _run(out, spec_path, files[spec_path], path, files[path])
    return out.finish()


def _dataset(name: str) -> str:
    scenario, _, arguments = name.partition(":")
    kept = [a for a in arguments.split(",") if a and not a.startswith(_MODEL_ARGUMENTS)]
    return f"{scenario}:{','.join(kept)}" if kept else scenario


def _run(out: Collector, spec_path: str, spec_data: bytes, path: str, data: bytes) -> None:
    spec = out.json(spec_path, spec_data)
    stats = out.json(path, data)
    if missing(spec) or missing(stats):
        return
    name = out.get(spec_path, spec, "name", path="", kind=str)
    adapter = out.get(spec_path, spec, "adapter_spec", path="", kind=dict)
    if missing(name) or missing(adapter):
        return
    model = out.get(spec_path, adapter, "model", path="adapter_spec", kind=str)
    if missing(model):
        return
    if not isinstance(stats, list):
        out.problem(path, "(document)", "expected a list of statistics")
        return
    out.algorithm(AlgorithmInfo(name=model), {"harness": "HELM"})
    runs = out.provenance.setdefault(model, {}).setdefault("runs", {})
    runs[name] = {"model_deployment": adapter.get("model_deployment"), "stats": path}
    dataset = _dataset(name)
    by_split: dict[str, list[tuple[int, str, float]]] = {}
    for i, stat in enumerate(stats):
        key = f"[{i}]"
        if not isinstance(stat, dict):
            out.problem(path, key, "expected a statistic (an object)")
            continue
        label = out.get(path, stat, "name", path=key, kind=dict)
        if missing(label):
            continue
        metric = out.get(path, label, "name", path=f"{key}.name", kind=str)
        if missing(metric) or label.get("perturbation"):
            continue
        if not stat.get("count"):
            continue  # a statistic HELM computed over nothing has no mean
        mean = out.number(path, stat.get("mean"), key=f"{key}.mean")
        if mean is not None:
            by_split.setdefault(str(label.get("split", "")), []).append((i, metric, mean))
    split = "test" if "test" in by_split else "valid" if "valid" in by_split else None
    if split is None:
        out.problem(path, "[].name.split", "no statistic of the test or valid split")
        return
    seen: set[str] = set()
    for i, metric, mean in by_split[split]:
        if metric in seen:
            continue  # sub-splits repeat a statistic; the first is the split's own
        seen.add(metric)
        out.add(
            dataset=dataset,
            algorithm=model,
            metric=metric,
            value=mean,
            origin=f"{path}: [{i}].mean",
        )
