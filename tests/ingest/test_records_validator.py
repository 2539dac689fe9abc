"""Importers hand their results to the validator a results CSV's rows pass, as records
(held as columns): no CSV text is written and read back, and a problem is named where it
was read."""

import math

import numpy as np
import pytest

from leaderboard.ingest.formats import ResultsImportError, read_imported
from leaderboard.ingest.formats.common import Collector, ResultRows
from leaderboard.ingest.results_csv import (
    RecordColumns,
    ResultsCsvError,
    parse_results_columns,
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
    collector.add(
        dataset="d1", algorithm="a", metric="m", value=0.5, file="r.json", key="[0].score"
    )
    collector.add(
        dataset="d2", algorithm="a", metric="m", value=math.nan, file="r.json", key="[1].score"
    )
    with pytest.raises(ResultsImportError) as refused:
        collector.finish()
    (error,) = refused.value.errors
    assert error.column == "r.json: [1].score" and "not a finite number" in error.message


def _as_columns(records, *, with_folds: bool) -> RecordColumns:
    """Records as an importer holds them: a code per name, as first seen."""
    labels: tuple[dict, dict, dict] = ({}, {}, {})
    codes = [
        np.array([labels[i].setdefault(r[i], len(labels[i])) for r in records]) for i in range(3)
    ]
    return RecordColumns(
        datasets=tuple(labels[0]),
        algorithms=tuple(labels[1]),
        metrics=tuple(labels[2]),
        dataset_codes=codes[0],
        algorithm_codes=codes[1],
        metric_codes=codes[2],
        folds=np.array([-1 if r[3] is None else r[3] for r in records]) if with_folds else None,
        values=np.array([r[4] for r in records], dtype=float),
    )


def _outcome(parse):
    try:
        parsed = parse()
    except ResultsCsvError as exc:
        return exc.total, [(e.line, e.column, e.message, e.kind) for e in exc.errors]
    columns = [getattr(parsed, column).tolist() for column in COLUMNS]
    return parsed.datasets, parsed.algorithms, parsed.metrics, parsed.has_folds, columns


@pytest.mark.parametrize(
    ("records", "with_folds"),
    [
        (
            [
                ("d1", "alg-a", "acc", 0, 0.9),
                (" d1", "alg-b ", "acc", 1, -0.0),
                ("d2", "alg-a", " acc", 0, 0.5),
                ("d2", "alg-b", "acc", 0, 1e-300),
            ],
            True,
        ),
        (
            [
                ("d1", "a", "m", None, 0.9),
                ("d\x00", "a", "m", None, 0.8),
                ("d2", "a", "m", None, math.nan),
                ("d1", "a", "m", None, 0.7),
                ("", "a", "", None, 0.1),
                ("d3", "a\u202e", "m", None, 0.2),
            ],
            False,
        ),
        (
            [("d1", "a", "m", None, 0.9), ("d2", "a", "m", 3, 0.8), ("d1", "a", "m", 10**10, 1.0)],
            True,
        ),
        (
            [("d2", "b", "m", None, 0.1), ("d1", "b", "m", None, 0.2), ("d1", "a", "m", None, 0.3)],
            False,
        ),
    ],
)
def test_records_held_as_columns_are_checked_as_the_records_are(records, with_folds):
    """Every name, value and fold rule, and the first-seen order of the names kept."""
    as_records = _outcome(lambda: parse_results_records(records, with_folds=with_folds))
    as_columns = _outcome(
        lambda: parse_results_columns(_as_columns(records, with_folds=with_folds))
    )
    assert as_columns == as_records


def _results(collector: Collector, *, rows: bool):
    """A file of two models' results, two of them repeats, one with folds and one with
    a standard error, added one at a time or a model's file at once."""
    results = {
        "m1": [("d1", "acc", 0.5, "[0]", 0.01, None), ("d2", "acc", 0.6, "[1]", None, None)],
        "m2": [
            ("d2", "acc", 0.4, "[0]", None, None),
            (" d2", "acc", 0.3, "[1]", None, None),  # a second result on d2
            ("d3", "f1", 0.2, "[2]", None, (0.1, 0.3)),
        ],
    }
    for model, found in results.items():
        if rows:
            given = ResultRows()
            for index, (dataset, metric, value, key, error, folds) in enumerate(found):
                given.datasets.append(dataset)
                given.metrics.append(metric)
                given.values.append(value)
                given.keys.append(key)
                given.standard_errors.append(error)
                if folds is not None:
                    given.folds[index] = folds
            collector.add_rows(file=f"{model}.json", algorithm=model, rows=given)
        else:
            for dataset, metric, value, key, error, folds in found:
                collector.add(
                    dataset=dataset,
                    algorithm=model,
                    metric=metric,
                    value=value,
                    folds=folds,
                    file=f"{model}.json",
                    key=key,
                    standard_error=error,
                )
    return collector.finish()


def test_a_files_rows_are_the_results_added_one_by_one():
    one_by_one = _results(Collector("toy", on_error="skip"), rows=False)
    at_once = _results(Collector("toy", on_error="skip"), rows=True)
    for imported in (one_by_one, at_once):
        assert imported.n_left_out == 1
        assert "a second result of 'm2' on 'd2'" in imported.left_out[0].message
        assert imported.left_out[0].column == "m2.json: [1]"
    parsed = (one_by_one.parsed, at_once.parsed)
    assert parsed[0].datasets == parsed[1].datasets == ("d1", "d2", "d3")
    for column in COLUMNS:
        np.testing.assert_array_equal(getattr(parsed[0], column), getattr(parsed[1], column))
    lines = parsed[0].lines.tolist()
    assert [one_by_one.where(line) for line in lines] == [at_once.where(line) for line in lines]
    assert at_once.where(lines[-1]) == "m2.json: [2] (fold 1)"
    assert one_by_one.provenance == at_once.provenance
    assert at_once.provenance["m1"]["standard_errors"] == {"d1 | acc": 0.01}


def test_the_cap_names_the_first_row_past_it():
    collector = Collector("toy", max_results=3)
    given = ResultRows()
    for index in range(3):
        given.datasets.append(f"d{index}")
        given.metrics.append("acc")
        given.values.append(0.5)
        given.keys.append(f"[{index}]")
        given.standard_errors.append(None)
    given.folds[1] = (0.4, 0.6)  # two results: the third row is the fourth result
    with pytest.raises(ResultsImportError) as refused:
        collector.add_rows(file="r.json", algorithm="m", rows=given)
    (error,) = refused.value.errors
    assert error.column == "r.json: [2]" and "at most 3 per upload" in error.message


def test_the_flag_helper_is_defined_once_and_shared():
    """Both readers index by the one ``flags_array`` of results_csv (no private copies)."""
    from leaderboard.ingest.formats import common
    from leaderboard.ingest.results_csv import flags_array, long_layout

    assert common.flags_array is long_layout.flags_array is flags_array
    assert not hasattr(common, "_flags") and not hasattr(long_layout, "_flags")
    assert flags_array([]).dtype == bool and flags_array([]).shape == (0,)
    assert flags_array([True, False]).tolist() == [True, False]
