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
