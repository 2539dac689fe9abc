"""Tables as people save them (pandas' index, NaN cells, other tools' column names,
models as rows, .xlsx) import through ``import_benchmark``, with problems at the user's
own lines."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text
from leaderboard.ingest.results_csv.sheets import (
    parse_columns,
    relocated_error,
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
