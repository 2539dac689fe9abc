"""The quick read of clean files gives what the cell-by-cell read gives, and every file
it is unsure of goes to the cell-by-cell read, whose messages stay word for word."""

from __future__ import annotations

import io

import numpy as np
import pytest

from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.ingest.results_csv.clean_records import BLOCK_ROWS
from leaderboard.ingest.results_csv.parser import _Parser


class _OneWay(io.StringIO):
    """A stream that cannot be re-read: the parser reads it cell by cell only."""

    def seekable(self) -> bool:
        return False


def _parse(text: str, *, quick: bool, **options):
    stream = io.StringIO(text, newline="") if quick else _OneWay(text, newline="")
    parser = _Parser(
        format=options.pop("format", None),
        max_rows=options.pop("max_rows", None),
        max_errors=50,
        metric_check=options.pop("metric_check", None),
        incomplete=options.pop("incomplete", "refuse"),
    )
    try:
        return parser.parse(stream)
    except ResultsCsvError as exc:
        return exc


def _same(text: str, **options):
    quick = _parse(text, quick=True, **dict(options))
    slow = _parse(text, quick=False, **dict(options))
    assert type(quick) is type(slow)
    if isinstance(slow, ResultsCsvError):
        assert quick.errors == slow.errors
        assert quick.total == slow.total
        return slow
    for name in ("format", "kind", "datasets", "algorithms", "metrics", "has_folds", "dropped"):
        assert getattr(quick, name) == getattr(slow, name), name
    for name in ("lines", "dataset_codes", "algorithm_codes", "folds", "metric_codes"):
        np.testing.assert_array_equal(getattr(quick, name), getattr(slow, name), err_msg=name)
    np.testing.assert_array_equal(quick.values, slow.values)  # the same float() of the text
    return slow


def _rows(n_datasets: int, algorithms: int, folds: int) -> str:
    return "".join(
        f"ds-{d},alg {a},{(d * 7 + a * 3 + f) % 97 / 97!r},{f}\n"
        for a in range(algorithms)
        for d in range(n_datasets)
        for f in range(folds)
    )


CLEAN = "dataset,algorithm,score,fold\n" + _rows(7, 4, 3)


@pytest.mark.parametrize(
    "text",
    [
        CLEAN,
        CLEAN.replace("\n", "\r\n"),
        "dataset,algorithm,score\nd1, a ,0.5\nd2,a,1e-3\nd1,b,-2\nd2,b,3",
        "dataset,algorithm,rank\nd1,a,1\nd1,b,2\nd2,a,1.5\nd2,b,1.5\n",
        "dataset,algorithm,score,metric\nd1,a,0.5,acc\nd1,a,0.7,f1\nd1,b,0.4,acc\nd1,b,0.2,f1\n",
        "algorithm,score,dataset,fold\na,0.5,d1,0\na,0.6,d1,1\nb,0.1,d1,0\nb,0.2,d1,1\n",
    ],
)
def test_clean_files_read_the_same_both_ways(text):
    parsed = _same(text)
    assert not isinstance(parsed, ResultsCsvError)


def test_a_file_of_several_blocks_reads_the_same_both_ways():
    folds = 4
    datasets = BLOCK_ROWS // (3 * folds) + 5  # three algorithms: more than one block
    parsed = _same("dataset,algorithm,score,fold\n" + _rows(datasets, 3, folds))
    assert parsed.n_records == datasets * 3 * folds
    assert parsed.lines[0] == 2 and parsed.lines[-1] == parsed.n_records + 1


@pytest.mark.parametrize(
    "text",
    [
        CLEAN + "\n" + "ds-0,alg 9,0.5,0\n",  # a blank line
        CLEAN + "ds-0,alg 9,0.5\n",  # a field short
        CLEAN + "ds-0,alg 9,0.5,0,,\n",  # trailing empty fields
        CLEAN + 'ds-0,"alg\n9",0.5,0\n',  # a quoted line break
        CLEAN + 'ds-0,alg 9,"0,5",0\n',  # a decimal comma, quoted
        CLEAN + "ds-0,alg 9,nan,0\n",
        CLEAN + "ds-0,alg 9,1_0,0\n",
        CLEAN + "ds-0,alg 9,\uff11,0\n",  # a full-width digit
        CLEAN + "ds-0,alg 9,,0\n",
        CLEAN + "ds-0,,0.5,0\n",
        CLEAN + "ds-0,alg\x079,0.5,0\n",  # a control character
        CLEAN + "ds-0,alg\u200b9,0.5,0\n",  # an invisible one
        CLEAN + "ds-0,alg 9,0.5,\n",  # no fold on one row
        CLEAN + "ds-0,alg 9,0.5,-1\n",
        CLEAN + "ds-0,alg 9,0.5,1234567890\n",
        CLEAN + "ds-0,alg 0,0.5,0\n",  # a duplicate
        CLEAN + "ds-0,alg 9,0.5,0\n",  # a fold gap
        CLEAN + "ds-0,alg 9,0.5,0\r",  # a lone carriage return
        CLEAN + "ds-0,alg 9,0.5\x00,0\n",
        "dataset,algorithm,rank\nd1,a,1\nd1,b,0\n",
        "dataset,algorithm,rank\nd1,a,1\nd1,b,1\n",
        "dataset,algorithm,score\n",
        "dataset;algorithm;score\nd1;a;0,5\nd2;a;0,25\n",
        "dataset,algorithm,score,url\nd1,a,0.5,http://a\nd2,a,0.4,http://b\n",
    ],
)
def test_what_the_quick_read_is_unsure_of_is_read_cell_by_cell(text):
    _same(text)


def test_limits_and_checks_given_by_the_caller_apply_the_same_way():
    _same(CLEAN, max_rows=len(CLEAN.splitlines()) - 2)
    _same(CLEAN, max_rows=len(CLEAN.splitlines()) - 1)
    _same(CLEAN + "ds-0,alg 9,0.5,0\n", incomplete="drop")
    metric_file = "dataset,algorithm,score,metric\nd1,a,0.5,acc\nd1,b,0.4,acc\nd1,b,0.3,auc\n"
    _same(metric_file, metric_check=lambda name: None if name == "acc" else "no such metric")
    assert isinstance(
        _parse(metric_file, quick=True, metric_check=lambda n: n != "acc" and "no"),
        ResultsCsvError,
    )


def test_a_clean_file_is_read_once_and_a_doubtful_one_twice(monkeypatch):
    passes: list[bool] = []
    read = _Parser._parse

    def counted(self, stream, *, quick):
        passes.append(quick)
        return read(self, stream, quick=quick)

    monkeypatch.setattr(_Parser, "_parse", counted)
    _parse(CLEAN, quick=True)
    assert passes == [True]
    passes.clear()
    _parse(CLEAN + "ds-0,alg 9,nan,0\n", quick=True)
    assert passes == [True, False]
