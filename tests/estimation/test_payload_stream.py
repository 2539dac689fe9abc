"""``analyze --json`` streamed section by section: the same text as one json.dumps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.table import ResultTable
from estimation.payload_stream import payload_json_chunks, payload_json_write


@pytest.fixture(scope="module")
def payload():
    rng = np.random.default_rng(3)
    values = np.arange(6)[None, :] + rng.normal(size=(12, 6))
    table = ResultTable(
        datasets=tuple(f"d{i}" for i in range(12)),
        algorithms=("a", 'b \u00e9\n"quoted"', "c", "d", "e", "f"),
        values=values,
    )
    return analyze(table, AnalysisSettings(bootstrap=50, evaluation_repeats=1)).payload


def test_the_streamed_text_is_json_dumps_byte_for_byte(payload):
    expected = json.dumps(payload.to_json(), indent=2, allow_nan=False)
    assert "".join(payload_json_chunks(payload)) == expected
    pieces: list[str] = []
    payload_json_write(payload, pieces.append)
    assert "".join(pieces) == expected


def test_pieces_are_bounded(payload, monkeypatch):
    import estimation.payload_stream as stream

    monkeypatch.setattr(stream, "CHUNK_CHARS", 500)
    pieces: list[str] = []
    payload_json_write(payload, pieces.append)
    assert len(pieces) > 3
    assert max(len(p) for p in pieces[:-1]) < 500 + max(
        len(c) for c in payload_json_chunks(payload)
    )
