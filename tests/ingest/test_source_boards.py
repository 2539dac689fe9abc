"""Files that import cleanly give the board the source publishes: values written with
their spread, directions from the source's own schema, order compared with the source's
(Kendall's tau)."""

from __future__ import annotations

import json

import pytest

from leaderboard.ingest.formats import ResultsImportError, read_imported
from leaderboard.ingest.formats.common import files_from_path
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
