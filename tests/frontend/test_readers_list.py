import pytest

from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_user
from tests.frontend.test_readers_support import computed_benchmark

pytestmark = pytest.mark.django_db


def _card(page: str, slug: str) -> str:
    start = page.index(f'data-slug="{slug}"')
    return page[start : page.index("</li>", start)]


def test_cards_show_counts_and_the_latest_snapshot_time(client):
    computed_benchmark("computed-one")
    make_benchmark("empty-one")
    page = client.get("/").content.decode()
    card = _card(page, "computed-one")
    assert '<dd data-testid="count-algorithms">3</dd>' in card
    assert '<dd data-testid="count-datasets">4</dd>' in card
    assert '<dd data-testid="count-accepted">3</dd>' in card
    assert "<time datetime=" in card and " UTC</time>" in card
    assert "no results yet" in _card(page, "empty-one")


def test_search_without_javascript_keeps_the_query(client):
    make_benchmark("tabular-study")
    make_benchmark("vision-study", description="images & pixels")
    page = client.get("/?q=pixels").content.decode()
    assert 'data-slug="vision-study"' in page and 'data-slug="tabular-study"' not in page
    assert 'value="pixels"' in page and "1 benchmark," in page
    assert "No benchmark matches" in client.get("/?q=nothing-like-this").content.decode()


def test_listing_respects_visibility(client):
    make_benchmark("open-one")
    make_benchmark("hidden-link", visibility=Benchmark.Visibility.UNLISTED)
    private = make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    page = client.get("/").content.decode()
    assert "open-one" in page and "hidden-link" not in page and "secret" not in page
    maintainer = make_user("maintainer")
    private.maintainers.add(maintainer)
    client.force_login(maintainer)
    assert 'data-slug="secret"' in client.get("/").content.decode()


def test_skip_link_and_search_label(client):
    page = client.get("/").content.decode()
    assert 'class="skip-link" href="#content"' in page
    assert '<label for="benchmark-search-input">' in page


def test_cards_show_the_leader_the_board_lists_first(client):
    from estimation.selectors import snapshot_board, snapshot_latest

    benchmark = computed_benchmark("computed-one")
    make_benchmark("empty-one")
    snapshot = snapshot_latest(benchmark=benchmark)
    first = snapshot_board(snapshot=snapshot).top(1)[0]
    assert snapshot.leader == first
    page = client.get("/").content.decode()
    assert (
        f'data-testid="card-leader"><a href="/b/computed-one/algorithms/{first}/">{first}</a>'
        in _card(page, "computed-one")
    )
    assert 'data-testid="card-leader"' not in _card(page, "empty-one")
    board = client.get("/b/computed-one/").content.decode()
    assert board.index('data-testid="leaderboard-row"') == board.index(
        f'data-testid="leaderboard-row" data-algorithm="{first}"'
    )


def test_the_home_page_reads_no_payload_and_its_queries_do_not_grow_with_benchmarks(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.frontend.test_readers_support import large_payload, store_snapshot

    def home_queries() -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/").status_code == 200
        return [q["sql"] for q in queries.captured_queries]

    for i in range(2):
        store_snapshot(make_benchmark(f"board-{i}"), large_payload(4))
    few = home_queries()
    for i in range(2, 8):
        store_snapshot(make_benchmark(f"board-{i}"), large_payload(4))
    many = home_queries()
    assert len(many) == len(few) <= 6, many
    assert not any("snapshotsection" in sql.lower() for sql in many)
    page = client.get("/").content.decode()
    assert page.count('data-testid="card-leader"') == 8
