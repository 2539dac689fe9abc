"""Formula injection: names that a spreadsheet would run land defused in every CSV export.

An algorithm named ``=cmd|'/c calc'!A1`` (or starting with ``+``, ``-``, ``@``, tab, CR)
used to start a cell unchanged. Every CSV the project writes goes through
``leaderboard.spreadsheet.csv_text``; the exports must stay readable by pandas.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.spreadsheet import FORMULA_TRIGGERS, csv_text, spreadsheet_cell
from tests.frontend.test_readers_support import computed_benchmark

ROOT = Path(__file__).resolve().parents[2]

EVIL = {
    "=cmd|'/c calc'!A1": {"d1": 0.9, "d2": 0.8, "d3": 0.1, "d4": 0.7},
    '+HYPERLINK("http://evil.example")': {"d1": 0.5, "d2": 0.9, "d3": 0.2, "d4": 0.6},
    "-2+3": {"d1": 0.1, "d2": 0.1, "d3": 0.3, "d4": 0.2},
    "@SUM(1+1)": {"d1": 0.3, "d2": 0.2, "d3": 0.5, "d4": 0.1},
    "-0.5": {"d1": 0.2, "d2": 0.3, "d3": 0.4, "d4": 0.5},
    'plain, "quoted"': {"d1": 0.4, "d2": 0.5, "d3": 0.6, "d4": 0.3},
}


def _defused(cell: str) -> bool:
    return not cell.startswith(FORMULA_TRIGGERS)


def _check_export(body: str) -> None:
    frame = pd.read_csv(io.StringIO(body), comment="#", dtype=str, keep_default_na=False)
    readable = "Algorithm" in frame  # the page's header in words, else the API's keys
    names = frame["Algorithm" if readable else "algorithm"].tolist()
    assert sorted(name.removeprefix("'") for name in names) == sorted(EVIL)
    for column in frame.columns:
        assert _defused(column)
        for cell in frame[column].tolist():
            assert _defused(cell), (column, cell)
    # Numbers stay numbers: negative values are not turned into text.
    numeric = pd.read_csv(io.StringIO(body), comment="#")
    loo_kl = "P(win): Leave-one-out weights (log loss)" if readable else "loo_kl"
    assert numeric[loo_kl].dtype.kind == "f"
    # A spreadsheet splits comment lines at commas too: no piece may start a formula.
    for line in body.splitlines():
        if line.startswith("#"):
            assert all(_defused(piece.lstrip(" ")) for piece in line.split(",")), line


@pytest.mark.django_db
def test_api_and_web_csv_exports_defuse_formulas(client):
    benchmark = computed_benchmark(
        "evil", scores=EVIL, citation="Author, =cmd|'/c calc'!A1, +1, @x"
    )
    benchmark.title = '=HYPERLINK("http://evil.example","x")'
    benchmark.save()
    for path in (
        "/api/benchmarks/evil/snapshots/latest/export.csv",
        "/api/benchmarks/evil/snapshots/1/export.csv",
        "/b/evil/v1/export.csv",
        "/b/evil/v1/export.csv?headers=keys",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        _check_export(response.content.decode())


def test_cells_keep_numbers_and_defuse_text():
    assert spreadsheet_cell(-0.5) == -0.5
    assert spreadsheet_cell(None) == ""
    assert spreadsheet_cell("=1+1") == "'=1+1"
    assert spreadsheet_cell("a=1") == "a=1"
    text = csv_text(["algorithm", "x"], [{"algorithm": "@x", "x": -1.0}])
    assert text == "algorithm,x\n'@x,-1.0\n"


# Modules whose CSV is not a download: the spreadsheet module itself (which defuses), and
# a mapped upload's columns re-encoded for the parser, read back at once and never served.
READ_BACK_ONLY = {
    Path("leaderboard/spreadsheet.py"),
    Path("leaderboard/ingest/results_csv/sheets.py"),
}


def test_no_module_writes_csv_except_the_spreadsheet_module():
    """Every CSV writer is csv_text: a new csv.writer elsewhere would skip the defusing."""
    offenders = []
    for path in ROOT.rglob("*.py"):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {".venv", "tests", "bench", "var", "node_modules"}:
            continue
        if relative in READ_BACK_ONLY:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in {"writer", "DictWriter"}:
                if isinstance(node.value, ast.Name) and node.value.id == "csv":
                    offenders.append(f"{relative}:{node.lineno}")
    assert not offenders, f"CSV written outside leaderboard/spreadsheet.py: {offenders}"


@pytest.mark.django_db
def test_the_long_scores_export_defuses_formulas_and_stays_readable(client):
    computed_benchmark("evil", scores=EVIL)
    response = client.get("/b/evil/scores.csv")
    assert response.status_code == 200 and response.streaming
    body = b"".join(response.streaming_content).decode()
    frame = pd.read_csv(io.StringIO(body), dtype=str, keep_default_na=False)
    assert list(frame.columns) == [
        "dataset",
        "algorithm",
        "fold",
        "metric",
        "score",
        "standard_error",
    ]
    assert {name.removeprefix("'") for name in frame["algorithm"]} == set(EVIL)
    for column in frame.columns:
        assert all(_defused(cell) for cell in frame[column]), column
    assert pd.read_csv(io.StringIO(body))["score"].dtype.kind == "f"
