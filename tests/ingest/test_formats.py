"""Each importer reads files written to its tool's documented schema into the CSV
parser's records, and says at which file and key a bad file goes wrong."""

from __future__ import annotations

import json

import numpy as np
import pytest

from leaderboard.ingest.formats import IMPORT_FORMATS, ResultsImportError, read_imported
from leaderboard.ingest.formats.common import restrict_metrics
from leaderboard.ingest.results_csv import ResultsCsvError
from tests.ingest.helpers import fixture_files

# format -> (datasets, algorithms, metrics, folds?)
EXPECTED = {
    "mteb": (3, 3, ("main_score",), True),
    "lm-eval": (3, 3, ("acc", "acc_norm", "perplexity"), False),
    "hf-leaderboard": (4, 3, ("acc_norm", "acc", "mc2"), False),
    "openml": (3, 3, ("predictive_accuracy",), True),
    "helm": (3, 3, ("num_references", "exact_match"), False),
    "eee": (3, 3, ("accuracy",), False),
    "pwc": (3, 3, ("Percentage correct", "Accuracy"), False),
    "lighteval": (4, 3, ("acc", "acc_norm", "mc1", "mc2"), False),
    "eval-results": (3, 4, ("score",), False),
}


@pytest.mark.parametrize("format", IMPORT_FORMATS)
def test_each_format_reads_its_fixtures_into_the_parsers_records(format):
    imported = read_imported(fixture_files(format), format=format)
    n_datasets, n_algorithms, metrics, folds = EXPECTED[format]
    parsed = imported.parsed
    assert (len(parsed.datasets), len(parsed.algorithms)) == (n_datasets, n_algorithms)
    assert parsed.metrics == metrics
    assert parsed.has_folds is folds
    assert parsed.kind == "score"
    # Every line of the records points back into a file.
    assert all(imported.where(line) for line in parsed.lines.tolist())
    assert all(
        imported.where(line).split(": ")[0] in fixture_files(format)
        for line in parsed.lines.tolist()
    )


def test_mteb_runs_become_folds_and_the_model_meta_metadata():
    imported = read_imported(fixture_files("mteb"), format="mteb")
    table = imported.parsed.to_table()
    banking = table.datasets.index("Banking77Classification")
    assert table.fold_values is not None
    assert np.isfinite(table.fold_values[banking]).sum() == 30  # 10 runs x 3 models
    # Tasks without runs (retrieval, STS) keep their main score as their one value.
    scifact = table.datasets.index("SciFact")
    assert np.isfinite(table.fold_values[scifact]).sum() == 3
    assert "STS22" in table.datasets  # its subsets averaged, as MTEB scores a task
    minilm = imported.algorithm("sentence-transformers/all-MiniLM-L6-v2")
    assert minilm.parameters == 22713216 and minilm.licence == "apache-2.0"
    assert minilm.revision == "8b3219a92973c328a8e22fadcfa821b5dc75636a"
    provenance = imported.provenance["sentence-transformers/all-MiniLM-L6-v2"]
    assert provenance["mteb_versions"]["SciFact"] == "1.14.12"
    assert provenance["dataset_revisions"]["SciFact"] == "0228b52cf27578f30900b9e5271d331663a030d7"
    assert imported.metric("main_score").higher_is_better is True


def test_mteb_fold_means_are_the_main_scores():
    imported = read_imported(fixture_files("mteb"), format="mteb")
    table = imported.parsed.to_table()
    files = fixture_files("mteb")
    path = next(
        p
        for p in files
        if p.endswith(
            "BAAI__bge-small-en-v1.5/5c38ec7c405ec4b44b94cc5a9bb96e735b38267a/Banking77Classification.json"
        )
    )
    main = json.loads(files[path])["scores"]["test"][0]["main_score"]
    i = table.datasets.index("Banking77Classification")
    j = table.algorithms.index("BAAI/bge-small-en-v1.5")
    assert table.values[i, j] == pytest.approx(main, abs=1e-12)


def test_lm_eval_takes_directions_provenance_and_skips_standard_errors():
    imported = read_imported(fixture_files("lm-eval"), format="lm-eval")
    assert imported.metric("perplexity").higher_is_better is False
    assert imported.metric("acc").higher_is_better is True
    assert not any("stderr" in m for m in imported.parsed.metrics)
    provenance = imported.provenance["EleutherAI/pythia-160m"]
    assert provenance["lm_eval_version"] == "0.4.2"
    assert provenance["n-samples"]["hellaswag"]["effective"] == 10042
    assert imported.algorithm("EleutherAI/pythia-1b").parameters == 1011781632


def test_openml_repeats_and_folds_become_six_folds_per_run():
    imported = read_imported(fixture_files("openml"), format="openml")
    table = imported.parsed.to_table()
    assert table.fold_values.shape == (3, 6, 3)
    assert imported.metric("predictive_accuracy").max_value == 1.0
    runs = imported.provenance["sklearn.linear_model.LogisticRegression"]["openml_runs"]
    assert runs["credit-g"]["task_id"] == "31"


def test_openml_csv_export_reads_the_same_as_its_json():
    from leaderboard.ingest.formats import files_from_path
    from tests.ingest.helpers import FIXTURES

    as_json = read_imported(fixture_files("openml"), format="openml").parsed
    as_csv = read_imported(files_from_path(FIXTURES / "openml-csv"), format="openml").parsed
    np.testing.assert_array_equal(as_json.to_table().fold_values, as_csv.to_table().fold_values)


def test_helm_keeps_the_test_split_without_perturbations():
    imported = read_imported(fixture_files("helm"), format="helm")
    table = imported.parsed.to_table(metric="exact_match")
    i = table.datasets.index("boolq")
    j = table.algorithms.index("openai/gpt2")
    assert table.values[i, j] == pytest.approx(0.5)  # test split, not valid, no perturbation
    assert "mmlu:subject=anatomy,method=multiple_choice_joint" in table.datasets


def test_eee_states_direction_and_range():
    imported = read_imported(fixture_files("eee"), format="eee")
    accuracy = imported.metric("accuracy")
    assert (accuracy.higher_is_better, accuracy.min_value, accuracy.max_value) == (True, 0.0, 1.0)
    assert imported.algorithm("Qwen/Qwen2.5-7B-Instruct").family == "Qwen"


def test_pwc_reads_percentages_and_counts_what_it_leaves_out():
    imported = read_imported(fixture_files("pwc"), format="pwc")
    assert imported.metric("Percentage correct").unit == "%"
    assert imported.notes == (
        "3 values that are not numbers were left out",
        "1 repeated model row was left out (first kept)",
    )
    assert imported.algorithm("ResNet-18").url == "https://arxiv.org/abs/1512.03385"


def test_restricting_to_a_benchmarks_metrics_keeps_lines_pointing_into_the_files():
    imported = read_imported(fixture_files("lm-eval"), format="lm-eval")
    narrowed = restrict_metrics(imported, ["perplexity"])
    assert narrowed.parsed.metrics == ("perplexity",)
    assert narrowed.parsed.datasets == ("lambada_openai",)
    assert all('"perplexity,none"' in narrowed.where(n) for n in narrowed.parsed.lines.tolist())
    with pytest.raises(ResultsImportError) as caught:
        restrict_metrics(imported, ["bleu"])
    # A problem of the whole input names no file (it said "(upload)" on the CLI too).
    assert str(caught.value) == (
        "none of the files' metrics ('acc', 'acc_norm', 'perplexity') is one of this "
        "benchmark's ('bleu')"
    )


# --- bad input: every error names the file and the key -------------------------------


def _errors(files, format) -> list[str]:
    with pytest.raises(ResultsImportError) as caught:
        read_imported(files, format=format)
    assert isinstance(caught.value, ResultsCsvError)  # every entry point handles it
    return [str(error) for error in caught.value.errors]


def _one(format: str) -> tuple[str, dict]:
    files = fixture_files(format)
    path = next(
        p
        for p in sorted(files)
        if p.endswith(".json") and "model_meta" not in p and "run_spec" not in p
    )
    return path, files


# The formats whose files are JSON (the Hub's .eval_results are YAML: tests/ingest/test_eval_results.py).
JSON_FORMATS = tuple(f for f in IMPORT_FORMATS if f != "eval-results")


@pytest.mark.parametrize("format", JSON_FORMATS)
def test_truncated_json_names_the_file(format):
    path, files = _one(format)
    files[path] = files[path][: len(files[path]) // 2]
    (error,) = _errors(files, format)
    assert error.startswith(path) and "not valid JSON" in error and "truncated" in error


MISSING_KEY = {
    # format -> (function removing a key from a document, the key named)
    "mteb": (lambda d: d.pop("scores"), "scores"),
    "lm-eval": (lambda d: d.pop("results"), "results"),
    "hf-leaderboard": (lambda d: d["config"].pop("model_name"), "config.model_name"),
    "openml": (lambda d: d[2].pop("flow_name"), "[2].flow_name"),
    "helm": (lambda d: d[2].pop("name"), "[2].name"),
    "eee": (
        lambda d: d["evaluation_results"][1]["score_details"].pop("score"),
        "evaluation_results[1].score_details.score",
    ),
    "pwc": (
        lambda d: d[0]["datasets"][1]["sota"]["rows"][2].pop("model_name"),
        "[0].datasets[1].sota.rows[2].model_name",
    ),
    "lighteval": (
        lambda d: d["config_general"].pop("model_name"),
        "config_general.model_name",
    ),
}


@pytest.mark.parametrize("format", JSON_FORMATS)
def test_a_missing_key_is_named_with_its_file(format):
    path, files = _one(format)
    remove, key = MISSING_KEY[format]
    document = json.loads(files[path])
    remove(document)
    files[path] = json.dumps(document).encode()
    errors = _errors(files, format)
    assert f"{path}: {key}: missing key" in errors


def test_an_mteb_task_with_no_main_score_is_named():
    files = fixture_files("mteb")
    path = next(p for p in sorted(files) if p.endswith("SciFact.json"))
    document = json.loads(files[path])
    del document["scores"]["test"][0]["main_score"]
    files[path] = json.dumps(document).encode()
    (error,) = _errors(files, "mteb")
    assert error == f"{path}: scores.test[0].main_score: task 'SciFact' has no main score"


def test_a_score_that_is_not_a_number_is_named():
    files = fixture_files("hf-leaderboard")
    path = sorted(files)[0]
    document = json.loads(files[path])
    document["results"]["mmlu"]["acc"] = "0.6"
    files[path] = json.dumps(document).encode()
    (error,) = _errors(files, "hf-leaderboard")
    assert error == f"{path}: results.mmlu.acc: expected a number, got the text '0.6'"


def test_a_score_outside_the_range_the_file_states_is_named():
    files = fixture_files("eee")
    path = sorted(files)[0]
    document = json.loads(files[path])
    document["evaluation_results"][0]["score_details"]["score"] = 1.7
    files[path] = json.dumps(document).encode()
    (error,) = _errors(files, "eee")
    assert error.startswith(f"{path}: evaluation_results[0].score_details.score: 1.7 is outside")


def test_a_duplicate_result_names_both_places():
    files = fixture_files("hf-leaderboard")
    first, second = sorted(files)[:2]
    other = json.loads(files[second])
    other["config"]["model_name"] = json.loads(files[first])["config"]["model_name"]
    files[second] = json.dumps(other).encode()
    errors = _errors(files, "hf-leaderboard")
    assert any(e.startswith(f"{second}: results.") and f"{first}: results." in e for e in errors)


def test_two_openml_runs_of_one_flow_on_one_task_are_refused_naming_both():
    files = fixture_files("openml")
    (path,) = files
    records = json.loads(files[path])
    records.append(dict(records[0], run_id=1))
    files[path] = json.dumps(records).encode()
    (error,) = _errors(files, "openml")
    assert f"{path}: [9].run_id: run 1 and run {records[0]['run_id']}" in error


def test_helm_stats_without_their_run_spec_are_named():
    files = fixture_files("helm")
    spec = next(p for p in sorted(files) if p.endswith("run_spec.json"))
    del files[spec]
    (error,) = _errors(files, "helm")
    assert error.startswith(f"{spec}: missing")


def test_files_of_another_format_say_nothing_was_found():
    with pytest.raises(ResultsImportError) as caught:
        read_imported({"notes.txt": b"hello"}, format="mteb")
    assert str(caught.value) == "no mteb results found in the files"


def test_names_with_quotes_commas_and_control_characters():
    files = fixture_files("hf-leaderboard")
    path = sorted(files)[0]
    document = json.loads(files[path])
    document["config"]["model_name"] = 'org/"quoted", model'
    files[path] = json.dumps(document).encode()
    imported = read_imported(files, format="hf-leaderboard")
    assert 'org/"quoted", model' in imported.parsed.algorithms
    document["config"]["model_name"] = "org/bad\nname"
    files[path] = json.dumps(document).encode()
    errors = _errors(files, "hf-leaderboard")
    assert errors[0].startswith(f"{path}: results.") and "control character U+000A" in errors[0]
