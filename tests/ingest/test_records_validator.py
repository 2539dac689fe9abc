"""Importers hand their results to the validator a results CSV's rows pass, as records:
no CSV text is written and read back, and a problem is named where it was read."""

import math

import numpy as np
import pytest

from leaderboard.ingest.formats import ResultsImportError, read_imported
from leaderboard.ingest.formats.common import Collector
from leaderboard.ingest.results_csv import (
    ResultsCsvError,
    parse_results_csv_text,
    parse_results_records,
)
from leaderboard.ingest.results_csv.parser import _Parser
from tests.ingest.helpers import fixture_files

COLUMNS = ("lines", "dataset_codes", "algorithm_codes", "values", "folds", "metric_codes")


def test_records_read_as_the_same_rows_of_a_long_file_would():
    records = [
        ("d1", "alg-a", "acc", 0, 0.9),
        ("d1", "alg-a", "acc", 1, -0.0),
        ("d1", " alg-b ", "acc", 0, 0.5),
        ("d1", " alg-b ", "acc", 1, 1e-300),
    ]
    text = "dataset,algorithm,metric,fold,score\n" + "".join(
        f"{d},{a},{m},{f},{v!r}\n" for d, a, m, f, v in records
    )
    given = parse_results_records(records, with_folds=True)
    read = parse_results_csv_text(text)
    assert (given.datasets, given.algorithms, given.metrics) == (
        read.datasets,
        read.algorithms,
        read.metrics,
    )
    assert given.algorithms == ("alg-a", "alg-b")  # stripped, as a cell is
    for column in COLUMNS:
        np.testing.assert_array_equal(getattr(given, column), getattr(read, column))
    assert math.copysign(1.0, given.values[1]) == 1.0  # -0.0 stored as zero


def test_a_bad_record_is_refused_at_its_index_as_a_line():
    records = [
        ("d1", "alg-a", "acc", None, 0.9),
        ("d\x00", "alg-a", "acc", None, 0.8),
        ("d2", "alg-a", "acc", None, math.inf),
        ("d1", "alg-a", "acc", None, 0.7),
    ]
    with pytest.raises(ResultsCsvError) as refused:
        parse_results_records(records, with_folds=False)
    assert [(e.line, e.column) for e in refused.value.errors] == [
        (3, "dataset"),
        (4, "score"),
        (5, None),  # the repeat of line 2
    ]
    assert "first given on line 2" in refused.value.errors[2].message


def test_an_importer_writes_no_csv_text(monkeypatch):
    def no_text(self, stream):
        raise AssertionError("an importer parsed CSV text")

    monkeypatch.setattr(_Parser, "parse", no_text)
    imported = read_imported(fixture_files("mteb"), format="mteb")
    assert imported.parsed.n_records > 0


def test_a_value_the_validator_refuses_is_named_at_its_file_and_key():
    collector = Collector("toy")
    collector.add(dataset="d1", algorithm="a", metric="m", value=0.5, origin="r.json: [0].score")
    collector.add(
        dataset="d2", algorithm="a", metric="m", value=math.nan, origin="r.json: [1].score"
    )
    with pytest.raises(ResultsImportError) as refused:
        collector.finish()
    (error,) = refused.value.errors
    assert error.column == "r.json: [1].score" and "not a finite number" in error.message
