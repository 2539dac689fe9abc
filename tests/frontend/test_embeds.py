"""The SVG badge, the embeddable leaderboard and the framing rules; the algorithm page's
badge snippet and its losses-only worst datasets; the charts page's metric switcher."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import quote

import pytest
from django.urls import reverse

from frontend.embeds.badges import badge_markdown
from frontend.readers.presenters import leaderboard_board, leaderboard_rows
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission
from tests.frontend.explore_fixtures import demo_benchmarks  # noqa: F401
from tests.frontend.test_compare_pages import two_metric_benchmark
from tests.frontend.test_readers_support import computed_benchmark

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def _badge(slug: str, name: str) -> str:
    return reverse("embed-badge", kwargs={"slug": slug, "algorithm": name})


def test_badge_shows_the_tables_rank_and_caches(client, demo_benchmarks):  # noqa: F811
    board = demo_benchmarks["demsar-2006"]["board"]
    rows, _ = leaderboard_rows(leaderboard_board(board), board.recommended)
    second = rows[1]
    response = client.get(_badge("demsar-2006", second.algorithm))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("image/svg+xml")
    assert "max-age=300" in response["Cache-Control"] and "public" in response["Cache-Control"]
    svg = ET.fromstring(response.content)
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    # the rank interval of Board.ranks, not the table's position
    span = (
        str(second.rank_low)
        if second.rank_low == second.rank_high
        else f"{second.rank_low}–{second.rank_high}"
    )
    # the number with the interval the table shows beside it (never a bare point)
    band = f"({second.low:.2f}–{second.high:.2f})"
    assert texts[1] == (f"#{span} of {len(rows)} · P(win) {second.probability:.2f} {band} · v1")
    assert svg.find(f"{SVG}title").text.startswith(second.algorithm)
    again = client.get(_badge("demsar-2006", second.algorithm), HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again["ETag"] == response["ETag"]
    assert client.get(_badge("demsar-2006", "no such algorithm")).status_code == 404
    assert client.get(_badge("nope", second.algorithm)).status_code == 404


HOSTILE = '<script>alert(1)</script> & "x"/y ü'


def test_badge_of_a_hostile_name_is_valid_escaped_xml(client):
    computed_benchmark(
        "hostile-badge",
        scores={HOSTILE: {"d1": 0.9, "d2": 0.8}, "plain": {"d1": 0.1, "d2": 0.2}},
    )
    response = client.get(_badge("hostile-badge", HOSTILE))
    assert response.status_code == 200
    body = response.content.decode()
    assert "<script>" not in body
    svg = ET.fromstring(body)  # well-formed
    assert svg.find(f"{SVG}title").text.startswith(HOSTILE)
    # two datasets cannot separate the two: the rank interval, not a bare "#1"
    assert [t.text for t in svg.iter(f"{SVG}text")][1].startswith("#1–2 of 2")
    page = client.get(f"/b/hostile-badge/algorithms/{quote(HOSTILE, safe='')}/")
    html = page.content.decode()
    assert 'data-testid="badge-markdown"' in html and "<script>alert" not in html
    markdown = page.context["badge"]["markdown"]
    assert markdown.startswith("[![\\<script\\>alert\\(1\\)")
    assert "/b/hostile-badge/badge/" in markdown


def test_badge_markdown_keeps_urls_whole():
    text = badge_markdown(
        badge_url="https://x.test/b/s/badge/a(1).svg", page_url="https://x.test/a b", alt="a]b"
    )
    assert text == "[![a\\]b](https://x.test/b/s/badge/a%281%29.svg)](https://x.test/a%20b)"


def test_only_the_embed_may_be_framed(client, demo_benchmarks):  # noqa: F811
    embed = client.get("/b/demsar-2006/embed/")
    assert embed.status_code == 200
    assert "X-Frame-Options" not in embed
    assert "frame-ancestors *" in embed["Content-Security-Policy"]
    html = embed.content.decode()
    assert 'data-testid="leaderboard-table"' in html and '<base target="_blank">' in html
    assert "<form" not in html and "<script" not in html  # read-only, no script
    for path in (
        "/",
        "/b/demsar-2006/",
        "/b/demsar-2006/charts/",
        "/b/demsar-2006/board/",
        "/b/demsar-2006/compare/",
        "/methods/",
        "/b/demsar-2006/pareto/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response["X-Frame-Options"] == "DENY", path
        assert "frame-ancestors 'none'" in response["Content-Security-Policy"], path
    assert client.get("/b/no-such/embed/").status_code == 404


def test_worst_datasets_list_losses_only(client, demo_benchmarks):  # noqa: F811
    sections = demo_benchmarks["demsar-2006"]
    ranks = sections["rank_matrix"]
    for name in ranks.algorithms:
        page = client.get(f"/b/demsar-2006/algorithms/{quote(name, safe='')}/")
        listed = {row.dataset for row in page.context["worst"]}
        column = ranks.algorithms.index(name)
        lost = {
            d for d, row in zip(ranks.datasets, ranks.ranks, strict=True) if row[column] > min(row)
        }
        assert listed <= lost
        assert len(listed) == min(len(lost), 10)


def test_charts_page_switches_metric(client):
    two_metric_benchmark()
    page = client.get("/b/tradeoff/charts/")
    html = page.content.decode()
    assert 'data-testid="metric-selector"' in html and 'data-testid="pareto-link"' in html
    other = client.get("/b/tradeoff/charts/", {"metric": "train seconds"})
    assert other.status_code == 200
    assert other.context["metric"].name == "train seconds"
    other_html = other.content.decode()
    assert "train seconds, lower is better" in other_html
    # The grids link pairs on this metric.
    assert "/compare/" in other_html and "?metric=train+seconds" in other_html
    assert client.get("/b/tradeoff/charts/", {"metric": "nope"}).status_code == 404


def test_badge_before_any_result_says_so(client):
    benchmark = make_benchmark("fresh")
    submission = make_submission(benchmark, "first", {"d1": 0.5})
    submission_accept(submission=submission)  # the recompute is never run here
    response = client.get(_badge("fresh", "first"))
    svg = ET.fromstring(response.content)
    assert [t.text for t in svg.iter(f"{SVG}text")][1] == "no results yet"


def test_sorting_inside_the_embed_stays_in_the_embed(client, demo_benchmarks):  # noqa: F811
    """Sort links used to lead to the full page in a new tab (the embed's <base target>):
    sorting did nothing in the frame."""
    html = client.get("/b/demsar-2006/embed/").content.decode()
    links = re.findall(r'<a class="sort" href="([^"]+)"( target="_self")?', html)
    assert links and all(href.startswith("/b/demsar-2006/embed/") and own for href, own in links)
    sorted_html = client.get(links[1][0].replace("&amp;", "&")).content.decode()
    assert 'aria-sort="' in sorted_html
