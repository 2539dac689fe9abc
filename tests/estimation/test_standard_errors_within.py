"""lighteval's Open LLM v1 results (real files' shape, with ``acc_norm_stderr``) imported
into a benchmark: the standard errors reach the engine with the scores, and a pair whose
difference lies within their combined uncertainty is not counted as a win."""

from __future__ import annotations

import pytest

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.tables import result_table_build
from tests.ingest.helpers import lighteval_imported

pytestmark = pytest.mark.django_db

HELLASWAG = "hellaswag"


def test_lighteval_standard_errors_decide_the_within_dataset_wins():
    benchmark = lighteval_imported("lighteval-se", "--policy=moderated")
    table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get(name="acc_norm"))
    assert table.standard_errors is not None
    d = table.datasets.index(HELLASWAG)
    by_name = dict(zip(table.algorithms, table.standard_errors[d], strict=True))
    assert by_name == {
        "meta-llama/Llama-2-7b-hf": pytest.approx(0.0037, abs=5e-5),
        "tiiuae/falcon-7b": pytest.approx(0.0037, abs=5e-5),
        "mistralai/Mistral-7B-v0.1": pytest.approx(0.0037, abs=5e-5),
    }
    payload = analyze(table, AnalysisSettings(bootstrap=0), advisor=False).payload
    entry = payload.within_dataset.entry(HELLASWAG)
    assert entry is not None and entry.standard_errors is not None
    rank = dict(zip(payload.within_dataset.algorithms, entry.significance_rank, strict=True))
    # Llama-2 0.7859 and Falcon 0.7813: 0.0046 apart, z = 0.88 — not a win for either.
    # Mistral 0.8331 is beyond both.
    assert rank == {
        "mistralai/Mistral-7B-v0.1": 1.0,
        "meta-llama/Llama-2-7b-hf": 2.0,
        "tiiuae/falcon-7b": 2.0,
    }


def test_a_long_files_standard_error_column_reaches_the_table():
    from leaderboard.ingest.results_csv import parse_results_csv_text

    parsed = parse_results_csv_text(
        "dataset,algorithm,score,standard_error\nd1,a,0.8,0.01\nd1,b,0.79,\nd2,a,0.5,0.02\n"
        "d2,b,0.6,0.03\n"
    )
    table = parsed.to_table()
    assert table.standard_errors is not None
    errors = {
        (d, a): table.standard_errors[i, j]
        for i, d in enumerate(table.datasets)
        for j, a in enumerate(table.algorithms)
    }
    assert errors[("d1", "a")] == 0.01 and errors[("d2", "b")] == 0.03
    assert errors[("d1", "b")] != errors[("d1", "b")]  # NaN: none given
    bare = parse_results_csv_text("dataset,algorithm,score\nd1,a,0.8\nd1,b,0.7\n").to_table()
    assert bare.standard_errors is None
