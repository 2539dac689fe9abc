"""The charts page of a 130-algorithm board stays under its weight budget
(< 300 kB of HTML), with every chart still drawn and its numbers in a table."""

from __future__ import annotations

import re

import pytest

from estimation.selectors import clear_parsed_sections
from leaderboard.services import benchmark_create
from tests.factories import cache_clear_own
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db

M = 130
BUDGET = 300_000  # bytes of HTML, the page's weight budget


def figure_sizes(html: str) -> dict[str, int]:
    starts = [
        (m.start(), m.group(1))
        for m in re.finditer(r'<figure class="chart" id="chart-([^"]+)"', html)
    ]
    return {key: html.find("</figure>", start) - start for start, key in starts}


def test_the_charts_page_of_130_algorithms_is_under_300_kb(client):
    benchmark = benchmark_create(
        slug="huge", title="Huge", metrics=[("score", "higher")], visibility="public"
    )
    store_snapshot(benchmark, large_payload(M, n=30, folds=5))
    cache_clear_own()
    clear_parsed_sections()
    response = client.get("/b/huge/charts/")
    assert response.status_code == 200
    html = response.content.decode()
    sizes = figure_sizes(html)
    print(len(html), sizes)  # the table in bench/README.md (run with -s)
    assert {"pvalues-wilcoxon", "pvalues-nemenyi", "rank-heatmap"} <= set(sizes)
    assert len(html) < BUDGET, sizes
