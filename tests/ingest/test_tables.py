"""Tables as people save them (pandas' index, NaN cells, other tools' column names,
models as rows, .xlsx) import through ``import_benchmark``, with problems at the user's
own lines."""

from __future__ import annotations

import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text
from leaderboard.ingest.results_csv.sheets import (
    parse_columns,
    relocated_error,
    streamed_results_text,
    tidy_results_table,
)
from tests.factories import stored_scores
from tests.ingest.helpers import FIXTURES, tau
from tests.leaderboard.test_upload_columns import AMLB

TABLES = FIXTURES / "tables"
AMLB_COLUMNS = "dataset=task,algorithm=framework,score=result,fold=fold"
# The AMLB's own table of the fixture: frameworks by mean rank over the tasks.
AMLB_PUBLISHED = ["AutoGluon", "H2OAutoML", "flaml", "RandomForest", "constantpredictor"]


def _tidy(name: str, **options):
    path = TABLES / name
    return tidy_results_table(path.read_bytes(), filename=path.name, **options)


def test_pandas_index_column_and_nan_scores_are_understood():
    with pytest.raises(ResultsCsvError, match="'NaN' is not a finite number"):
        parse_results_csv_text(_tidy("pandas_long.csv").text)  # refused unless asked
    table = _tidy("pandas_long.csv", nan_missing=True)
    parsed = parse_results_csv_text(table.text)
    assert parsed.datasets == ("CIFAR-10", "ImageNet", "STL-10")
    assert parsed.n_records == 5  # ViT-B/16's NaN on ImageNet is a missing result
    assert table.notes == (
        "the first column (a pandas index: 0, 1, 2, ...) was left out",
        "1 rows without a score (empty or NaN) left out: lines 5",
    )


def test_amlb_columns_mapped_rank_as_the_amlb_does():
    from tests.ingest.helpers import board_order

    table = _tidy("amlb_results.csv", columns=parse_columns(AMLB_COLUMNS), nan_missing=True)
    parsed = parse_results_csv_text(table.text)
    assert parsed.has_folds
    assert "TPOT" not in parsed.algorithms  # its failed run has no result
    assert table.notes[0].startswith("columns left out (not mapped): id, constraint, type")

    class Imported:  # what board_order reads of an import
        def __init__(self, parsed):
            self.parsed = parsed

        def metric(self, name):
            return None

    assert tau(board_order(Imported(parsed), None), AMLB_PUBLISHED) == pytest.approx(1.0)


def test_models_as_rows_become_results():
    table = _tidy("models_as_rows.csv", models_as_rows=True, nan_missing=True)
    parsed = parse_results_csv_text(table.text)
    assert parsed.datasets == ("SST-2", "MRPC", "QNLI", "RTE")
    assert len(parsed.algorithms) == 4
    assert parsed.n_records == 14  # ALBERT-base has no MRPC (NaN) and no QNLI (empty)
    assert table.notes == ("1 NaN cells read as missing results",)


def test_a_problem_is_reported_at_the_users_line():
    content = b",dataset,algorithm,score\n0,a,x,0.5\n1,a,y,oops\n"
    table = tidy_results_table(content, filename="r.csv")
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(table.text)
    moved = relocated_error(caught.value, table)
    assert moved.errors[0].line == 3 and "oops" in moved.errors[0].message


def test_a_mapping_names_the_columns_the_file_lacks():
    with pytest.raises(ValueError, match="no column 'model' \\(for algorithm\\)"):
        _tidy("amlb_results.csv", columns=parse_columns("dataset=task,algorithm=model"))
    with pytest.raises(ValueError, match="'team' is no column role"):
        parse_columns("team=framework")


def test_an_xlsx_workbook_is_read(tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["dataset", "algorithm", "score"])
    sheet.append(["CIFAR-10", "ResNet-50", 0.953])
    sheet.append(["CIFAR-10", "ViT-B/16", 0.981])
    sheet.append([])
    sheet.append(["ImageNet", "ResNet-50", 0.761])
    sheet.append(["ImageNet", "ViT-B/16", "n/a"])  # a typed note, not a number
    path = tmp_path / "results.xlsx"
    book.save(path)
    table = tidy_results_table(path.read_bytes(), filename="results.xlsx")
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(table.text)
    (error,) = relocated_error(caught.value, table).errors
    assert error.line == 6  # the sheet's own row
    with pytest.raises(ResultsCsvError, match=r"not a readable \.xlsx workbook"):
        tidy_results_table(b"PK\x03\x04" + b"\x00" * 100, filename="broken.xlsx")


@pytest.mark.django_db
def test_import_benchmark_takes_columns_models_as_rows_and_xlsx(tmp_path):
    err = StringIO()
    call_command(
        "import_benchmark",
        str(TABLES / "amlb_results.csv"),
        "--slug=amlb",
        "--metric=auc",
        f"--columns={AMLB_COLUMNS}",
        "--nan=missing",
        stdout=StringIO(),
        stderr=err,
    )
    assert len(stored_scores(submission__benchmark__slug="amlb")) == 40
    assert "rows without a score (empty or NaN) left out: lines 42" in err.getvalue()
    call_command(
        "import_benchmark",
        str(TABLES / "models_as_rows.csv"),
        "--slug=glue",
        "--models-as-rows",
        "--nan=missing",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    assert len(stored_scores(submission__benchmark__slug="glue")) == 14
    call_command(
        "import_benchmark",
        str(TABLES / "pandas_long.csv"),
        "--slug=vision",
        "--nan=missing",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    assert len(stored_scores(submission__benchmark__slug="vision")) == 5
    with pytest.raises(CommandError, match="no column 'model'"):
        call_command(
            "import_benchmark",
            str(TABLES / "amlb_results.csv"),
            "--slug=bad",
            "--columns=dataset=task,algorithm=model,score=result",
            stdout=StringIO(),
            stderr=StringIO(),
        )


@pytest.mark.django_db
def test_import_benchmark_names_a_mapped_file_s_own_columns(tmp_path):
    path = tmp_path / "amlb.csv"
    columns = "--columns=dataset=task,algorithm=framework,score=result"
    path.write_bytes(AMLB.replace(b"0.77", b"oops"))
    with pytest.raises(CommandError) as refused:
        call_command("import_benchmark", str(path), "--slug=a", columns, stdout=StringIO())
    assert "line 5, column \"result (the score)\": 'oops' is not a number" in str(refused.value)
    err = StringIO()
    call_command(
        "import_benchmark",
        str(path),
        "--slug=b",
        columns,
        "--on-error=skip",
        stdout=StringIO(),
        stderr=err,
    )
    assert 'line 5, column "result (the score)"' in err.getvalue()
    # The services' problems too (two spellings of one dataset).
    path.write_bytes(AMLB.replace(b"adult,rf", b"Adult,rf"))
    with pytest.raises(CommandError) as spelt:
        call_command("import_benchmark", str(path), "--slug=c", columns, stdout=StringIO())
    assert "line 2, column \"task (the dataset)\": dataset 'adult' is also spelt" in str(
        spelt.value
    )


@pytest.mark.django_db
def test_import_benchmark_on_error_skip_imports_the_valid_rows_and_lists_the_rest(tmp_path):
    path = tmp_path / "study.csv"
    path.write_text("dataset,algorithm,score\nd1,a,0.5\nd1,b,nan\nd2,a,x\nd2,b,0.7\nd3,a\x07,0.1\n")
    with pytest.raises(CommandError):
        call_command("import_benchmark", str(path), "--slug=strict", stdout=StringIO())
    err = StringIO()
    call_command(
        "import_benchmark",
        str(path),
        "--slug=partial",
        "--on-error=skip",
        stdout=StringIO(),
        stderr=err,
    )
    assert len(stored_scores(submission__benchmark__slug="partial")) == 2
    report = err.getvalue()
    assert "left out 3 rows (line, column: problem):" in report
    assert "line 3, column \"score\": 'nan' is not a finite number" in report
    assert "line 4, column \"score\": 'x' is not a number" in report
    assert 'line 6, column "algorithm"' in report


# --- the streamed reading is the whole one -------------------------------------------------

_CELLS = st.sampled_from(
    [
        "d1",
        "d2",
        "a",
        "b",
        "0.5",
        "0.25",
        "NaN",
        "<NA>",
        "",
        " ",
        "\xa0",
        "x,y",
        "x;y",
        '"',
        "a\x85b",
    ]
)


@st.composite
def _csv_tables(draw):
    """Small CSVs as people save them: maybe pandas' index (right, or numbering rows
    wrongly), long or wide headers, NaN and empty cells, blank lines, ragged rows, a
    comma or a semicolon, lines ended by \\n, \\r\\n or \\r."""
    header = draw(
        st.sampled_from(
            [
                ["dataset", "algorithm", "score"],
                ["task", "framework", "result", "fold"],
                ["dataset", "a", "b"],
                ["dataset", "algorithm", "value", "extra"],
            ]
        )
    )
    rows = draw(st.lists(st.lists(_CELLS, min_size=1, max_size=len(header) + 1), max_size=6))
    index = draw(st.sampled_from(["none", "pandas", "wrong", "named"]))
    lines = []
    if index == "none":
        lines.append(header)
        lines += rows
    else:
        lines.append([{"pandas": "", "wrong": "", "named": "Unnamed: 0"}[index], *header])
        shift = 1 if index == "wrong" else 0
        lines += [[str(i + shift), *row] for i, row in enumerate(rows)]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(1, len(lines))), [""])  # a blank line
    out = StringIO()
    delimiter = draw(st.sampled_from([",", ";"]))
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    csv.writer(out, delimiter=delimiter, lineterminator=ending).writerows(lines)
    return out.getvalue().encode()


@settings(max_examples=300, deadline=None)
@given(
    content=_csv_tables(),
    mapped=st.booleans(),
    nan_missing=st.booleans(),
)
def test_a_streamed_csv_reads_as_the_whole_reading(content, mapped, nan_missing):
    """streamed_results_text (uploads and the command, row by row) and tidy_results_table
    (the whole file) give the parser the same rows, at the same lines, with the same notes
    and the same refusals."""
    columns = {"dataset": "task", "algorithm": "framework", "score": "result"} if mapped else None
    answers = []
    for read in (tidy_results_table, None):
        try:
            if read is None:
                table = streamed_results_text(content, columns=columns, nan_missing=nan_missing)
            else:
                table = read(content, filename="r.csv", columns=columns, nan_missing=nan_missing)
        except (ValueError, ResultsCsvError) as exc:
            answers.append(("refused", str(exc)))
            continue
        try:
            parsed = parse_results_csv_text(table.text)
            read_as = (parsed.datasets, parsed.algorithms, parsed.records, parsed.lines.tolist())
        except ResultsCsvError as exc:
            read_as = ("parser refused", str(relocated_error(exc, table)))
        answers.append((tuple(table.source_lines), table.notes, dict(table.named), read_as))
    assert answers[0] == answers[1]
