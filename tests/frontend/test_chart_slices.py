"""Above the size of a critical-difference diagram, the charts page reads only the slice
of the pairwise sections its p-value grids draw, and draws exactly what the whole
sections give."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from estimation.selectors import SnapshotSections, clear_parsed_sections, snapshot_section
from frontend.explore import charts
from frontend.explore.charts.critical_difference import CD_MAX_ALGORITHMS
from frontend.explore.charts.pvalues import PVALUE_MAX_ALGORITHMS, pvalue_matrix_data
from leaderboard.services import benchmark_create
from tests.factories import cache_clear_own
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db

M = CD_MAX_ALGORITHMS + 20


@pytest.fixture
def wide():
    benchmark = benchmark_create(
        slug="wide", title="Wide", metrics=[("score", "higher")], visibility="public"
    )
    snapshot = store_snapshot(benchmark, large_payload(M, n=8, folds=3))
    cache_clear_own()
    clear_parsed_sections()
    return snapshot


def reads_body(queries, name: str) -> bool:
    return any(
        "snapshotsection" in q["sql"] and '"body"' in q["sql"] and f"'{name}'" in q["sql"]
        for q in queries
    )


def test_the_grids_from_slices_equal_the_grids_from_whole_sections(wide):
    sections = SnapshotSections(wide)
    board = sections["board"]
    assert len(board.algorithms) == M
    for test in ("nemenyi", "wilcoxon"):
        whole = snapshot_section(snapshot_id=wide.pk, name=test)
        drawn = charts.by_mean_rank(board)[:PVALUE_MAX_ALGORITHMS]
        part = sections.restricted(test, drawn)
        assert len(part.algorithms) == PVALUE_MAX_ALGORITHMS
        assert pvalue_matrix_data(board, part, test) == pvalue_matrix_data(board, whole, test)


def test_the_charts_page_reads_the_slice_not_the_whole_section(client, wide):
    with CaptureQueriesContext(connection) as queries:
        first = client.get("/b/wide/charts/")
    assert reads_body(queries.captured_queries, "nemenyi")  # cut once, on the first view
    assert first.status_code == 200
    assert f"of {M}" in first.content.decode() or str(M) in first.content.decode()
    # Another process, same shared cache: the slices come from the cache.
    clear_parsed_sections()
    sections = SnapshotSections(wide)
    with CaptureQueriesContext(connection) as queries:
        built = charts.benchmark_charts(sections)
    assert built
    assert not reads_body(queries.captured_queries, "nemenyi")
    assert not reads_body(queries.captured_queries, "wilcoxon")
