"""Per-dataset score columns in the reader's table: chosen with ``ds`` in the URL (at
most ``MAX_DATASET_COLUMNS``), server-rendered, sortable, each score the analysis's own
dataset-level value (the engine's fold mean) at the metric's display precision."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from frontend.explore.selectors import dataset_level_scores
from frontend.readers.selectors import dataset_column_scores
from frontend.readers.table_filters import MAX_DATASET_COLUMNS, table_filter_from
from leaderboard.models import Benchmark
from tests.factories import make_mteb_board

pytestmark = pytest.mark.django_db


@pytest.fixture
def mteb_board() -> Benchmark:
    return make_mteb_board()


def _rows(page: str) -> list[str]:
    return re.findall(r'data-testid="leaderboard-row" data-algorithm="([^"]+)"', page)


def _cells(page: str, testid: str) -> list[str]:
    return re.findall(rf'data-testid="cell-{testid}">([^<]*)<', page)


def _datasets(benchmark: Benchmark) -> list[str]:
    return sorted(dataset_level_scores(benchmark=benchmark, metric=benchmark.metrics.first()))


def test_chosen_scores_are_the_analysis_dataset_level_values(mteb_board):
    metric = mteb_board.metrics.first()
    whole = dataset_level_scores(benchmark=mteb_board, metric=metric)  # the engine's table
    chosen = tuple(sorted(whole)[:2])
    with CaptureQueriesContext(connection) as queries:
        scores = dataset_column_scores(benchmark=mteb_board, metric=metric, datasets=chosen)
    assert len(queries) == 1  # the chosen datasets' scores only, in one query
    assert set(scores) == set(chosen)
    for dataset in chosen:
        assert set(scores[dataset]) == set(whole[dataset])
        for algorithm, value in whole[dataset].items():
            # the same fold mean (Neumaier, rounded to 15 digits) of the same folds: equal
            # to well within 1e-12 relative, far below the 3-6 digits shown
            assert scores[dataset][algorithm] == pytest.approx(value, rel=1e-12, abs=0)


def test_a_dataset_column_is_rendered_sorted_and_kept_in_every_link(client, mteb_board):
    first, second = _datasets(mteb_board)[:2]
    metric = mteb_board.metrics.first()
    whole = dataset_level_scores(benchmark=mteb_board, metric=metric)
    query = urlencode([("ds", first), ("ds", second)])
    page = client.get(f"/b/mteb/?{query}").content.decode()
    assert 'data-testid="col-dataset-1"' in page and 'data-testid="col-dataset-2"' in page
    assert f">{first}<" in page  # the header is the dataset's name
    names = _rows(page)
    digits = len(_cells(page, "mean-score")[0].split(" ")[0].split(".")[1])
    shown = _cells(page, "dataset-1")
    assert shown == [f"{whole[first][name]:.{digits}f}" for name in names]
    # Sorting by the column: its better way first (higher is better here), on the server.
    sort_link = re.search(r'href="([^"]+)"[^>]*data-testid="sort-dataset-1"', page).group(1)
    assert "ds=" in sort_link and "sort=dataset_1" in sort_link
    ranked = client.get(sort_link.replace("&amp;", "&")).content.decode()
    expected = sorted(names, key=lambda name: -whole[first][name])
    assert _rows(ranked) == expected
    assert 'aria-sort="descending"' in ranked
    # The choice stays in the estimator, pagination and sort links and the form.
    assert re.search(r'href="/b/mteb/\?ds=[^"]*&amp;ds=[^"]*estimator=', page)
    assert f'<option value="{first}" selected>' in page


def test_too_many_datasets_are_capped_with_a_message(client, mteb_board):
    names = _datasets(mteb_board)
    assert len(names) >= 2
    # every real dataset twice (a repeat counts once), then unknown names past the bound
    asked = names + names + [f"nope-{i}" for i in range(MAX_DATASET_COLUMNS + 2)]
    page = client.get("/b/mteb/?" + urlencode([("ds", n) for n in asked])).content.decode()
    kept = min(len(names), MAX_DATASET_COLUMNS)
    assert page.count('data-testid="col-dataset-') == kept
    assert f"at most {MAX_DATASET_COLUMNS} dataset columns: the first {MAX_DATASET_COLUMNS}" in page


def test_the_parser_bounds_what_it_reads():
    # Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) parameters; below
    # that, 900 ds cost what 100 do, and at most MAX_DATASET_COLUMNS are kept.
    query = QueryDict(urlencode([("ds", f"d{i}") for i in range(900)]))
    table_filter = table_filter_from(query)
    assert len(table_filter.datasets) == MAX_DATASET_COLUMNS
    assert table_filter.datasets == tuple(f"d{i}" for i in range(MAX_DATASET_COLUMNS))
    assert f"at most {MAX_DATASET_COLUMNS} dataset columns" in table_filter.problems[0]
    long = table_filter_from(QueryDict(urlencode([("ds", "x" * 5000)])))
    assert long.datasets == ("x" * 200,)


def test_an_unknown_or_hidden_dataset_is_ignored_and_said(client, mteb_board):
    page = client.get("/b/mteb/?ds=irsi&ds=%3Cscript%3E").content.decode()
    assert 'data-testid="col-dataset-' not in page
    assert "no dataset irsi, &lt;script&gt; in these results (ignored)" in page
    assert "<script>" not in page.split("</head>", 1)[1].replace('<script src="', "").replace(
        '<script id="', ""
    )
