"""The snapshot contract: typed sections, their JSON, the schema and the registry."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from estimation.core import contract
from estimation.core.analysis import analyze
from estimation.core.contract import (
    SECTION_NAMES,
    AnalysisSettings,
    NotApplicable,
    PairwiseMatrix,
    SnapshotPayload,
    pair_index,
)
from estimation.core.registry import ESTIMATOR_KEYS, ESTIMATORS, estimator_get
from estimation.core.table import ResultTable
from tests.contract_validation import validate, validate_section
from tests.core.demo_tables import SETTINGS, demo_analysis, demsar_table, simulated_table

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_committed_schema_and_reference_are_generated_from_the_dataclasses():
    committed = json.loads((DOCS / "snapshot.schema.json").read_text())
    assert committed == contract.json_schema(), "run: python -m estimation.core.contract"
    assert (DOCS / "snapshot-contract.md").read_text() == contract.contract_markdown()
    jsonschema.Draft202012Validator.check_schema(committed)


def test_every_field_is_documented():
    for cls in contract._dataclasses_in_order():
        if cls is NotApplicable:
            continue
        for field in dataclasses.fields(cls):
            assert field.metadata.get("meaning"), f"{cls.__name__}.{field.name} has no meaning"


@pytest.mark.parametrize("demo", ["demsar", "simulated"])
def test_demo_payloads_validate_and_round_trip(demo):
    analysis = demo_analysis(demo)
    text = json.dumps(analysis.to_json(), allow_nan=False)
    data = json.loads(text)
    validate(data)
    assert SnapshotPayload.from_json(data) == analysis.payload
    for name in SECTION_NAMES:
        section = contract.section_to_json(name, getattr(analysis.payload, name))
        validate_section(name, section)
        jsonschema.Draft202012Validator(contract.section_schema(name)).validate(section)
        assert contract.section_from_json(name, section) == getattr(analysis.payload, name)


def test_a_top_k_ranking_file_says_what_does_not_apply():
    nan = np.nan
    ranks = np.array([[1, 2, 3, nan, nan], [2, 1, nan, 3, nan], [1, 3, 2, nan, nan]])
    table = ResultTable(
        datasets=("d1", "d2", "d3"), algorithms=tuple("abcde"), values=ranks, kind="rank"
    )
    analysis = analyze(table, AnalysisSettings(bootstrap=20))
    data = analysis.to_json()
    validate(data)
    board = analysis.payload.board
    for view in (board.mean_rank, board.friedman, board.nemenyi, board.wilcoxon):
        assert isinstance(view, NotApplicable) and view.reason
    assert isinstance(analysis.payload.within_dataset, NotApplicable)
    assert data["board"]["friedman"] == {"not_applicable": board.friedman.reason}


def test_no_bootstrap_and_a_single_dataset_are_not_applicable_with_reasons():
    data = analyze(demsar_table(), AnalysisSettings(bootstrap=0)).to_json()
    validate(data)
    assert all(
        e["bootstrap"] == {"not_applicable": "the bootstrap is switched off (0 replicates)"}
        for e in data["board"]["estimators"]
    )


def test_pairwise_sections_above_the_bound_hold_the_first_algorithms_and_validate(monkeypatch):
    from estimation.core import pairwise_scope

    whole = analyze(demsar_table(), AnalysisSettings(bootstrap=0))
    m = len(whole.payload.board.algorithms)
    monkeypatch.setattr(pairwise_scope, "MAX_PAIRWISE_ALGORITHMS", m - 1)
    data = analyze(demsar_table(), AnalysisSettings(bootstrap=0)).to_json()
    validate(data)
    covered = data["pairwise"]["algorithms"]
    assert len(covered) == m - 1 and f"first {m - 1} by mean rank" in data["pairwise"]["reason"]
    for name in ("wins", "nemenyi", "wilcoxon"):
        assert data[name]["algorithms"] == covered
    # Nothing else moves.
    expected = whole.to_json()
    moved = {"wins", "nemenyi", "wilcoxon", "pairwise"}
    assert {k: v for k, v in data.items() if k not in moved} == {
        k: v for k, v in expected.items() if k not in moved
    }


def test_two_runs_on_the_same_input_give_identical_payloads():
    first = analyze(simulated_table(), SETTINGS)
    second = analyze(simulated_table(), SETTINGS)
    assert json.dumps(first.to_json()) == json.dumps(second.to_json())
    assert first.timings and "timings" not in first.to_json()


def test_pairwise_matrix_stores_a_triangle_and_reads_every_cell():
    rng = np.random.default_rng(0)
    symmetric = rng.random((5, 5))
    symmetric = symmetric + symmetric.T
    stored = PairwiseMatrix.from_square(symmetric)
    assert stored.lower is None and len(stored.upper) == 10
    skew = rng.random((5, 5))
    skew_stored = PairwiseMatrix.from_square(skew)
    assert skew_stored.lower is not None
    for i in range(5):
        for j in range(5):
            if i != j:
                assert stored.get(i, j, 5) == symmetric[i, j]
                assert skew_stored.get(i, j, 5) == skew[i, j]
    keep = [3, 0, 4]
    assert np.array_equal(
        skew_stored.restricted(keep, 5).square(3),
        skew_stored.square(5)[np.ix_(keep, keep)],
        equal_nan=True,
    )
    i, j = np.triu_indices(7, 1)
    assert [pair_index(a, b, 7) for a, b in zip(i, j, strict=True)] == list(range(21))


def test_nan_becomes_null():
    stored = PairwiseMatrix.from_square(np.array([[np.nan, np.inf], [1.0, np.nan]]))
    assert stored.upper == (None,) and stored.lower == (1.0,)


def test_from_json_names_where_the_data_do_not_fit():
    data = demo_analysis("demsar").to_json()
    data["board"]["k_used"] = "three"
    with pytest.raises(ValueError, match=r"\$\.board\.k_used: expected int"):
        SnapshotPayload.from_json(data)
    with pytest.raises(jsonschema.ValidationError):
        validate(data)


def test_the_registry_is_the_one_list_of_estimators():
    assert ESTIMATOR_KEYS == tuple(e.key for e in ESTIMATORS)
    assert len(set(ESTIMATOR_KEYS)) == len(ESTIMATOR_KEYS)
    board = demo_analysis("demsar").payload.board
    assert board.estimator_keys == ESTIMATOR_KEYS
    assert all(e.label and e.short_label and e.meaning.endswith(".") for e in ESTIMATORS)
    with pytest.raises(ValueError, match="estimator must be one of"):
        estimator_get("nope")
    with pytest.raises(ValueError, match="default_estimator must be one of"):
        AnalysisSettings(default_estimator="nope")


WHOLE_SECTIONS = ("board", "advisor", "pairwise")  # O(m), about every algorithm: served whole


def test_the_advisor_section_is_served_whole():
    section = demo_analysis("simulated").payload.advisor
    assert contract.restrict(section, [3, 1]) is section


@pytest.mark.parametrize("name", [n for n in SECTION_NAMES if n not in WHOLE_SECTIONS])
def test_a_section_for_chosen_algorithms_keeps_every_stored_value(name):
    payload = demo_analysis("simulated").payload
    section = getattr(payload, name)
    names = section.algorithms
    keep = [3, 1]
    chosen = contract.restrict(section, keep)
    assert chosen.algorithms == (names[1], names[3])  # the section's order
    validate_section(name, contract.to_json(chosen))
    m, old = len(names), {1: 0, 3: 1}
    if name in ("wins", "nemenyi", "wilcoxon"):
        matrix_fields = {"wins": ["wins"], "nemenyi": ["pvalues"]}.get(
            name, ["pvalues", "pvalues_raw", "rank_biserial"]
        )
        for field in matrix_fields:
            for a in (1, 3):
                for b in (1, 3):
                    if a != b:
                        assert getattr(chosen, field).get(old[a], old[b], 2) == getattr(
                            section, field
                        ).get(a, b, m)
    if name == "rank_matrix":
        assert [row[0] for row in chosen.ranks] == [row[1] for row in section.ranks]
    if name == "dataset_scores":
        assert [row for row in chosen.values] == [(row[1], row[3]) for row in section.values]
    if name == "within_dataset":
        for before, after in zip(section.datasets, chosen.datasets, strict=True):
            assert after.significance_rank == (
                before.significance_rank[1],
                before.significance_rank[3],
            )
            k = pair_index(1, 3, m)
            assert after.tukey.diff == (before.tukey.diff[k],)
            assert after.tukey.significant == (before.tukey.significant[k],)
            assert after.tukey.ci_lower == (before.tukey.ci_lower[k],)
            assert after.tukey.ci_upper == (before.tukey.ci_upper[k],)
            assert after.anova == before.anova  # the omnibus test over all algorithms


def test_choosing_algorithms_names_the_unknown_ones():
    names = ("a", "b", "c")
    assert contract.choose_algorithms(names, names=["c", "a"]) == [0, 2]
    with pytest.raises(ValueError, match="algorithms: not in this snapshot: 'x'"):
        contract.choose_algorithms(names, names=["a", "x"])
    with pytest.raises(ValueError, match="give one or the other"):
        contract.choose_algorithms(names, names=["a"], top=["b"])
