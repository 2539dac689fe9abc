"""Per-dataset score columns in the reader's table: chosen with ``ds`` in the URL (at
most ``MAX_DATASET_COLUMNS``), server-rendered, sortable, each score the analysis's own
dataset-level value (the engine's fold mean) at the metric's display precision, read
from the version's snapshot: a later submission changes a new version's columns, never
an old version's."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from estimation.models import ResultSnapshot, SnapshotSection
from estimation.selectors import clear_parsed_sections
from frontend.readers.table_filters import MAX_DATASET_COLUMNS, table_filter_from
from frontend.selectors import dataset_scores_now, version_dataset_scores
from leaderboard.models import Benchmark
from tests.factories import make_mteb_board, make_user
from tests.frontend.test_readers_support import computed_benchmark, refresh, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def mteb_board() -> Benchmark:
    return make_mteb_board()


def _rows(page: str) -> list[str]:
    return re.findall(r'data-testid="leaderboard-row" data-algorithm="([^"]+)"', page)


def _cells(page: str, testid: str) -> list[str]:
    return re.findall(rf'data-testid="cell-{testid}">([^<]*)<', page)


def _datasets(benchmark: Benchmark) -> list[str]:
    return sorted(dataset_scores_now(benchmark=benchmark, metric=benchmark.metrics.first()))


def _latest(benchmark: Benchmark) -> ResultSnapshot:
    return ResultSnapshot.objects.filter(
        benchmark=benchmark, status=ResultSnapshot.Status.READY
    ).latest("version")


def test_chosen_scores_are_the_analysis_dataset_level_values(mteb_board):
    metric = mteb_board.metrics.first()
    whole = dataset_scores_now(benchmark=mteb_board, metric=metric)  # the engine's input now
    chosen = tuple(sorted(whole)[:2])
    snapshot = _latest(mteb_board)
    clear_parsed_sections()
    with CaptureQueriesContext(connection) as queries:
        scores = version_dataset_scores(snapshot_id=snapshot.pk, datasets=chosen)
    assert len(queries) <= 2  # the section's etag, then its body once per process
    with CaptureQueriesContext(connection) as again:
        assert version_dataset_scores(snapshot_id=snapshot.pk, datasets=chosen) == scores
    assert len(again) <= 1  # parsed already: the etag only
    assert set(scores) == set(chosen)
    for dataset in chosen:
        assert set(scores[dataset]) == set(whole[dataset])
        for algorithm, value in whole[dataset].items():
            # the same fold means of the same table, through JSON (which keeps a double's
            # 17 digits): equal to the bit
            assert scores[dataset][algorithm] == value


def test_a_version_page_keeps_the_scores_its_analysis_ranked(client):
    benchmark = computed_benchmark("kept")  # alpha scored 0.9 on d1 in version 1
    submit(benchmark, "alpha", {"d1": 0.35})  # a later accepted submission supersedes it
    refresh(benchmark)
    assert _latest(benchmark).version == 2

    def alpha_on_d1(path: str) -> tuple[str, str]:
        page = client.get(f"{path}?ds=d1").content.decode()
        row = page.index('data-algorithm="alpha"')
        cell = re.search(r'data-testid="cell-dataset-1">([^<]*)<', page[row:]).group(1)
        title = re.search(r'data-testid="col-dataset-1"[^>]*title="([^"]*)"', page)
        return cell, title.group(1)

    old, old_title = alpha_on_d1("/b/kept/v1/")
    assert float(old) == pytest.approx(0.9, abs=1e-9)
    assert "version&#x27;s analysis ranked" in old_title and "accepted now" not in old_title
    assert float(alpha_on_d1("/b/kept/v2/")[0]) == pytest.approx(0.35, abs=1e-9)
    assert float(alpha_on_d1("/b/kept/")[0]) == pytest.approx(0.35, abs=1e-9)


def test_a_version_without_stored_scores_shows_dashes_and_says_why(client):
    benchmark = computed_benchmark("older")
    SnapshotSection.objects.filter(snapshot=_latest(benchmark), name="dataset_scores").delete()
    clear_parsed_sections()
    page = client.get("/b/older/v1/?ds=d1").content.decode()
    assert _cells(page, "dataset-1") == ["–", "–", "–"]
    assert "not stored with this version" in page


def test_a_dataset_column_is_rendered_sorted_and_kept_in_every_link(client, mteb_board):
    first, second = _datasets(mteb_board)[:2]
    metric = mteb_board.metrics.first()
    whole = dataset_scores_now(benchmark=mteb_board, metric=metric)
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
    assert f'<input type="checkbox" name="ds" value="{first}" checked' in page


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


def test_dataset_columns_cost_one_query_whatever_the_board(client):
    # Rendered (a private board read by its maintainer: the page cache keeps none), the
    # chosen columns read one section of the snapshot: its etag, and its body the first
    # time a process reads this version; so one query more than the plain page, for any
    # m, n and choice.
    benchmark = computed_benchmark("cost")
    maintainer = make_user("cost-maintainer")
    benchmark.maintainers.add(maintainer)
    Benchmark.objects.filter(pk=benchmark.pk).update(visibility=Benchmark.Visibility.PRIVATE)
    client.force_login(maintainer)
    clear_parsed_sections()
    statements = []
    # (the first request reads what later ones find cached: the algorithms' metadata)
    pages = ("", "", "?ds=d1", "?ds=d1", "?ds=d1&ds=d2&ds=d3&ds=d4&sort=dataset_2&order=desc")
    for query in pages:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/b/cost/{query}").status_code == 200
        statements.append([q["sql"] for q in queries.captured_queries])
    _, plain, first, again, four = (len(sql) for sql in statements)
    shown = "\n\n".join("\n".join(sql) for sql in statements[1:])
    assert first == plain + 2, shown  # the etag, then the body once
    assert again == four == plain + 1, shown
