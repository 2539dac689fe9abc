"""Issue 42: the Every Eval Ever reader reads the usual result in its document loop;
what it reads is what :func:`_result`, the reading of any result, gives: the same
ImportedResults, problems and left-out listings, on the fixtures and on odd documents."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from leaderboard.ingest.formats import ResultsImportError, eee, files_from_path
from leaderboard.ingest.formats.common import AlgorithmInfo, MetricInfo
from tests.ingest.helpers import FIXTURES

FOLDERS = ("eee", "eee-global-mmlu-lite", "eee-helm-lite", "eee-open-llm-v2")


def _result_by_result(out, reading, results, *, shared):
    for i, result in enumerate(results):
        eee._result(out, reading, i, result, shared=shared)


def _outcome(files: dict[str, bytes], **options) -> tuple:
    try:
        got = eee.read_eee(files, **options)
    except ResultsImportError as exc:
        return ("refused", [(str(e), vars(e)) for e in exc.errors], exc.total)
    listed = [(str(e), vars(e)) for e in got.left_out]
    return ("read", pickle.dumps(got), listed, got.n_left_out, got.published, list(got.origins))


def _same(files: dict[str, bytes], monkeypatch, **options) -> tuple:
    usual = _outcome(files, **options)
    with monkeypatch.context() as patched:
        patched.setattr(eee, "_results", _result_by_result)
        each = _outcome(files, **options)
    assert usual == each
    return usual


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_fixtures_read_as_result_by_result(folder, monkeypatch):
    _same(files_from_path(FIXTURES / folder), monkeypatch)
    _same(files_from_path(FIXTURES / folder), monkeypatch, on_error="skip")


ODD = (
    ("score_details", {"score": 3}),
    ("score_details", {"score": "0.5"}),
    ("score_details", {"score": float("nan")}),
    ("score_details", {"score": True}),
    ("score_details", {}),
    ("score_details", {"score": 0.5, "uncertainty": {"standard_error": {"value": 0.01}}}),
    ("score_details", {"score": 0.5, "details": {"folds": [0.4, 0.6], "tab": "Accuracy"}}),
    ("source_data", {"dataset_name": " "}),
    ("source_data", {"dataset_name": "task_00001"}),  # shared with another evaluation
    ("source_data", {"dataset_name": ["a"]}),
    ("source_data", "task"),
    ("evaluation_name", "Mean win rate"),
    ("evaluation_name", "Scenario - Accuracy"),
    ("evaluation_name", 7),
    ("metric_config", None),
    ("metric_config", {"metric_name": " acc ", "lower_is_better": True}),
    ("metric_config", {"metric_name": "", "lower_is_better": "no", "min_score": 0}),
    ("metric_config", {"metric_name": "acc", "lower_is_better": False, "min_score": False}),
    ("metric_config", {"lower_is_better": False, "min_score": 0.0, "max_score": 1}),
)


def _documents(seed: int) -> dict[str, bytes]:
    rng = random.Random(seed)
    metrics = [MetricInfo("acc", rng.choice([True, False, None]), rng.choice([None, 0.0, 0]))]
    models = [f"org/model-{j}" for j in range(3)]
    tasks = [f"task_{i:05d}" for i in range(30)]
    documents = eee.eee_documents(
        source="bench",
        retrieved="2026-12-05T00:00:00+00:00",
        metrics=metrics,
        algorithms=[AlgorithmInfo(m) for m in models],
        results={m: [(t, "acc", rng.random(), None) for t in tasks] for m in models},
    )
    for document in documents.values():
        results = document["evaluation_results"]
        if rng.random() < 0.3:  # at odds with the other files: a problem of each result
            lower = rng.choice([True, False])
            for result in results:
                result["metric_config"]["lower_is_better"] = lower
        for _ in range(rng.randint(0, 6)):
            key, value = rng.choice(ODD)
            result = results[rng.randrange(len(results))]
            result[key] = json.loads(json.dumps(value))
        if rng.random() < 0.3:  # two evaluations of one dataset, with no metric named
            first, second = rng.sample(results[:10], 2)
            second["source_data"] = dict(first["source_data"])
            for result in (first, second):
                del result["metric_config"]["metric_name"]
        if rng.random() < 0.2:
            results[rng.randrange(len(results))] = rng.choice([None, [], "x", 1])
    return {name: json.dumps(document).encode() for name, document in documents.items()}


@pytest.mark.parametrize("seed", range(40))
def test_odd_documents_read_as_result_by_result(seed, monkeypatch):
    files = _documents(seed)
    _same(files, monkeypatch)
    _same(files, monkeypatch, on_error="skip")
    _same(files, monkeypatch, on_error="skip", max_results=45)
