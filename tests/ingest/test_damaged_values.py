"""Inputs test_importer_fuzz.py found crashing an importer, each reduced: what a
damaged file holds is escaped, dropped or refused at its file and key, never a 500."""

from __future__ import annotations

import json

import pytest

from leaderboard.ingest.formats import ResultsImportError, read_imported
from tests.ingest.helpers import fixture_files


def _hf(config: str, results: str) -> dict[str, bytes]:
    return {"r.json": f'{{"config":{{"model_name":"m"{config}}},"results":{results}}}'.encode()}


@pytest.mark.parametrize(
    ("results", "where"),
    [
        ('{"t\\ud800":{"acc":0.5}}', "r.json: results.t\\ud800.acc"),
        ('{"t":{"acc":0.5},"\\u0000":5}', "r.json: results.\\x00"),
        ('{"t":{"acc":0.5},"\\u202e":5}', "r.json: results.\\u202e"),
    ],
)
def test_a_key_no_response_can_carry_is_named_escaped(results, where):
    with pytest.raises(ResultsImportError) as refused:
        read_imported(_hf("", results), format="hf-leaderboard")
    assert where in [error.column for error in refused.value.errors]
    str(refused.value).encode("utf-8")


def test_a_file_name_with_a_nul_is_named_escaped():
    files = {"a\x00b.json": b'{"config":{"model_name":"m"},"results":{"t":{"acc":"x"}}}'}
    with pytest.raises(ResultsImportError) as refused:
        read_imported(files, format="hf-leaderboard")
    assert refused.value.errors[0].column == "a\\x00b.json: results.t.acc"


def test_provenance_the_database_cannot_hold_is_kept_as_json_it_can():
    files = _hf(
        ',"model_dtype":{"nan":NaN,"text":"x\\u0000y\\ud800","deep":' + "[" * 900 + "]" * 900 + "}",
        '{"t":{"acc":0.5}}',
    )
    imported = read_imported(files, format="hf-leaderboard")
    dtype = imported.provenance["m"]["model_dtype"]
    assert dtype["nan"] is None and dtype["text"] == "x\\x00y\\ud800"  # as messages show them
    depth, deep = 0, dtype["deep"]
    while isinstance(deep, list):
        depth, deep = depth + 1, deep[0]
    assert depth < 30  # saved by json.dumps within any stack's recursion limit
    json.dumps(imported.provenance, allow_nan=False).encode("utf-8")


def test_a_parameter_count_past_a_floats_range_is_no_count():
    files = _hf(',"model_num_parameters":' + "9" * 310, '{"t":{"acc":0.5}}')
    assert read_imported(files, format="hf-leaderboard").algorithms[0].parameters is None


BEYOND_A_FLOAT = "9" * 309  # 309 digits, read exactly before, past a float's range
BEYOND = {
    "hf-leaderboard": (
        '{"config":{"model_name":"m"},"results":{"t":{"acc":%s}}}',
        "r.json: results.t.acc",
    ),
    "pwc": (
        '[{"task":"t","datasets":[{"dataset":"d","sota":{"rows":[{"model_name":"m",'
        '"metrics":{"a":%s}}]}}]}]',
        "r.json: [0].datasets[0].sota.rows[0].metrics.a",
    ),
    "eee": (
        '{"model_info":{"id":"m"},"evaluation_results":[{"evaluation_name":"d",'
        '"metric_config":{},"score_details":{"score":%s}}]}',
        "r.json: evaluation_results[0].score_details.score",
    ),
    "lighteval": (
        '{"config_general":{"model_name":"m"},"results":{"t|x|0":{"acc":%s}}}',
        "r.json: results.t|x|0.acc",
    ),
    "lm-eval": (
        '{"model_name":"m","results":{"t":{"acc,none":%s}}}',
        'r.json: results.t."acc,none"',
    ),
}


@pytest.mark.parametrize("format", BEYOND)
def test_an_integer_past_a_floats_range_is_refused_as_not_finite(format):
    text, where = BEYOND[format]
    for on_error in ("refuse", "skip"):
        with pytest.raises(ResultsImportError) as refused:
            read_imported(
                {"r.json": (text % BEYOND_A_FLOAT).encode()}, format=format, on_error=on_error
            )
        assert where in [error.column for error in refused.value.errors]


def test_pwc_subtasks_that_are_no_list_are_named():
    files = {"t.json": b'[{"task":"t","datasets":[],"subtasks":1.5}]'}
    with pytest.raises(ResultsImportError) as refused:
        read_imported(files, format="pwc", on_error="skip")
    assert "t.json: [0].subtasks: expected a list" in str(refused.value)


def test_an_mteb_version_with_a_superscript_digit_is_read_as_far_as_it_goes():
    files = fixture_files("mteb")
    path = next(p for p in files if p.endswith("SciFact.json"))
    files[path] = files[path].replace(b'"mteb_version": "1.14.12"', b'"mteb_version": "1.\\u00b2"')
    assert read_imported(files, format="mteb").parsed.n_records == 36


@pytest.mark.parametrize("encoding", ["klingon", "utf-32"])
def test_an_openml_xml_declaring_an_encoding_python_cannot_read_is_named(encoding):
    files = {"e.xml": f"<?xml version='1.0' encoding='{encoding}'?><a/>".encode()}
    refused = _refusal(files, format="openml")
    assert refused.errors[0].column == "e.xml"
    assert "declared encoding" in str(refused)


@pytest.mark.parametrize("tagged", ["!!timestamp x", "!!bool x", "!!int _", "!!float _"])
def test_a_yaml_value_not_of_its_explicit_tags_form_is_named(tagged):
    files = {"acme/m/.eval_results/x.yaml": f"- dataset: {{id: d}}\n  value: {tagged}\n".encode()}
    refused = _refusal(files, format="eval-results")
    assert refused.errors[0].column == "acme/m/.eval_results/x.yaml"
    assert "cannot be read as tag:yaml.org,2002:" in str(refused)


def test_a_helm_schema_with_a_value_not_of_its_tags_form_is_named():
    files = fixture_files("helm")
    files["schema.yaml"] = b"metrics:\n  - name: exact_match\n    lower_is_better: !!bool x\n"
    refused = _refusal(files, format="helm")
    assert refused.errors[0].column == "schema.yaml"


def test_a_reader_s_number_past_a_float_is_refused_by_the_collector():
    """Collector.number itself, not each reader's own guard: an integer past a float's
    range is not finite (float() of it raises OverflowError)."""
    from leaderboard.ingest.formats.common import Collector

    out = Collector("eval-results")
    assert out.number("r.yaml", 10**400, key="value") is None
    assert out.number("r.yaml", 10**300, key="value") == 1e300
    assert [str(p) for p in out.problems] == [
        "r.yaml: value: expected a finite number, got an integer past a float's range"
    ]


def _refusal(files: dict[str, bytes], *, format: str) -> ResultsImportError:
    """What the import of ``files`` is refused with (it must be refused)."""
    with pytest.raises(ResultsImportError) as refused:
        read_imported(files, format=format)
    return refused.value
