"""Inputs test_importer_fuzz.py found crashing an importer, each reduced: what a
damaged file holds is escaped, dropped or refused at its file and key, never a 500."""

from __future__ import annotations

from leaderboard.ingest.formats import read_imported


def _hf(config: str, results: str) -> dict[str, bytes]:
    return {"r.json": f'{{"config":{{"model_name":"m"{config}}},"results":{results}}}'.encode()}


def test_a_parameter_count_past_a_floats_range_is_no_count():
    files = _hf(',"model_num_parameters":' + "9" * 310, '{"t":{"acc":0.5}}')
    assert read_imported(files, format="hf-leaderboard").algorithms[0].parameters is None
