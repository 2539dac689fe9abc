"""The results CSV parser: real published tables, every rejection, autodetection, folds."""

from __future__ import annotations

import csv
import io
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from leaderboard.ingest.results_csv import (
    INCOMPLETE_FOLDS,
    ParsedResults,
    ResultsCsvError,
    RowError,
    ScoreRecord,
    parse_results_csv,
    parse_results_csv_text,
)
from tests.reference_data import PUBLISHED_DATA as REAL

REPO = Path(__file__).resolve().parents[2]


def errors_of(content: str, **options) -> list[str]:
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(content, **options)
    return [str(error) for error in caught.value.errors]


def only_error(content: str, **options) -> str:
    messages = errors_of(content, **options)
    assert len(messages) == 1, messages
    return messages[0]


# --- real data ------------------------------------------------------------------------

DEMSAR_AUC = [
    [0.763, 0.768, 0.771, 0.798],
    [0.599, 0.591, 0.590, 0.569],
    [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657],
    [0.882, 0.888, 0.886, 0.898],
    [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685],
    [0.583, 0.583, 0.563, 0.625],
    [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000],
    [0.940, 0.962, 0.965, 0.962],
    [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975],
    [0.957, 0.978, 0.946, 0.970],
]


def test_demsar_table6_wide_gives_the_published_auc_matrix():
    parsed = parse_results_csv(REAL / "demsar2006" / "demsar2006_table6_auc.csv")
    assert parsed.format == "wide" and parsed.kind == "score"
    table = parsed.to_table()
    assert table.values.shape == (14, 4)
    assert table.algorithms == ("C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf")
    assert table.datasets[0] == "adult (sample)" and table.datasets[-1] == "wine"
    np.testing.assert_array_equal(table.values, DEMSAR_AUC)
    assert table.higher_is_better and table.fold_values is None
    assert parsed.records[0] == ScoreRecord(2, "adult (sample)", "C4.5", 0.763, None, None)


def test_demsar_printed_ranks_read_as_wide_scores():
    parsed = parse_results_csv(REAL / "demsar2006" / "demsar2006_table6_ranks_as_printed.csv")
    assert parsed.to_table().values.shape == (14, 4)


@pytest.mark.external_data("fernandez_delgado_2014")
def test_fernandez_delgado_179_wide_keeps_the_449_missing_cells(external_data):
    parsed = parse_results_csv(external_data / "fd2014_accuracy_179classifiers.csv", format="wide")
    table = parsed.to_table()
    assert table.values.shape == (121, 179)
    assert int(np.isnan(table.values).sum()) == 449
    assert parsed.n_records == 121 * 179 - 449
    assert np.nanmax(table.values) <= 100.0


def tabzilla_log_loss_long(tmp_path: Path) -> tuple[Path, dict[tuple[str, str], float]]:
    source = REAL / "tabzilla_full" / "tuned_aggregated_results.csv"
    expected = {}
    target = tmp_path / "tabzilla_log_loss.csv"
    with source.open(newline="") as src, target.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["dataset", "algorithm", "score"])
        for row in csv.DictReader(src):
            low = float(row["Log Loss__test_mean_min"])
            high = float(row["Log Loss__test_mean_max"])
            raw = low + float(row["normalized_Log Loss__test_mean"]) * (high - low)
            expected[row["dataset_name"], row["alg_name"]] = raw
            writer.writerow([row["dataset_name"], row["alg_name"], repr(raw)])
    return target, expected


def test_tabzilla_full_log_loss_long_is_104_by_18(tmp_path):
    path, expected = tabzilla_log_loss_long(tmp_path)
    parsed = parse_results_csv(path)
    assert parsed.format == "long" and not parsed.has_folds and parsed.metrics == ()
    table = parsed.to_table(higher_is_better=False)
    assert table.values.shape == (104, 18)
    assert not np.isnan(table.values).any()
    assert not table.higher_is_better
    for (dataset, algorithm), value in expected.items():
        i, j = table.datasets.index(dataset), table.algorithms.index(algorithm)
        assert table.values[i, j] == value
    assert "CatBoost" in table.algorithms and "openml__Australian__146818" in table.datasets


def test_tabzilla_top3_as_ranking_file(tmp_path):
    path = tmp_path / "top3.csv"
    with (REAL / "tabzilla_top3" / "tabzilla_table4_top3.csv").open(newline="") as src:
        published = list(csv.DictReader(src))
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["dataset", "algorithm", "rank"])
        for row in published:
            for rank, column in enumerate(("first", "second", "third"), start=1):
                writer.writerow([row["dataset"], row[column], rank])
    parsed = parse_results_csv(path)
    assert parsed.format == "ranking" and parsed.kind == "rank"
    table = parsed.to_table()
    assert table.kind == "rank"
    assert table.values.shape == (36, 18)
    assert (np.sum(~np.isnan(table.values), axis=1) == 3).all()
    np.testing.assert_array_equal(np.sort(table.values, axis=1)[:, :3], [[1, 2, 3]] * 36)
    assert np.isnan(table.values).sum() == 36 * 15
    first = published[0]
    i = table.datasets.index(first["dataset"])
    assert table.values[i, table.algorithms.index(first["first"])] == 1
    assert table.values[i, table.algorithms.index(first["third"])] == 3


# --- formats and detection --------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected_format"),
    [
        ("dataset,algorithm,score\nd,a,1\n", "long"),
        ("Algorithm,Value,DATASET\na,1,d\n", "long"),
        ("algorithm,dataset,metric,score,fold\na,d,acc,1,0\n", "long"),
        ("dataset,algorithm,rank\nd,a,1\n", "ranking"),
        ("dataset,a,b\nd,1,2\n", "wide"),
        ("x,Dataset\n1,d\n", "wide"),
    ],
)
def test_autodetection(content, expected_format):
    assert parse_results_csv_text(content).format == expected_format


def test_explicit_format_overrides_detection():
    parsed = parse_results_csv_text("dataset,algorithm,score\nd,1,2\n", format="wide")
    assert parsed.algorithms == ("algorithm", "score")


def test_long_with_bom_crlf_quotes_whitespace_and_blank_lines():
    content = (
        '\ufeff Dataset , Algorithm ,Score\r\n"iris, small", "k-NN", 0.5 \r\n\r\n,,\r\n'
        'wine,"a ""quoted"" name",1e-3\r\n'
    )
    parsed = parse_results_csv_text(content)
    assert parsed.datasets == ("iris, small", "wine")
    assert parsed.algorithms == ("k-NN", 'a "quoted" name')
    assert [record.line for record in parsed.records] == [2, 5]
    assert parsed.records[1].value == 0.001


def test_sources_path_text_stream_binary_stream_and_bytes(tmp_path):
    content = "dataset,algorithm,score\nd,a,1\nd,b,2\n"
    path = tmp_path / "r.csv"
    path.write_bytes(b"\xef\xbb\xbf" + content.encode())
    results = [
        parse_results_csv(path),
        parse_results_csv(str(path)),
        parse_results_csv(io.StringIO(content)),
        parse_results_csv(io.BytesIO(content.encode())),
        parse_results_csv_text(content.encode()),
    ]
    for parsed in results:
        np.testing.assert_array_equal(parsed.to_table().values, [[1.0, 2.0]])
    with pytest.raises(TypeError, match="parse_results_csv_text"):
        parse_results_csv(123)  # type: ignore[arg-type]


def test_semicolon_files_with_decimal_commas_as_european_excel_saves_them():
    long = parse_results_csv_text(
        '\ufeffdataset;algorithm;score\r\niris;RF;0,95\r\niris;"k;NN";1,5e-1\r\n'.encode()
    )
    assert long.format == "long" and long.algorithms == ("RF", "k;NN")
    np.testing.assert_array_equal(long.values, [0.95, 0.15])
    wide = parse_results_csv_text("\n;;\ndataset;C4.5,m;SVM\nd1;0,5;1\nd2;;2\n")
    assert wide.algorithms == ("C4.5,m", "SVM") and wide.lines.tolist() == [4, 4, 5]
    np.testing.assert_array_equal(wide.values, [0.5, 1.0, 2.0])
    # A point is a decimal point in a semicolon file too, if the file uses no comma.
    assert parse_results_csv_text("dataset;a;b\nd;0.5;1\n").values.tolist() == [0.5, 1.0]


def test_decimal_marks_and_separators_that_cannot_be_read_are_named():
    assert errors_of("dataset;algorithm;score\nd;a;0,9\nd;b;0.8\nd;c;1.234,5\nd;e;1;2\n") == [
        "line 3, column \"score\": '0.8' has a decimal point, but line 2 has a decimal comma: "
        "write every number with the same decimal mark",
        "line 4, column \"score\": '1.234,5' is not a number",
        "line 5: 4 fields, but the header has 3 (a semicolon inside a value needs quotes)",
    ]
    assert only_error('dataset,algorithm,score\nd,a,"0,9"\n') == (
        "line 2, column \"score\": '0,9' is not a number (a decimal comma is read only in "
        "files with ';' between fields: write 0.9, or save the file with semicolons)"
    )
    assert only_error("dataset\talgorithm\tscore\nd\ta\t1\n").startswith(
        "line 1: the fields of the header are separated by tabs: save the file as CSV, "
        "with commas or semicolons between fields; expected "
    )


def test_wide_empty_cell_is_missing():
    table = parse_results_csv_text("dataset,a,b\nd1,1,\nd2, ,2\n").to_table()
    np.testing.assert_array_equal(np.isnan(table.values), [[False, True], [True, False]])


def test_ranking_with_average_ranks_for_ties():
    content = "dataset,algorithm,rank\nd,a,1.5\nd,b,1.5\nd,c,3\ne,c,1\ne,a,3\ne,b,3\ne,d,3\n"
    table = parse_results_csv_text(content).to_table()
    assert table.algorithms == ("a", "b", "c", "d")
    np.testing.assert_array_equal(table.values, [[1.5, 1.5, 3, np.nan], [3, 3, 1, 3]])


# --- folds and metrics ------------------------------------------------------------------


def test_folds_give_fold_means_and_padded_fold_values():
    content = (
        "dataset,algorithm,fold,score\n"
        "d1,a,1,0.1\nd1,a,2,0.3\nd1,a,3,0.5\n"
        "d1,b,3,0.6\nd1,b,1,0.2\nd1,b,2,0.4\n"
        "d2,a,0,1.0\nd2,a,7,3.0\n"
        "d2,b,0,2.0\nd2,b,7,6.0\n"
    )
    parsed = parse_results_csv_text(content)
    assert parsed.has_folds
    table = parsed.to_table()
    assert table.fold_values.shape == (2, 3, 2)
    np.testing.assert_allclose(table.values, [[0.3, 0.4], [2.0, 4.0]])
    np.testing.assert_allclose(table.fold_values[0], [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    np.testing.assert_allclose(table.fold_values[1, :2], [[1.0, 2.0], [3.0, 6.0]])
    assert np.isnan(table.fold_values[1, 2]).all()
    np.testing.assert_allclose(np.nanmean(table.fold_values, axis=1), table.values)


def test_algorithm_missing_on_a_dataset_is_not_a_fold_error():
    content = "dataset,algorithm,score,fold\nd1,a,1,0\nd1,a,2,1\nd2,a,1,0\nd2,b,1,0\n"
    table = parse_results_csv_text(content).to_table()
    assert np.isnan(table.values[0, 1]) and np.isnan(table.fold_values[0, :, 1]).all()


def test_multi_metric_long_file_selects_one_metric():
    content = (
        "dataset,algorithm,metric,score\n"
        "d1,a,acc,0.9\nd1,b,acc,0.8\nd1,a,log loss,0.3\nd2,c,log loss,0.1\n"
    )
    parsed = parse_results_csv_text(content)
    assert parsed.metrics == ("acc", "log loss")
    acc = parsed.to_table(metric="acc")
    assert acc.datasets == ("d1",) and acc.algorithms == ("a", "b")
    loss = parsed.to_table(metric="log loss", higher_is_better=False)
    assert loss.datasets == ("d1", "d2") and loss.algorithms == ("a", "c")
    np.testing.assert_array_equal(loss.values, [[0.3, np.nan], [np.nan, 0.1]])
    with pytest.raises(ValueError, match=r"2 metrics \('acc', 'log loss'\): choose one"):
        parsed.to_table()
    with pytest.raises(ValueError, match=r"unknown metric 'f1'; the file has 'acc', 'log loss'"):
        parsed.to_table(metric="f1")
    with pytest.raises(ValueError, match="no metric column"):
        parse_results_csv_text("dataset,algorithm,score\nd,a,1\n").to_table(metric="acc")


def test_single_metric_column_needs_no_selection():
    parsed = parse_results_csv_text("dataset,algorithm,score,metric\nd,a,1,acc\n")
    assert parsed.to_table().values.shape == (1, 1)
    assert parsed.to_table(metric="acc").values.shape == (1, 1)


# --- rejections -------------------------------------------------------------------------


def test_empty_file():
    assert only_error("").startswith("line 1: the file is empty")
    assert only_error("\n\n").startswith("line 1: the file is empty")


def test_header_only_says_what_a_row_holds():
    assert only_error("dataset,algorithm,score\n") == (
        "line 1: the file has a header but no data rows: add one row per result below it"
    )
    assert only_error("dataset,algorithm,rank\n") == (
        "line 1: the file has a header but no data rows: add one row per result below it"
    )
    assert only_error("dataset,alg-a,alg-b\n") == (
        "line 1: the file has a header but no data rows: add one row per dataset below it"
    )


def test_unknown_layout_names_the_expected_headers():
    message = only_error("name,model,acc\nd,a,1\n")
    assert message.startswith("line 1: unrecognised header 'name,model,acc'")
    assert "dataset,algorithm,score[,fold][,metric] (long)" in message
    assert "dataset,algorithm,rank (ranking)" in message
    assert "dataset,<algorithm 1>,<algorithm 2>,... (wide)" in message
    assert "no score (or value) or rank column" in only_error("dataset,algorithm\nd,a\n")
    assert "unrecognised header 'dataset'" in only_error("dataset\nd\n")


LONG_LAYOUT = "long files have dataset,algorithm,score[,fold][,metric]"


def test_a_typo_in_a_long_header_is_named_once_not_read_as_a_wide_file():
    rows = "".join(f"d{i},RandomForest,0.9\nd{i},SVM,0.8\n" for i in range(1000))
    assert errors_of("dataset,algoritm,score\n" + rows) == [
        "line 1, column \"algoritm\": unknown column; did you mean 'algorithm'? "
        f"{LONG_LAYOUT} (if it is a wide file with an algorithm named 'algoritm', "
        "choose the wide format)"
    ]
    # Told it is wide, the parser reads it as wide.
    assert parse_results_csv_text("dataset,algoritm,score\nd,1,2\n", format="wide").algorithms == (
        "algoritm",
        "score",
    )


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            "dataset,algorithm,scor",
            [f"line 1, column \"scor\": unknown column; did you mean 'score'? {LONG_LAYOUT}"],
        ),
        (
            "Datasets,Algorithm,Value",
            [f"line 1, column \"Datasets\": unknown column; did you mean 'dataset'? {LONG_LAYOUT}"],
        ),
        (
            "dataset,algorithm,score,flod",
            [f"line 1, column \"flod\": unknown column; did you mean 'fold'? {LONG_LAYOUT}"],
        ),
        (
            "dataset,algorithm,rnak",
            [
                "line 1, column \"rnak\": unknown column; did you mean 'rank'? "
                "ranking files have dataset,algorithm,rank"
            ],
        ),
        (
            "datset,alg-a,alg-b",
            [
                "line 1, column \"datset\": unknown column; did you mean 'dataset'? "
                "wide files have dataset,<algorithm 1>,<algorithm 2>,..."
            ],
        ),
    ],
)
def test_header_typos_get_did_you_mean(header, expected):
    assert errors_of(header + "\nd1,a,1\n") == expected


def test_a_long_file_with_unknown_column_names_is_one_error_not_one_per_row():
    rows = "".join(f"d{i},RandomForest,0.9\nd{i},SVM,0.8\n" for i in range(1000))
    assert errors_of("dataset,model,accuracy\n" + rows) == [
        "line 2, column \"model\": 'RandomForest' is not a number, nor is any cell of this "
        "column: a header of dataset and other names is read as a wide file "
        "(dataset,<algorithm 1>,<algorithm 2>,...), each column an algorithm's scores; a long "
        f"file names its columns {LONG_LAYOUT.removeprefix('long files have ')}, a ranking "
        "file dataset,algorithm,rank"
    ]
    # A wide file with bad cells, but a number in every column, is answered cell by cell;
    # so is one whose format was given.
    assert errors_of("dataset,a,b\nd1,1,x\nd2,y,2\nd3,nan,3\n") == [
        "line 2, column \"b\": 'x' is not a number",
        "line 3, column \"a\": 'y' is not a number",
        "line 4, column \"a\": 'nan' is not a finite number",
    ]
    assert errors_of("dataset,a,b\nd1,1,x\nd2,1,y\n", format="wide") == [
        "line 2, column \"b\": 'x' is not a number",
        "line 3, column \"b\": 'y' is not a number",
    ]


def test_a_dataset_typo_in_a_wide_header_of_many_algorithms():
    header = "datset," + ",".join(f"alg-{j}" for j in range(20))
    assert errors_of(header + "\nd1" + ",0.5" * 20 + "\n") == [
        "line 1, column \"datset\": unknown column; did you mean 'dataset'? "
        "wide files have dataset,<algorithm 1>,<algorithm 2>,..."
    ]


def test_wide_algorithm_names_near_no_column_name_stay_algorithms():
    assert parse_results_csv_text("dataset,Rand,Folds\nd,1,2\n").algorithms == ("Rand", "Folds")


def test_missing_and_unexpected_columns_with_explicit_format():
    assert errors_of("dataset,algorithm\nd,a\n", format="long") == [
        'line 1, column "score": missing required column; '
        "long files have dataset,algorithm,score[,fold][,metric]"
    ]
    assert errors_of("dataset,algorithm,score\nd,a,1\n", format="ranking") == [
        'line 1, column "score": unexpected column; ranking files have dataset,algorithm,rank',
        'line 1, column "rank": missing required column; ranking files have dataset,algorithm,rank',
    ]
    assert errors_of("dataset,algorithm,score,seed\nd,a,1,0\n") == [
        'line 1, column "seed": unexpected column; '
        "long files have dataset,algorithm,score[,fold][,metric]"
    ]
    assert errors_of("dataset,algorithm,score,Score\nd,a,1,2\n") == [
        'line 1, column "Score": appears twice (columns 3 and 4)'
    ]
    assert errors_of("dataset,algorithm,score,value\nd,a,1,2\n") == [
        'line 1, column "value": both "score" and "value" columns: keep one'
    ]
    assert errors_of("model,a\nx,1\n", format="wide")[0] == (
        'line 1, column "dataset": missing required column; '
        "wide files have dataset,<algorithm 1>,<algorithm 2>,..."
    )
    with pytest.raises(ValueError, match="format must be one of long, wide, ranking or None"):
        parse_results_csv_text("dataset,a\nd,1\n", format="tall")  # type: ignore[arg-type]


def test_empty_names_and_bad_scores_are_all_reported_with_line_and_column():
    content = (
        "dataset,algorithm,score\n"  # line 1
        "d1,a,0.5\n"
        ",a,0.5\n"  # line 3
        "d1,,0.5\n"
        "d1,b,abc\n"  # line 5
        "d1,c,nan\n"
        "d1,d,inf\n"  # line 7
        "d1,e,-inf\n"
        "d1,f,Infinity\n"  # line 9
        "d1,g,\n"
        "d1,h,1_000\n"  # line 11
        "d1,i,1e999\n"
    )
    assert errors_of(content) == [
        'line 3, column "dataset": empty dataset name',
        'line 4, column "algorithm": empty algorithm name',
        "line 5, column \"score\": 'abc' is not a number",
        "line 6, column \"score\": 'nan' is not a finite number",
        "line 7, column \"score\": 'inf' is not a finite number",
        "line 8, column \"score\": '-inf' is not a finite number",
        "line 9, column \"score\": 'Infinity' is not a finite number",
        'line 10, column "score": empty score (leave the row out for a missing result)',
        "line 11, column \"score\": '1_000' is not a number (write numbers in ASCII digits "
        "with a '.' decimal point, e.g. 0.5 or 1e-3)",
        "line 12, column \"score\": '1e999' is not a finite number",
    ]


def test_column_names_are_quoted_as_written_in_the_header():
    assert only_error("Dataset,Algorithm,Value\nd,a,x\n") == (
        "line 2, column \"Value\": 'x' is not a number"
    )


def test_wrong_field_count_and_malformed_csv():
    content = 'dataset,algorithm,score\nd,a,0,5\nd,b\nd,c,1,,\n"d,e,1\n'
    assert errors_of(content) == [
        "line 2: 4 fields, but the header has 3 (a comma inside a value needs quotes)",
        "line 3: 2 fields, but the header has 3",
        "line 5: malformed CSV: unexpected end of data (a quote opened here is never closed)",
    ]
    assert only_error('dataset,algorithm,score\nd,"a" ,1\n') == (
        "line 2: malformed CSV: ',' expected after '\"' (a quoted field must end with the quote: "
        "nothing, not even a space, may follow it)"
    )


def test_invalid_utf8_names_the_line():
    assert only_error(b"dataset,a\nd1,1\nd\xe9,2\n") == (
        "line 3: the file is not valid UTF-8 text: save it as UTF-8 CSV"
    )


def test_duplicate_record_names_the_first_occurrence():
    content = "dataset,algorithm,score\nd,a,1\nd,b,1\ne,a,1\nd,a,2\nd,a,3\n"
    assert errors_of(content) == [
        'line 5: duplicate result for dataset "d", algorithm "a": first given on line 2',
        'line 6: duplicate result for dataset "d", algorithm "a": first given on line 2',
    ]
    content = (
        "dataset,algorithm,score,fold,metric\nd,a,1,0,acc\nd,a,1,1,acc\nd,a,1,0,f1\nd,a,2,1,acc\n"
    )
    assert only_error(content) == (
        'line 5: duplicate result for dataset "d", algorithm "a", fold 1, metric "acc": '
        "first given on line 3"
    )


def test_duplicate_dataset_row_in_wide_format():
    assert only_error("dataset,a,b\nd,1,2\ne,1,2\nd,3,4\n") == (
        'line 4, column "dataset": dataset "d" already given on line 2'
    )


def test_duplicate_and_unnamed_algorithm_columns_in_wide_format():
    assert errors_of("dataset,a,b,a,\nd,1,2,3,4\n") == [
        'line 1, column "a": duplicate algorithm column (columns 2 and 4)',
        "line 1: column 5 has no name (an algorithm is expected)",
    ]


def test_wide_bad_cells_name_the_algorithm_column():
    assert errors_of("dataset,a,b\nd,1,x\ne,nan,2\n") == [
        "line 2, column \"b\": 'x' is not a number",
        "line 3, column \"a\": 'nan' is not a finite number",
    ]


def test_fold_must_be_a_non_negative_integer():
    content = (
        "dataset,algorithm,score,fold\nd,a,1,0\nd,a,1,-1\nd,a,1,1.0\nd,a,1,one\nd,a,1,²\n"
        "d,a,1,12345678901234567890\n"
    )
    assert errors_of(content) == [
        "line 3, column \"fold\": '-1' is not a non-negative integer",
        "line 4, column \"fold\": '1.0' is not a non-negative integer",
        "line 5, column \"fold\": 'one' is not a non-negative integer",
        "line 6, column \"fold\": '²' is not a non-negative integer",
        "line 7, column \"fold\": '12345678901234567890' is too large for a fold number",
    ]


def test_rows_with_and_without_fold_are_rejected():
    content = "dataset,algorithm,score,fold\nd,a,1,0\nd,b,1,\nd,c,1,\n"
    assert only_error(content) == (
        'line 3, column "fold": no fold given, but other rows have one (first on line 2): '
        "give a fold on every row or on none"
    )


def test_an_empty_fold_column_means_no_folds():
    parsed = parse_results_csv_text("dataset,algorithm,score,fold\nd,a,1,\nd,b,2,\n")
    assert not parsed.has_folds and parsed.to_table().fold_values is None


def test_rows_with_and_without_metric_are_rejected():
    content = "dataset,algorithm,score,metric\nd,a,1,\nd,b,1,acc\n"
    assert only_error(content) == (
        'line 2, column "metric": no metric given, but other rows name one (first on line 3): '
        "name a metric on every row or on none"
    )


FOLD_ADVICE = (
    ", which other algorithms have there: every algorithm of a dataset needs the same folds; "
    "add the missing rows, or leave out this algorithm's rows for this dataset"
)


def test_inconsistent_folds_say_which_algorithm_lacks_which_folds():
    content = (
        "dataset,algorithm,score,fold\n"
        "d1,a,1,0\nd1,a,1,1\nd1,a,1,2\n"
        "d1,b,1,0\n"  # line 5: b lacks 1 and 2
        "d1,c,1,0\nd1,c,1,1\nd1,c,1,2\nd1,c,1,3\n"  # c adds fold 3
        "d2,a,1,5\nd2,b,1,5\n"  # consistent on its own
    )
    assert errors_of(content) == [
        f'line 2, column "fold": algorithm "a" on dataset "d1" lacks fold 3{FOLD_ADVICE}',
        f'line 5, column "fold": algorithm "b" on dataset "d1" lacks folds 1, 2, 3{FOLD_ADVICE}',
    ]
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(content)
    assert {error.kind for error in caught.value.errors} == {INCOMPLETE_FOLDS}


def test_incomplete_drop_leaves_out_the_algorithm_on_that_dataset_only():
    content = (
        "dataset,algorithm,score,fold\n"
        "d1,a,0.1,0\nd1,a,0.3,1\nd1,b,0.2,0\n"  # line 4: b lacks fold 1 on d1
        "d2,a,1,0\nd2,b,2,0\n"
    )
    parsed = parse_results_csv_text(content, incomplete="drop")
    assert [str(error) for error in parsed.dropped] == [
        'line 4, column "fold": algorithm "b" on dataset "d1" lacks fold 1: '
        "its results there are left out"
    ]
    assert parsed.n_dropped == 1 and parsed.lines.tolist() == [2, 3, 5, 6]
    table = parsed.to_table()
    np.testing.assert_allclose(table.values, [[0.2, np.nan], [1.0, 2.0]])
    with pytest.raises(ValueError, match="read-only"):
        parsed.values[0] = 2.0
    complete = content.replace("d1,b,0.2,0\n", "d1,b,0.2,0\nd1,b,0.4,1\n")
    assert parse_results_csv_text(complete, incomplete="drop").dropped == ()
    assert only_error("dataset,algorithm,score,fold\nd,a,1,0\nd,b,1,1\n", incomplete="drop") == (
        "line 1: no results left: every one lacks folds"
    )
    with pytest.raises(ValueError, match="incomplete must be one of refuse, drop, got 'keep'"):
        parse_results_csv_text(content, incomplete="keep")  # type: ignore[arg-type]


def test_inconsistent_folds_are_checked_per_metric():
    content = (
        "dataset,algorithm,score,fold,metric\nd,a,1,0,acc\nd,b,1,0,acc\nd,a,1,1,ll\nd,b,1,2,ll\n"
    )
    assert errors_of(content) == [
        f'line 4, column "fold": algorithm "a" on dataset "d" (metric "ll") lacks fold 2{FOLD_ADVICE}',
        f'line 5, column "fold": algorithm "b" on dataset "d" (metric "ll") lacks fold 1{FOLD_ADVICE}',
    ]


def test_rank_must_be_a_positive_number():
    content = "dataset,algorithm,rank\nd,a,0\nd,b,-1\nd,c,first\nd,e,\nd,f,nan\n"
    assert errors_of(content) == [
        "line 2, column \"rank\": '0' is not a positive number (1 = best)",
        "line 3, column \"rank\": '-1' is not a positive number (1 = best)",
        "line 4, column \"rank\": 'first' is not a number",
        'line 5, column "rank": empty rank',
        "line 6, column \"rank\": 'nan' is not a finite number",
    ]


RULE = (
    "(ranks fill positions 1, 2, ... in order; tied algorithms share the mean of their positions)"
)


def test_inconsistent_ranks_per_dataset():
    content = (
        "dataset,algorithm,rank\n"
        "tie,a,1\ntie,b,1\n"  # lines 2-3: a tie for first must be 1.5, 1.5
        "gap,a,1\ngap,b,3\n"  # line 5: position 2 skipped
        "cut,a,1\ncut,b,2\ncut,c,3.5\n"  # line 8: half of a tie for 3..4
        "late,a,2\n"  # line 9: no first place
        "fine,a,1\nfine,b,2\nfine,c,3\n"
    )
    assert errors_of(content) == [
        'line 2, column "rank": dataset "tie": 2 algorithms share rank 1 (lines 2, 3); '
        f"a tie for positions 1..2 is written as rank 1.5 for each {RULE}",
        f'line 5, column "rank": dataset "gap": rank 3 after positions 1..1, expected 2 {RULE}',
        f'line 8, column "rank": dataset "cut": rank 3.5 after positions 1..2, expected 3 {RULE}',
        f'line 9, column "rank": dataset "late": rank 2 as the best listed rank, expected 1 {RULE}',
    ]


def test_duplicate_ranking_record():
    assert only_error("dataset,algorithm,rank\nd,a,1\nd,a,2\n") == (
        'line 3: duplicate result for dataset "d", algorithm "a": first given on line 2'
    )


def test_too_many_rows():
    content = "dataset,algorithm,score\n" + "".join(f"d,a{i},1\n" for i in range(6))
    assert parse_results_csv_text(content, max_rows=6).n_records == 6
    assert only_error(content, max_rows=5) == ("line 7: too many rows: at most 5 data rows allowed")
    with pytest.raises(ValueError, match="max_rows must be a positive integer"):
        parse_results_csv_text(content, max_rows=0)


def test_errors_are_capped_with_a_count_of_the_rest():
    content = "dataset,algorithm,score\n" + "".join(f"d,a{i},x\n" for i in range(60))
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(content, max_errors=5)
    error = caught.value
    assert len(error.errors) == 5 and error.total == 60 and error.n_more == 55
    assert str(error).splitlines()[0] == "60 errors in the results file:"
    assert str(error).splitlines()[-1] == "  ... and 55 more"
    assert isinstance(error, ValueError)
    with pytest.raises(ResultsCsvError) as default_cap:
        parse_results_csv_text(content)
    assert len(default_cap.value.errors) == 50 and default_cap.value.n_more == 10


def test_error_objects():
    assert str(RowError(7, "score", "'abc' is not a number")) == (
        "line 7, column \"score\": 'abc' is not a number"
    )
    assert str(RowError(1, None, "empty")) == "line 1: empty"
    error = ResultsCsvError([RowError(3, None, "b"), RowError(2, "x", "a")], 4)
    assert [e.line for e in error.errors] == [2, 3]
    copy = pickle.loads(pickle.dumps(error))
    assert copy.errors == error.errors and copy.total == 4 and str(copy) == str(error)


def test_parsed_results_columns_are_read_only():
    parsed = parse_results_csv_text("dataset,algorithm,score\nd,a,1\n")
    assert isinstance(parsed, ParsedResults)
    with pytest.raises(ValueError, match="read-only"):
        parsed.values[0] = 2.0


def test_module_imports_without_django():
    code = (
        "import sys, leaderboard.ingest.results_csv\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery')]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_duplicate_errors_are_capped_too():
    content = "dataset,algorithm,score\n" + "d,a,1\n" * 100
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(content, max_errors=3)
    assert caught.value.total == 99 and len(caught.value.errors) == 3
    assert str(caught.value.errors[0]) == (
        'line 3: duplicate result for dataset "d", algorithm "a": first given on line 2'
    )


def test_a_license_column_in_us_spelling_is_the_licence_column():
    parsed = parse_results_csv_text("dataset,algorithm,score,License\nd1,a,0.5,MIT\nd2,a,0.6,MIT\n")
    assert parsed.algorithm_metadata == {"a": {"licence": "MIT"}}
    # One column under both spellings is one column given twice, never two licences.
    assert errors_of("dataset,algorithm,score,license,licence\nd1,a,0.5,MIT,MIT\n") == [
        'line 1, column "licence": appears twice (columns 4 and 5)'
    ]
