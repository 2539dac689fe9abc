import csv
import io
import json
import re

import pytest

from frontend.readers.exports import latex_escape
from frontend.readers.presenters import competition_ranks, rank_changes
from tests.frontend.test_readers_support import (
    computed_benchmark,
    computing_snapshot,
    refresh,
    submit,
)

pytestmark = pytest.mark.django_db

CITATION = "A. Author & B. Author. A study of 100% of things. 2024."


def _history_row(page: str, version: int) -> str:
    start = page.index(f'data-version="{version}"')
    return page[start : page.index("</tr>", start)]


def test_history_lists_versions_with_rank_changes(client):
    benchmark = computed_benchmark("toy")  # v1: alpha, beta, gamma
    submit(benchmark, "delta", {"d1": 0.95, "d2": 0.95, "d3": 0.95, "d4": 0.95})
    refresh(benchmark)  # v2: delta wins everywhere
    computing_snapshot(benchmark, version=3, stage="estimators", progress=0.05)
    page = client.get("/b/toy/history/").content.decode()
    assert re.findall(r'data-testid="history-row" data-version="(\d+)"', page) == ["3", "2", "1"]
    assert "computing (estimators, 5 %)" in _history_row(page, 3)
    v2 = _history_row(page, 2)
    assert "New: delta" in v2
    assert "Moved down:" in v2 and "alpha (1 → 2)" in v2
    assert '<a href="/b/toy/v2/">v2</a>' in v2
    assert "First ready version." in _history_row(page, 1)


def test_rank_changes_with_ties_and_departures():
    assert competition_ranks({"a": 0.5, "b": 0.25, "c": 0.25, "d": 0.0}) == {
        "a": 1,
        "b": 2,
        "c": 2,
        "d": 4,
    }
    changes = rank_changes(
        previous_version=1,
        before={"a": 0.6, "b": 0.3, "c": 0.1},
        after={"b": 0.5, "a": 0.3, "new": 0.2},
    )
    assert [(m.algorithm, m.before, m.after) for m in changes.up] == [("b", 2, 1)]
    assert [(m.algorithm, m.before, m.after) for m in changes.down] == [("a", 1, 2)]
    assert changes.new == ["new"] and changes.gone == ["c"]


def _download(client, path: str):
    response = client.get(path)
    assert response.status_code == 200, path
    return response, response.content.decode()


def test_csv_export_carries_version_and_citation(client):
    computed_benchmark("toy", citation=CITATION)
    response, body = _download(client, "/b/toy/v1/export.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="toy-v1.csv"' in response["Content-Disposition"]
    # no comment lines: the version and the citation travel in headers (and the JSON)
    assert not body.startswith("#")
    assert response["X-Podium-Snapshot-Version"] == "1"
    assert response["Link"] == '<http://testserver/b/toy/v1/>; rel="cite-as"'
    assert "Podium%20snapshot%20v1" in response["X-Podium-Citation"].replace(" ", "%20")
    # a reader's header in words, the estimators by name; ?headers=keys: the API's keys
    header = next(csv.reader(io.StringIO(body)))
    assert header[:3] == ["Position", "Algorithm", "Ordered by"]
    assert "P(win): Leave-one-out weights (log loss)" in header and "Win rate" in header
    assert not {"loo_kl", "mle"} & set(header)
    _, keyed = _download(client, "/b/toy/v1/export.csv?headers=keys")
    api = client.get("/api/benchmarks/toy/snapshots/1/export.csv").content.decode()
    assert keyed == api  # byte for byte the API's machine-stable file
    assert keyed.splitlines()[1:] == body.splitlines()[1:]  # the same rows
    rows = list(csv.DictReader(io.StringIO(keyed)))
    # the page's order (P(win), then mean rank, then name), not alphabetical
    page = client.get("/b/toy/v1/").content.decode()
    on_page = re.findall(r'data-testid="leaderboard-row" data-algorithm="([^"]+)"', page)
    assert [row["algorithm"] for row in rows] == on_page
    assert {
        "loo_kl",
        "loo_kl_low",
        "loo_kl_interval",
        "mle_low",
        "rank_low",
        "plausible_winner",
        "borda",
        "plackett_luce",
        "nemenyi_group",
    } <= set(rows[0])
    assert {"position", "mean_score", "sd_score"} <= set(rows[0])
    # rounded for reading: no 17-digit floats (at most 6 significant digits)
    numbers = [v for row in rows for k, v in row.items() if k != "algorithm" and "." in v]
    assert numbers and all(len(v.replace(".", "").lstrip("-0")) <= 6 for v in numbers)


def test_json_export_carries_version_and_citation(client):
    computed_benchmark("toy", citation=CITATION)
    _, body = _download(client, "/b/toy/v1/export.json")
    data = json.loads(body)
    assert data["version"] == 1 and data["permalink"] == "http://testserver/b/toy/v1/"
    assert data["citation"] == f"{CITATION} Podium snapshot v1, http://testserver/b/toy/v1/"
    assert data["columns"][:2] == ["position", "algorithm"] and len(data["rows"]) == 3
    assert data["column_labels"][:2] == ["Position", "Algorithm"]
    assert len(data["column_labels"]) == len(set(data["column_labels"])) == len(data["columns"])
    assert data["verdict"]["leader"] == data["rows"][0]["algorithm"]
    assert data["verdict"]["sentences"] and data["estimator"] == "loo_kl"


def test_latex_export_is_a_booktabs_table_with_escaped_names(client):
    computed_benchmark(
        "toy",
        citation="Smith_2020: 50% #1",
        scores={"alpha": {"d1": 1, "d2": 2}, "C4.5+m_cf & 100%": {"d1": 3, "d2": 4}},
    )
    response, body = _download(client, "/b/toy/v1/export.tex?estimator=borda")
    assert 'filename="toy-v1.tex"' in response["Content-Disposition"]
    assert r"C4.5+m\_cf \& 100\%" in body
    assert "C4.5+m_cf & 100%" not in body
    assert "\\toprule" in body and "\\midrule" in body and "\\bottomrule" in body
    assert "Podium snapshot v1, \\url{http://testserver/b/toy/v1/}" in body
    assert r"Smith\_2020: 50\% \#1;" in body
    assert "Borda count" in body
    first_row = body.split("\\midrule\n")[1].splitlines()[0]
    # position, the rank interval (from 1: a plausible winner, starred), then the name
    assert re.match(r"1 & 1(--2)? & C4\.5\+m\\_cf \\& 100\\%\$\^\\star\$ & ", first_row), first_row
    assert "(SD)" in body  # the metric's mean and SD


def test_latex_escape_covers_every_special_character():
    assert latex_escape(r"a\b{c}~d^e$f#g_h&i%j<k>") == (
        r"a\textbackslash{}b\{c\}\textasciitilde{}d\textasciicircum{}e\$f\#g\_h\&i\%j"
        r"\textless{}k\textgreater{}"
    )


def test_exports_refuse_unknown_formats_and_unready_versions(client):
    benchmark = computed_benchmark("toy")
    computing_snapshot(benchmark, version=2)
    assert client.get("/b/toy/v1/export.xlsx").status_code == 404
    assert client.get("/b/toy/v2/export.csv").status_code == 404
    assert client.get("/b/toy/v3/export.csv").status_code == 404
