"""A CSV's own column names mapped to the roles the parser reads (``columns``): one
syntax and one parser (parse_columns) for the command, the API and the web form,
applied in the upload service so that every entry point, the background job too (tests/api/test_upload_columns.py), reads
the file the same way."""

import pytest

from leaderboard.ingest.results_csv import UNRECOGNISED_COLUMNS, ResultsCsvError
from leaderboard.ingest.results_csv.sheets import (
    column_in_file,
    columns_text,
    header_names,
    parse_columns,
)
from leaderboard.services.uploads import UploadInput, UploadRefused, submissions_upload
from tests.factories import make_benchmark, make_submission, make_user, stored_scores

# As the AutoML Benchmark writes its results: other names, and columns beside them.
AMLB = (
    b"task,framework,fold_time,result\n"
    b"adult,lightgbm,12.5,0.91\n"
    b"adult,rf,3.1,0.88\n"
    b"\n"  # a blank line: the rows after it keep their own line numbers
    b"credit,lightgbm,9.0,0.77\n"
)
MAPPING = {"dataset": "task", "algorithm": "framework", "score": "result"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "team=framework",
            "columns: 'team' is no column role; the roles are dataset, algorithm, score, "
            "fold, metric, rank",
        ),
        (
            "dataset=task,dataset=name",
            "columns: dataset is given twice ('task' and 'name'); give each role one column",
        ),
        (
            "dataset=task,algorithm=Task",
            "columns: the column 'Task' is given to both dataset and algorithm; give each "
            "role its own column",
        ),
        ("dataset", "columns: expected role=column, got 'dataset'"),
    ],
)
def test_a_mapping_is_refused_with_its_exact_fault(text, message):
    with pytest.raises(ValueError) as refused:
        parse_columns(text)
    assert str(refused.value) == message


def test_a_mapping_reads_back_as_it_is_written():
    text = "dataset=task,algorithm=framework,score=result"
    assert parse_columns(text) == MAPPING
    assert columns_text(parse_columns(text)) == text


def test_the_header_names_are_what_a_mapping_chooses_from():
    assert header_names(AMLB) == ("task", "framework", "fold_time", "result")
    assert header_names(b"\xef\xbb\xbf\n;task;model;acc\n0;a;b;0,5\n") == ("task", "model", "acc")
    assert header_names(b"\xff\xfe not utf-8") == ()


@pytest.mark.django_db
def test_the_service_reads_a_file_through_its_mapping():
    board, user = make_benchmark(), make_user()
    with pytest.raises(ResultsCsvError) as refused:  # as it is: not a results file
        submissions_upload(benchmark=board, submitter=user, upload=UploadInput(AMLB))
    assert refused.value.errors[0].kind == UNRECOGNISED_COLUMNS

    outcome = submissions_upload(
        benchmark=board, submitter=user, upload=UploadInput(AMLB, columns=MAPPING)
    )
    assert sorted((r.dataset, r.algorithm, r.value) for r in stored_scores()) == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]
    assert outcome.read is not None
    assert outcome.read.notes == ("columns left out (not mapped): fold_time",)
    assert outcome.read.parsed.lines.tolist() == [2, 3, 5]  # the file's own lines


@pytest.mark.django_db
def test_a_mapped_file_s_problems_are_at_its_own_lines():
    bad = AMLB.replace(b"0.77", b"oops")
    with pytest.raises(ResultsCsvError) as refused:
        submissions_upload(
            benchmark=make_benchmark(),
            submitter=make_user(),
            upload=UploadInput(bad, columns=MAPPING),
        )
    # At the file's own line, in its own column (column_in_file): "result", the score.
    assert [(e.line, e.column, e.message) for e in refused.value.errors] == [
        (5, "result (the score)", "'oops' is not a number")
    ]
    assert str(refused.value) == ("line 5, column \"result (the score)\": 'oops' is not a number")
    skipped = submissions_upload(
        benchmark=make_benchmark("skip"),
        submitter=make_user("other"),
        upload=UploadInput(bad, columns=MAPPING, on_error="skip"),
    )
    assert [(e.line, e.column, e.message) for e in skipped.left_out] == [
        (5, "result (the score)", "'oops' is not a number")
    ]
    assert skipped.n_scores == 2


def test_a_problem_s_column_is_named_as_the_file_names_it():
    named = {"dataset": "Task", "score": "result"}
    assert column_in_file("dataset", named) == "Task (the dataset)"
    assert column_in_file("score", named) == "result (the score)"
    assert column_in_file("value", named) == "result (the score)"  # the services' name
    assert column_in_file("algorithm", named) == "algorithm"  # not mapped: itself
    assert column_in_file(None, named) is None
    assert column_in_file("score", {}) == "score"
    assert column_in_file("value", {"rank": "place"}) == "place (the rank)"


@pytest.mark.django_db
def test_the_benchmark_s_problems_of_a_mapped_file_name_its_columns():
    """The services' problems as well as the parser's: with a row that does not read
    (the refusal names both in one answer) and without (the services refuse alone)."""
    board, user = make_benchmark(), make_user()
    make_submission(board, "xgb", {"adult": 0.5, "credit": 0.4})
    two_spellings = AMLB.replace(b"adult,rf", b"Adult,rf")
    spelt = (
        2,
        "task (the dataset)",
        "dataset 'adult' is also spelt 'Adult' (line 3): these would be 2 different "
        "datasets; use one spelling",
    )
    with pytest.raises(UploadRefused) as refused:
        submissions_upload(
            benchmark=board, submitter=user, upload=UploadInput(two_spellings, columns=MAPPING)
        )
    assert [(p.line, p.field, p.message) for p in refused.value.problems] == [spelt]
    with pytest.raises(ResultsCsvError) as both:
        submissions_upload(
            benchmark=board,
            submitter=user,
            upload=UploadInput(two_spellings.replace(b"0.77", b"oops"), columns=MAPPING),
        )
    assert [(e.line, e.column, e.message) for e in both.value.errors] == [
        spelt,
        (5, "result (the score)", "'oops' is not a number"),
    ]


@pytest.mark.django_db
def test_a_mapped_column_the_file_lacks_is_a_problem_of_its_header():
    with pytest.raises(ResultsCsvError) as refused:
        submissions_upload(
            benchmark=make_benchmark(),
            submitter=make_user(),
            upload=UploadInput(AMLB, columns={**MAPPING, "score": "accuracy"}),
        )
    (error,) = refused.value.errors
    assert (error.line, error.column, error.kind) == (1, None, UNRECOGNISED_COLUMNS)
    assert error.message == (
        "columns: the file has no column 'accuracy' (for score); its columns are "
        "task, framework, fold_time, result"
    )
    assert not stored_scores()


@pytest.mark.parametrize("index", [False, True])
def test_mapping_a_large_file_holds_no_row_of_it(index):
    """Streamed: the peak is the output and the line numbers, a few times the file's
    size (holding each row as cells cost about 28 times it on a million rows), with a
    pandas index column and NaN cells as well."""
    import tracemalloc

    from leaderboard.ingest.results_csv.sheets import streamed_results_text

    lead = (lambda i: b"%d," % i) if index else (lambda i: b"")
    content = (
        (b"," if index else b"")
        + b"task,framework,fold_time,result\n"
        + b"".join(
            lead(i)
            + b"d%d,alg%d,1.5,%s\n" % (i // 1000, i % 1000, b"NaN" if i % 7 == 0 else b"0.%06d" % i)
            for i in range(200_000)
        )
    )
    tracemalloc.start()
    try:
        mapped = streamed_results_text(content, columns=MAPPING, nan_missing=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(mapped.source_lines) == 200_001 - len(range(0, 200_000, 7))
    assert peak < 4 * len(content), (peak, len(content))
    assert mapped.notes[0].startswith("the first column") is index
