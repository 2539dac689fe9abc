"""Files that import cleanly give the board the source publishes: values written with
their spread, directions from the source's own schema, order compared with the source's
(Kendall's tau)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from leaderboard.ingest.formats import ResultsImportError, files_from_path, read_imported
from leaderboard.ingest.formats.pwc import _value
from tests.ingest.helpers import FIXTURES, board_order, tau

# OGB's ogbn-arxiv leaderboard as the fixture's rows list it (by test accuracy).
OGB_PUBLISHED = [
    "SimTeG+TAPE+RevGAT",
    "GLEM+RevGAT",
    "RevGAT+KD",
    "GAT+norm. adj.+label reuse",
    "GCN",
    "MLP",
]
# The fixture's HELM Lite mean win rate on exact match (best first).
HELM_LITE_PUBLISHED = [
    "openai/gpt-4-0613",
    "anthropic/claude-2.0",
    "meta/llama-2-70b",
    "tiiuae/falcon-7b",
]


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("0.8428 ± 0.0014", (0.8428, "", 0.0014)),
        ("84.28 +- 0.14", (84.28, "", 0.14)),
        ("84.28 +/- 0.14%", (84.28, "%", 0.14)),
        ("84.28% ± 0.14%", (84.28, "%", 0.14)),
        ("0.84 ± n/a", (0.84, "", None)),  # the value stands without its spread
        ("88.5%", (88.5, "%", None)),
        ("± 0.1", (None, "", None)),
        ("1" + " " * 10_000 + "x ± 1", (None, "", None)),
    ],
)
def test_a_value_is_read_with_its_spread(raw, expected):
    assert _value(raw) == expected


def test_papers_with_code_values_with_spread_rank_ogb_as_ogb_does():
    imported = read_imported(files_from_path(FIXTURES / "pwc-ogb"), format="pwc", on_error="skip")
    assert imported.parsed.metrics[0] == "Test Accuracy"
    order = board_order(imported, "Test Accuracy")
    assert tau(order, OGB_PUBLISHED) == pytest.approx(1.0)
    errors = imported.provenance["GCN"]["standard_errors"]
    assert errors["Node Property Prediction: ogbn-arxiv | Test Accuracy"] == pytest.approx(0.0029)
    # What was left out, and why, at its file and key: the yes/no column and the row
    # that names no model.
    left = {(p.column.split(": ", 1)[1], p.message) for p in imported.left_out}
    assert ("[0].datasets[0].sota.rows[0].metrics.Ext. data", "'Yes' is not a number") in left
    assert ("[0].datasets[0].sota.rows[6].model_name", "the row names no model") in left
    assert imported.n_left_out == 7  # six yes/no cells, one row


def test_papers_with_code_refuses_on_request_naming_each_problem():
    with pytest.raises(ResultsImportError) as caught:
        read_imported(files_from_path(FIXTURES / "pwc-ogb"), format="pwc", on_error="refuse")
    assert "rows[6].model_name: the row names no model" in str(caught.value)


def test_helm_directions_come_from_its_schema():
    imported = read_imported(files_from_path(FIXTURES / "helm-lite"), format="helm")
    assert imported.metric("exact_match").higher_is_better is True
    assert imported.metric("inference_runtime").higher_is_better is False
    # A count HELM's schema gives no direction stays without one (a new benchmark
    # then asks for it by name).
    assert imported.metric("num_references").higher_is_better is None
    assert tau(board_order(imported, "exact_match"), HELM_LITE_PUBLISHED) == pytest.approx(1.0)
    # Lower runtime is better: the fastest model leads that board.
    assert board_order(imported, "inference_runtime")[0] == "tiiuae/falcon-7b"


def test_helm_without_a_schema_uses_the_directions_of_helms_schemas():
    files = {
        k: v
        for k, v in files_from_path(FIXTURES / "helm-lite").items()
        if not k.endswith("schema.json")
    }
    imported = read_imported(files, format="helm")
    assert imported.metric("inference_runtime").higher_is_better is False
    assert imported.metric("exact_match").higher_is_better is True


def test_a_helm_schema_overrides_and_a_yaml_one_with_aliases_is_not_expanded():
    files = files_from_path(FIXTURES / "helm-lite")
    schema = json.loads(files.pop("benchmark_output/runs/v1.0.0/schema.json"))
    schema["metrics"][0]["lower_is_better"] = True  # num_references, for the test's sake
    files["schema_lite.yaml"] = json.dumps(schema).encode()  # JSON is YAML
    imported = read_imported(files, format="helm")
    assert imported.metric("num_references").higher_is_better is False
    bomb = b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    files["schema_lite.yaml"] = bomb + b"metrics: [*b]\n"
    imported = read_imported(files, format="helm", on_error="skip")
    assert [p.column for p in imported.left_out] == ["schema_lite.yaml"]
    assert "aliases" in imported.left_out[0].message


def _published_order(imported, name: str) -> list[str]:
    values = imported.published[name]
    return sorted(values, key=lambda algorithm: -values[algorithm])


def test_every_eval_ever_helm_lite_keeps_the_mean_win_rate_as_the_published_order():
    imported = read_imported(
        files_from_path(FIXTURES / "eee-helm-lite"), format="eee", on_error="skip"
    )
    parsed = imported.parsed
    # HELM's table rows "<scenario> - <metric>" are scenarios, on the metric of their tab.
    assert parsed.datasets == ("NarrativeQA", "MMLU", "GSM8K", "LegalBench", "MedQA")
    assert parsed.metrics == ("Accuracy", "Efficiency")
    assert imported.metric("Efficiency").higher_is_better is False
    assert set(imported.published) == {"Mean win rate (Accuracy)", "Mean win rate (Efficiency)"}
    published = _published_order(imported, "Mean win rate (Accuracy)")
    assert tau(board_order(imported, "Accuracy"), published) >= 0.8
    efficiency = _published_order(imported, "Mean win rate (Efficiency)")
    assert tau(board_order(imported, "Efficiency"), efficiency) >= 0.8
    # The aggregates (2 per document) and falcon's -1 placeholder are listed, not refused.
    reasons = [p.message for p in imported.left_out]
    assert sum("the source's aggregate" in r for r in reasons) == 10
    assert [p.column for p in imported.left_out if "outside the valid range" in p.message] == [
        "tiiuae/falcon-7b/0a1b2c3d.json: evaluation_results[5].score_details.score"
    ]


def test_every_eval_ever_results_sharing_a_dataset_name_are_datasets():
    imported = read_imported(
        files_from_path(FIXTURES / "eee-global-mmlu-lite"), format="eee", on_error="skip"
    )
    assert imported.parsed.datasets == ("Arabic", "English", "German", "Hindi", "Swahili", "Yoruba")
    assert imported.parsed.metrics == ("score",)
    assert "Global MMLU Lite" in imported.published
    published = _published_order(imported, "Global MMLU Lite")
    assert tau(board_order(imported, "score"), published) == pytest.approx(1.0)
    # The 95 % half-width the source gives becomes a standard error.
    errors = imported.provenance["openai/gpt-4.1"]["standard_errors"]
    assert errors["Arabic | score"] == pytest.approx(0.0466 / 1.959964, rel=1e-6)


def test_every_eval_ever_two_precisions_of_one_model_are_two_algorithms():
    imported = read_imported(files_from_path(FIXTURES / "eee-open-llm-v2"), format="eee")
    assert set(imported.parsed.algorithms) == {
        "Qwen/Qwen2.5-7B-Instruct (bfloat16)",
        "Qwen/Qwen2.5-7B-Instruct (float16)",
        "meta-llama/Llama-3.1-8B-Instruct",
        "google/gemma-2-9b-it",
    }
    assert imported.algorithm("Qwen/Qwen2.5-7B-Instruct (float16)").parameters == 7615616512
    errors = imported.provenance["google/gemma-2-9b-it"]["standard_errors"]
    assert errors["GPQA | accuracy"] == pytest.approx(0.0051)


def test_every_eval_ever_refuses_on_request_naming_the_placeholder():
    with pytest.raises(ResultsImportError) as caught:
        read_imported(files_from_path(FIXTURES / "eee-helm-lite"), format="eee", on_error="refuse")
    assert "-1 is outside the valid range of metric 'Accuracy'" in str(caught.value)


def test_hf_leaderboard_two_dtypes_of_one_model_are_two_algorithms():
    def result(dtype: str, acc: float) -> bytes:
        return json.dumps(
            {
                "config": {"model_name": "org/model", "model_dtype": f"torch.{dtype}"},
                "results": {"arc": {"acc": acc}, "hellaswag": {"acc": acc + 0.1}},
            }
        ).encode()

    imported = read_imported(
        {"a.json": result("bfloat16", 0.5), "b.json": result("float16", 0.4)},
        format="hf-leaderboard",
    )
    assert imported.parsed.algorithms == ("org/model (bfloat16)", "org/model (float16)")


# MTEB's own table of the fixture: the mean over tasks of each task's score (the mean of
# its subsets), from each task's newest run.
MTEB_PUBLISHED = [
    "BAAI/bge-m3",
    "intfloat/multilingual-e5-large",
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
    "sentence-transformers/LaBSE",
]


def test_mteb_revision_folders_of_a_model_are_one_algorithm_newest_run_per_task():
    imported = read_imported(files_from_path(FIXTURES / "mteb-revisions"), format="mteb")
    parsed = imported.parsed
    assert sorted(parsed.algorithms) == sorted(MTEB_PUBLISHED)  # no model lost to coverage
    assert parsed.datasets == ("MassiveIntentClassification", "STS22", "SciFact")
    table = parsed.to_table()
    assert not np.isnan(table.values).any()  # every model on every task once merged
    order = board_order(imported, "main_score")
    assert order[0] == MTEB_PUBLISHED[0]
    # Mean rank and MTEB's mean differ on one pair (LaBSE wins two tasks by little and
    # loses SciFact by much): tau 4/6.
    assert tau(order, MTEB_PUBLISHED) == pytest.approx(2 / 3)
    e5 = imported.provenance["intfloat/multilingual-e5-large"]
    assert e5["model_revisions"]["SciFact"] == "external"
    assert e5["mteb_versions"]["MassiveIntentClassification"] == "1.12.0"
    passed_over = sorted(p.column for p in imported.left_out)
    assert passed_over == [
        "results/BAAI__bge-m3/no_revision_available/STS22.json: mteb_version",
        "results/intfloat__multilingual-e5-large/external/MassiveIntentClassification.json: "
        "mteb_version",
    ]
    # The task's score is the mean of its subsets, run by run.
    bge = table.algorithms.index("BAAI/bge-m3")
    massive = table.datasets.index("MassiveIntentClassification")
    assert table.values[massive, bge] == pytest.approx((0.71 + 0.75 + 0.71) / 3)
    assert table.fold_values[massive, :3, bge] == pytest.approx(
        [(0.71 + 0.75 + 0.70) / 3, (0.72 + 0.76 + 0.71) / 3, (0.70 + 0.74 + 0.72) / 3]
    )


def test_mteb_subsets_as_datasets_on_request():
    imported = read_imported(
        files_from_path(FIXTURES / "mteb-revisions"), format="mteb", subsets="datasets"
    )
    assert "STS22 (fr)" in imported.parsed.datasets
    assert len(imported.parsed.datasets) == 7
    with pytest.raises(ValueError, match="subsets must be one of mean, datasets"):
        read_imported(files_from_path(FIXTURES / "mteb-revisions"), format="mteb", subsets="x")
    with pytest.raises(ValueError, match="takes no option subsets"):
        read_imported({}, format="eee", subsets="mean")


def test_lm_eval_without_a_model_name_takes_the_given_algorithm_and_keeps_stderr():
    files = files_from_path(FIXTURES / "lm-eval-0.3")
    with pytest.raises(ResultsImportError, match="name the model with --algorithm"):
        read_imported(files, format="lm-eval")
    imported = read_imported(files, format="lm-eval", algorithm="pythia-1.4b-step143000")
    assert imported.parsed.algorithms == ("pythia-1.4b-step143000",)
    assert imported.parsed.datasets == ("hellaswag", "arc_easy", "winogrande")
    errors = imported.provenance["pythia-1.4b-step143000"]["standard_errors"]
    assert errors["hellaswag | acc_norm"] == pytest.approx(0.0050)


def test_lighteval_results_keep_all_as_the_published_order_and_stderr():
    imported = read_imported(files_from_path(FIXTURES / "lighteval"), format="lighteval")
    assert imported.parsed.datasets == (
        "arc:challenge",
        "hellaswag",
        "truthfulqa:mc",
        "winogrande",
    )
    assert "all" not in imported.parsed.datasets
    published = _published_order(imported, "all (acc_norm)")
    assert published[0] == "mistralai/Mistral-7B-v0.1"
    assert tau(board_order(imported, "acc_norm"), published) == pytest.approx(1.0)
    assert tau(board_order(imported, "acc"), _published_order(imported, "all (acc)")) == 1.0
    errors = imported.provenance["tiiuae/falcon-7b"]["standard_errors"]
    assert errors["winogrande | acc"] == pytest.approx(0.0115)
    assert [p.column.split(": ")[1] for p in imported.left_out] == ["results.all"] * 3


def test_openml_xml_and_api_json_evaluation_lists_read_as_the_python_records():
    files = files_from_path(FIXTURES / "openml-xml")
    api = files.pop("evaluation_list.api.json.txt")
    from_xml = read_imported(files, format="openml")
    from_api = read_imported({"list.json": api}, format="openml")
    a, b = from_xml.parsed.to_table(), from_api.parsed.to_table()
    assert a.datasets == b.datasets == ("credit-g", "kc1", "phoneme")
    assert np.array_equal(a.fold_values, b.fold_values, equal_nan=True)
    assert a.fold_values.shape == (3, 5, 3)
    assert from_xml.metric("area_under_roc_curve").higher_is_better is True
    order = board_order(from_xml, "area_under_roc_curve")
    assert order[0] == "sklearn.ensemble.RandomForestClassifier(n_estimators=500)"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_openml_xml_with_entities_is_not_read(encoding):
    """Found by reading, not by expat: a byte search for <!DOCTYPE missed UTF-16."""
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 9))
    text = f'<?xml version="1.0" encoding="{encoding}"?><!DOCTYPE x [<!ENTITY l0 "ha">{laughs}]>'
    bomb = (text + "<x>&l8;</x>").encode(encoding)
    with pytest.raises(ResultsImportError, match="declares a document type or entities"):
        read_imported({"e.xml": bomb}, format="openml")
    with pytest.raises(ResultsImportError, match="not well-formed XML"):
        read_imported({"e.xml": b"<oml:evaluations"}, format="openml")
