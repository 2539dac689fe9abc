"""Inputs test_importer_fuzz.py found crashing an importer, each reduced: what a
damaged file holds is escaped, dropped or refused at its file and key, never a 500."""

from __future__ import annotations

import json

import pytest

from leaderboard.ingest.formats import ResultsImportError, read_imported


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
    assert dtype["nan"] is None and dtype["text"] == "xy?"
    depth, deep = 0, dtype["deep"]
    while isinstance(deep, list):
        depth, deep = depth + 1, deep[0]
    assert depth < 30  # saved by json.dumps within any stack's recursion limit
    json.dumps(imported.provenance, allow_nan=False).encode("utf-8")


def test_a_parameter_count_past_a_floats_range_is_no_count():
    files = _hf(',"model_num_parameters":' + "9" * 310, '{"t":{"acc":0.5}}')
    assert read_imported(files, format="hf-leaderboard").algorithms[0].parameters is None
