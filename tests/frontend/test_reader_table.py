"""The reader's table on the server: search, metadata filters and the column chooser,
kept in the URL; a filter hides rows of the full analysis and says so."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict

from frontend.readers.table_filters import AlgorithmFacts, parse_size, table_filter_from
from leaderboard.models import Algorithm
from tests.factories import make_pythia_board
from tests.frontend.test_readers_support import computed_benchmark

pytestmark = pytest.mark.django_db


@pytest.fixture
def lm_board():
    return make_pythia_board().slug


def _rows(page: str) -> list[str]:
    return re.findall(r'data-testid="leaderboard-row" data-algorithm="([^"]+)"', page)


def _positions(page: str) -> dict[str, str]:
    found = re.findall(
        r'data-algorithm="([^"]+)"[^>]*><td class="num secondary" data-testid="cell-position">([^<]+)<',
        page,
    )
    return dict(found)


def test_sizes_read_as_people_write_them():
    assert [parse_size(t) for t in ("350M", "7B", "1.5b", "120000", "12x")] == [
        350_000_000,
        7_000_000_000,
        1_500_000_000,
        120_000,
        None,
    ]


def test_the_filter_keeps_matching_names_and_metadata():
    query = QueryDict("q=pyth&size_min=300M&cols=family,parameters&cols=bogus")
    table_filter = table_filter_from(query)
    facts = {
        "pythia-160m": AlgorithmFacts(parameters=162_000_000),
        "pythia-1b": AlgorithmFacts(parameters=1_011_000_000),
        "gpt2": AlgorithmFacts(parameters=400_000_000),
    }
    assert table_filter.visible(facts, facts) == {"pythia-1b"}
    assert table_filter.columns == ("family", "parameters")
    assert table_filter.problems == ("unknown columns bogus (ignored)",)
    assert table_filter.url_query()["cols"] == "family,parameters"


def test_search_hides_rows_and_keeps_the_full_analysis_positions(client, lm_board):
    full = client.get("/b/pythia/").content.decode()
    assert len(_rows(full)) == 3
    positions = _positions(full)
    page = client.get("/b/pythia/?q=1b").content.decode()
    assert _rows(page) == ["EleutherAI/pythia-1b"]
    assert _positions(page)["EleutherAI/pythia-1b"] == positions["EleutherAI/pythia-1b"]
    assert "Showing 1 of 3 algorithms. The filter hides rows of the full analysis" in page
    assert "the subset is not ranked again" in page


def test_size_range_filters_by_parameter_count(client, lm_board):
    page = client.get("/b/pythia/?size_min=300M&size_max=2B").content.decode()
    assert sorted(_rows(page)) == ["EleutherAI/pythia-1b", "EleutherAI/pythia-410m"]
    bad = client.get("/b/pythia/?size_min=lots").content.decode()
    assert len(_rows(bad)) == 3 and "is not a parameter count" in bad


def test_the_column_chooser_is_kept_in_the_url_and_in_every_link(client, lm_board):
    page = client.get("/b/pythia/?cols=parameters,win_rate&q=pythia").content.decode()
    assert 'data-testid="col-parameters"' in page and 'data-testid="col-win-rate"' in page
    assert 'data-testid="col-mean-rank"' not in page  # not chosen
    assert re.search(r'data-testid="cell-parameters">1.01B<', page)
    sort_links = re.findall(r'<a class="sort" href="([^"]+)"', page)
    assert sort_links and all(
        "cols=win_rate%2Cparameters" in h and "q=pythia" in h for h in sort_links
    )
    # every box unticked: only the columns that always stay
    none = client.get("/b/pythia/?cols=").content.decode()
    assert 'data-testid="col-win-rate"' not in none and 'data-testid="col-probability"' in none


def test_the_form_works_without_javascript(client, lm_board):
    page = client.get("/b/pythia/").content.decode()
    assert '<form method="get" class="table-filter"' in page
    ticked = client.get("/b/pythia/?q=&cols=&cols=family&cols=parameters").content.decode()
    assert 'data-testid="col-parameters"' in ticked and 'data-testid="col-family"' in ticked
    assert 'data-testid="filter-note"' not in ticked  # columns alone hide no row


def test_metadata_filters_and_columns_appear_only_where_an_algorithm_has_the_value(
    client, lm_board
):
    # The Pythia files give parameter counts and (the organisation of the model id) a
    # family, never a licence: no licence filter, box or column, even when asked for.
    page = client.get("/b/pythia/?cols=licence,parameters").content.decode()
    assert 'data-testid="filter-size-min"' in page and 'data-testid="column-parameters"' in page
    assert 'data-testid="filter-family"' in page and 'data-testid="column-family"' in page
    assert 'data-testid="filter-licence"' not in page
    assert 'data-testid="column-licence"' not in page and 'data-testid="col-licence"' not in page
    assert 'data-testid="col-parameters"' in page


def test_the_filter_form_names_the_fragment_its_answer_is_swapped_from(client):
    computed_benchmark("swapped")
    live = client.get("/b/swapped/?q=a").content.decode()
    assert 'data-fragment-action="/b/swapped/board/"' in live
    version = client.get("/b/swapped/v1/?q=a").content.decode()
    assert 'data-fragment-action="/b/swapped/v1/board/"' in version
    answer = client.get("/b/swapped/v1/board/?q=zzz").content.decode()
    assert 'data-results="No results"' in answer


def test_an_algorithm_given_a_licence_shows_it_on_the_same_results_version(client, lm_board):
    assert 'data-testid="filter-licence"' not in client.get("/b/pythia/").content.decode()
    algorithm = Algorithm.objects.filter(benchmark__slug=lm_board).first()
    algorithm.licence = "Apache-2.0"
    algorithm.save()  # no new results version: the kept metadata must not outlive the edit
    page = client.get("/b/pythia/").content.decode()
    assert 'data-testid="filter-licence"' in page


def test_precision_and_open_weights_filter_and_show_as_columns(client, lm_board):
    """The lm-eval files give every Pythia model's precision (float16); open weights only
    where an algorithm says it (here set on two, the third says nothing)."""
    algorithms = Algorithm.objects.filter(benchmark__slug=lm_board)
    algorithms.filter(name="EleutherAI/pythia-1b").update(open_weights=True)
    algorithms.filter(name="EleutherAI/pythia-160m").update(open_weights=False, precision="8bit")
    page = client.get("/b/pythia/?cols=precision,open_weights").content.decode()
    assert 'data-testid="filter-precision"' in page and 'data-testid="filter-open-weights"' in page
    assert '<option value="8bit">8bit</option><option value="float16">float16</option>' in page
    cells = dict(
        re.findall(r'data-algorithm="([^"]+)".*?data-testid="cell-open-weights">([^<]+)<', page)
    )
    assert cells == {
        "EleutherAI/pythia-1b": "yes",
        "EleutherAI/pythia-160m": "no",
        "EleutherAI/pythia-410m": "–",
    }
    assert re.search(r'data-testid="cell-precision">float16<', page)

    def shown(query: str) -> list[str]:
        return sorted(_rows(client.get(f"/b/pythia/?{query}").content.decode()))

    assert shown("open_weights=yes") == ["EleutherAI/pythia-1b"]
    assert shown("open_weights=no&precision=8bit") == ["EleutherAI/pythia-160m"]
    assert shown("precision=float16") == ["EleutherAI/pythia-1b", "EleutherAI/pythia-410m"]
    bad = client.get("/b/pythia/?open_weights=maybe").content.decode()
    assert len(_rows(bad)) == 3 and "is neither yes nor no" in bad


def test_the_precision_and_open_weights_filters_are_kept_in_the_url():
    table_filter = table_filter_from(QueryDict("precision=bfloat16&open_weights=No"))
    assert table_filter.url_query() == {"precision": "bfloat16", "open_weights": "no"}
    facts = {
        "open": AlgorithmFacts(precision="bfloat16", open_weights=True),
        "closed": AlgorithmFacts(precision="bfloat16", open_weights=False),
        "unsaid": AlgorithmFacts(precision="bfloat16"),
    }
    assert table_filter.visible(facts, facts) == {"closed"}
