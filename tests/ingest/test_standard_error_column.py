"""The long CSV's optional ``standard_error`` column: kept per line when given, checked
like every cell (a finite number >= 0, on a result without a fold), an empty cell none."""

from __future__ import annotations

import pytest

from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text

HEADER = "dataset,algorithm,score,standard_error\n"


def test_the_standard_errors_are_kept_by_line_and_an_empty_cell_is_none():
    parsed = parse_results_csv_text(HEADER + "d1,A,0.5,0.01\nd1,B,0.6,\nd2,A,0.7,0\n")
    assert parsed.n_records == 3
    assert dict(parsed.standard_errors) == {2: 0.01, 4: 0.0}


def test_a_file_without_the_column_has_none():
    assert dict(parse_results_csv_text("dataset,algorithm,score\nd1,A,0.5\n").standard_errors) == {}


def test_a_decimal_comma_is_read_as_in_the_scores():
    parsed = parse_results_csv_text("dataset;algorithm;score;standard_error\nd1;A;0,5;0,25\n")
    assert dict(parsed.standard_errors) == {2: 0.25}


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("-0.1", "'-0.1' is negative; a standard error is >= 0"),
        ("nan", "'nan' is not a finite number"),
        ("inf", "'inf' is not a finite number"),
        ("wide", "'wide' is not a number"),
    ],
)
def test_a_bad_standard_error_is_named_by_line_and_column(cell, message):
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(HEADER + f"d1,A,0.5,0.01\nd2,A,0.6,{cell}\n")
    assert [(e.line, e.column, e.message) for e in caught.value.errors] == [
        (3, "standard_error", message)
    ]


def test_a_standard_error_on_a_fold_is_refused():
    # Kept per dataset and metric: one spread per result, not per fold.
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text("dataset,algorithm,fold,score,standard_error\nd1,A,0,0.5,0.1\n")
    assert [(e.line, e.column) for e in caught.value.errors] == [(2, "standard_error")]
