"""What readers asked for, without a browser: the verdict in the page and the API, sorting on
the server, the long scores export, the dataset index, site search and the favicon."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

from estimation.core.verdict import board_order
from estimation.selectors import snapshot_latest
from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Benchmark
from tests.factories import make_benchmark
from tests.frontend.test_readers_support import computed_benchmark, submit

pytestmark = pytest.mark.django_db


def _rows(page: str) -> list[str]:
    return re.findall(r'data-testid="leaderboard-row" data-algorithm="([^"]+)"', page)


def _board(benchmark):
    from estimation.selectors import SnapshotSections

    return SnapshotSections(snapshot_latest(benchmark=benchmark))["board"]


def test_the_verdict_is_on_the_page_in_the_fragment_and_in_the_api(client):
    benchmark = computed_benchmark("toy")
    board = _board(benchmark)
    page = client.get("/b/toy/").content.decode()
    assert 'data-testid="verdict"' in page
    assert board.verdict.sentences[0] in page.replace("&#x27;", "'")
    fragment = client.get("/b/toy/board/").content.decode()
    assert 'data-testid="verdict"' in fragment
    api = client.get("/api/benchmarks/toy/snapshots/latest/").json()
    assert api["board"]["verdict"]["sentences"] == list(board.verdict.sentences)
    assert api["board"]["scores"]["mean"][board.algorithms.index("alpha")] == pytest.approx(
        (0.9 + 0.8 + 0.1 + 0.7) / 4
    )


def test_columns_sort_on_the_server_and_unknown_ones_are_ignored(client):
    benchmark = computed_benchmark("toy")
    board = _board(benchmark)
    default = _rows(client.get("/b/toy/").content.decode())
    assert default == [board.algorithms[i] for i in board_order(board, board.recommended)]
    means = dict(zip(board.algorithms, board.scores.mean, strict=True))
    page = client.get("/b/toy/board/?sort=mean_score&order=desc").content.decode()
    assert _rows(page) == sorted(means, key=lambda a: -means[a])
    assert 'aria-sort="descending"' in page
    # the header links keep working without JavaScript: plain hrefs
    assert 'href="/b/toy/?sort=mean_score&amp;order=asc"' in page
    page = client.get("/b/toy/?sort=algorithm&order=asc").content.decode()
    assert _rows(page) == sorted(board.algorithms)
    for hostile in ("__class__", "x" * 5000, "interval", "<script>"):
        page = client.get("/b/toy/", {"sort": hostile}).content.decode()
        assert _rows(page) == default and "aria-sort" not in page


def test_the_long_scores_export_keeps_the_newest_accepted_value(client):
    benchmark = computed_benchmark("toy")
    submit(benchmark, "alpha", {"d1": 0.95})  # supersedes alpha's d1 only
    response = client.get("/b/toy/scores.csv")
    assert response.streaming and response["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(io.StringIO(b"".join(response.streaming_content).decode()))
    assert list(frame.columns) == [
        "dataset",
        "algorithm",
        "fold",
        "metric",
        "score",
        "standard_error",
    ]
    assert frame["standard_error"].isna().all()  # no source gave one
    assert len(frame) == 12  # 3 algorithms x 4 datasets, each once
    alpha = frame[frame["algorithm"] == "alpha"].set_index("dataset")["score"]
    assert alpha["d1"] == 0.95 and alpha["d2"] == 0.8
    board = _board(benchmark)
    order = [board.algorithms[i] for i in board_order(board, board.recommended)]
    assert list(dict.fromkeys(frame["algorithm"])) == order


def test_a_ranking_benchmarks_scores_export_is_a_ranking_file_that_reads_back(client):
    # Exported as "score", the ranks read back higher-is-better: the order reversed.
    ranks = {"alpha": {"d1": 1, "d2": 1, "d3": 2}, "beta": {"d1": 2, "d2": 2, "d3": 1}}
    computed_benchmark("ranked", scores=ranks, metrics=(("rank", "lower"),), ranking_only=True)
    text = b"".join(client.get("/b/ranked/scores.csv").streaming_content).decode()
    assert text.splitlines()[0] == "dataset,algorithm,rank"
    parsed = parse_results_csv_text(text)
    assert parsed.kind == "rank" and parsed.n_records == 6
    table = parsed.to_table()
    assert table.algorithms == ("alpha", "beta")
    assert table.values.tolist() == [[1.0, 2.0], [1.0, 2.0], [2.0, 1.0]]


def test_the_dataset_index_lists_the_datasets_with_their_metadata(client):
    computed_benchmark("toy")
    page = client.get("/b/toy/datasets/").content.decode()
    assert page.count('data-testid="dataset-row"') == 4
    assert 'href="/b/toy/datasets/d1/"' in page and "used" in page
    board = client.get("/b/toy/").content.decode()  # the leaderboard links its datasets
    assert 'href="/b/toy/datasets/d1/"' in board and 'href="/b/toy/datasets/"' in board
    assert client.get("/b/nothing-here/datasets/").status_code == 404


def test_site_search_finds_algorithms_and_datasets_but_not_private_ones(client):
    computed_benchmark("toy")
    private = computed_benchmark("hidden", visibility=Benchmark.Visibility.PRIVATE)
    assert private.visibility == Benchmark.Visibility.PRIVATE
    page = client.get("/", {"q": "ALPH"}).content.decode()
    assert 'data-testid="search-algorithms"' in page and 'href="/b/toy/algorithms/alpha/"' in page
    assert "/b/hidden/" not in page
    page = client.get("/", {"q": "d3"}).content.decode()
    assert 'href="/b/toy/datasets/d3/"' in page
    page = client.get("/", {"q": "<b>" + "y" * 1000}).content.decode()
    assert "<b>yyy" not in page and "&lt;b&gt;" in page


def test_favicon_and_no_inf_in_the_friedman_line(client):
    make_benchmark("empty")
    assert 'rel="icon"' in client.get("/").content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    # every dataset ranks the algorithms alike: F is infinite, and the page says so in words
    computed_benchmark(
        "alike",
        scores={
            "a": {"d1": 0.9, "d2": 0.9, "d3": 0.9},
            "b": {"d1": 0.5, "d2": 0.5, "d3": 0.5},
            "c": {"d1": 0.1, "d2": 0.1, "d3": 0.1},
        },
    )
    page = client.get("/b/alike/").content.decode()
    assert "Iman–Davenport F does not apply" in page
    text = re.sub(r"<[^>]+>", " ", page)
    assert not re.search(r"\b(inf|nan|NaN|Infinity)\b", text)
