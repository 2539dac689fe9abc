"""HELM: ``benchmark_output/runs/<suite>/<run>/stats.json`` beside ``run_spec.json``.

``run_spec.json`` names the run (``name``, e.g. ``mmlu:subject=anatomy,method=
multiple_choice_joint,model=openai_gpt2``) and the model (``adapter_spec.model``);
``stats.json`` is a list of statistics, each ``{"name": {"name", "split",
"perturbation"?}, "count", "mean", ...}``.

Mapping: algorithm = ``adapter_spec.model``; dataset = the run's name without its
``model=`` and ``model_deployment=`` arguments; metric = the statistic's name, from the
``test`` split (``valid`` where a run has no test split) without perturbations; value =
its ``mean``.

Directions: HELM states them in its schema (``schema_<suite>.yaml`` in HELM's source,
``schema.json`` beside the runs once ``helm-summarize`` has run): each metric's
``lower_is_better``. A schema among the uploaded files is read (YAML without aliases,
so no expansion bomb); else the directions of :data:`HELM_DIRECTIONS`, copied from
HELM's schemas, apply. A statistic neither gives a direction to (HELM's own counts,
``num_references``, ``num_train_instances``, ...) is imported without one: a new
benchmark then needs an explicit direction for it, or ``--metric`` to leave it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from leaderboard.ingest.formats.common import (
    AlgorithmInfo,
    Collector,
    ImportedResults,
    MetricInfo,
    missing,
    model_organisation,
)
from leaderboard.ingest.formats.yaml_text import UnreadableYaml, load_yaml

FORMAT = "helm"
_MODEL_ARGUMENTS = ("model=", "model_deployment=")
_LOWER = (
    "perplexity",
    "bits_per_byte",
    "absolute_value_difference",
    "distance",
    "ece_1_bin",
    "ece_10_bin",
    "expected_max_toxicity",
    "max_toxicity_probability",
    "toxic_frac",
    "bbq_metric_ambiguous_bias",
    "bbq_metric_unambiguous_bias",
    "training_co2_cost",
    "training_energy_cost",
    "inference_runtime",
    "inference_idealized_runtime",
    "inference_denoised_runtime",
    "batch_request_runtime",
    "batch_request_runtime_idealized",
)
_HIGHER = (
    "exact_match",
    "quasi_exact_match",
    "prefix_exact_match",
    "quasi_prefix_exact_match",
    "exact_match@5",
    "quasi_exact_match@5",
    "logprob",
    "logprob_per_byte",
    "rouge_1",
    "rouge_2",
    "rouge_l",
    "bleu_1",
    "bleu_4",
    "f1_set_match",
    "f1_score",
    "classification_macro_f1",
    "classification_micro_f1",
    "percent_valid",
    "NDCG@10",
    "RR@10",
    "NDCG@20",
    "RR@20",
    "math_equiv",
    "math_equiv_chain_of_thought",
    "exact_match_indicator",
    "exact_set_match",
    "iou_set_match",
    "summac",
    "BERTScore-P",
    "BERTScore-R",
    "BERTScore-F",
    "code_eval_acc",
    "pass",
    "strict_acc",
    "chain_of_thought_correctness",
    "ifeval_strict_accuracy",
    "wildbench_score",
    "omni_math_accuracy",
)
# True: higher is better. From ``lower_is_better`` in HELM's schemas (schema_lite.yaml,
# schema_classic.yaml, schema_capabilities.yaml).
HELM_DIRECTIONS: Mapping[str, bool] = {
    **{name: False for name in _LOWER},
    **{name: True for name in _HIGHER},
}


def read_helm(
    files: Mapping[str, bytes], *, max_results: int | None = None, on_error: str = "refuse"
) -> ImportedResults:
    out = Collector(FORMAT, max_results=max_results, on_error=on_error)
    directions = dict(HELM_DIRECTIONS)
    for path in sorted(p for p in files if _is_schema(p)):
        directions.update(_schema_directions(out, path, files[path]))
    for path in sorted(p for p in files if PurePosixPath(p).name == "stats.json"):
        folder = PurePosixPath(path).parent
        spec_path = str(folder / "run_spec.json") if str(folder) != "." else "run_spec.json"
        if spec_path not in files:
            out.problem(spec_path, "", f"missing: {path} needs the run_spec.json beside it")
            continue
        _run(out, spec_path, files[spec_path], path, files[path])
    for name in out.metrics:
        out.metrics[name] = MetricInfo(name, higher_is_better=directions.get(name))
    return out.finish()


def _is_schema(path: str) -> bool:
    name = PurePosixPath(path).name
    return name.startswith("schema") and name.endswith((".yaml", ".yml", ".json"))


def _schema_directions(out: Collector, path: str, data: bytes) -> dict[str, bool]:
    """``lower_is_better`` of each metric a HELM schema describes."""
    if path.endswith(".json"):
        doc = out.json(path, data)
        if missing(doc):
            return {}
    else:
        try:
            doc = load_yaml(data)
        except UnreadableYaml as exc:
            out.problem(path, "", f"is not a readable HELM schema: {exc}")
            return {}
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(metrics, list):
        out.problem(path, "metrics", "a HELM schema lists its metrics here")
        return {}
    found = {}
    for metric in metrics:
        if isinstance(metric, dict) and isinstance(metric.get("name"), str):
            lower = metric.get("lower_is_better")
            if isinstance(lower, bool):
                found[metric["name"]] = not lower
    return found


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
    out.algorithm(AlgorithmInfo(name=model, family=model_organisation(model)), {"harness": "HELM"})
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
            file=path,
            key=f"[{i}].mean",
        )
