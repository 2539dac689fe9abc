"""The history page's "leader over versions" chart, from real stored versions: the
selector reads them (bounded by HISTORY_LIMIT), the presenter finds each one's leader and
its P(win) and draws an accessible SVG with a table of the same points."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from estimation.core.registry import estimator_get
from frontend.readers import leader_chart as chart_module
from frontend.readers.leader_chart import leader_chart
from frontend.readers.selectors import snapshot_board_version, snapshot_history_rankings
from tests.frontend.test_readers_support import computed_benchmark, refresh, submit

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"


def _three_versions():
    benchmark = computed_benchmark("toy")  # v1: alpha, beta, gamma
    submit(benchmark, "delta", {"d1": 0.95, "d2": 0.95, "d3": 0.95, "d4": 0.95})
    refresh(benchmark)  # v2: delta wins everywhere
    submit(benchmark, "epsilon", {"d1": 0.99, "d2": 0.99, "d3": 0.99, "d4": 0.99})
    refresh(benchmark)  # v3: epsilon beats delta everywhere
    return benchmark


def _stored_leader(benchmark, metric, version: int) -> tuple[str, float, str]:
    """Each version's leader read straight from its stored board (not the history)."""
    board = snapshot_board_version(benchmark=benchmark, metric=metric, version=version).board
    p = board.estimator(board.recommended).p
    best = max(v or 0.0 for v in p)
    leader = min(name for name, v in zip(board.algorithms, p, strict=True) if (v or 0.0) == best)
    return leader, best, board.recommended


def test_each_point_is_its_stored_versions_leader_and_estimate():
    benchmark = _three_versions()
    metric = benchmark.metrics.get()
    chart = leader_chart(snapshot_history_rankings(benchmark=benchmark, metric=metric))
    assert [p.version for p in chart.points] == [1, 2, 3]  # oldest first
    for point in chart.points:
        leader, probability, estimator = _stored_leader(benchmark, metric, point.version)
        assert point.leader == leader and point.estimator == estimator
        # the same stored float, read twice: equal far below the 3 decimals shown
        assert point.probability == pytest.approx(probability, abs=1e-12)
        assert point.estimator_label == estimator_get(estimator).label
    assert [p.leader for p in chart.points][1:] == ["delta", "epsilon"]
    assert [p.changed for p in chart.points] == [False, True, True] and chart.changes == 2
    assert chart.leaders == tuple(dict.fromkeys(p.leader for p in chart.points))


def test_the_svg_is_accessible_and_draws_one_dot_per_version():
    benchmark = _three_versions()
    chart = leader_chart(
        snapshot_history_rankings(benchmark=benchmark, metric=benchmark.metrics.get())
    )
    svg = ET.fromstring(chart.svg())
    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "leader-chart-title leader-chart-desc"
    assert svg.find(f"{SVG}title").text == "Leader over versions"
    desc = svg.find(f"{SVG}desc").text
    assert "Versions 1 to 3 (3 ready): the leader changed 2 times" in desc
    dots = svg.findall(f"{SVG}circle")
    assert [d.get("data-point-version") for d in dots] == ["1", "2", "3"]
    assert [d.get("data-leader") for d in dots] == [p.leader for p in chart.points]
    # A higher P(win) is drawn higher (smaller y); every dot has its sentence as a title.
    ys = [float(d.get("cy")) for d in dots]
    ps = [p.probability for p in chart.points]
    for k in range(len(dots) - 1):
        assert (ps[k + 1] > ps[k]) == (ys[k + 1] < ys[k]) or ps[k + 1] == ps[k]
    assert all(
        d.find(f"{SVG}title").text.startswith(f"v{d.get('data-point-version')}: ") for d in dots
    )


def test_the_chart_is_bounded_and_says_what_it_leaves_out(monkeypatch):
    benchmark = _three_versions()
    monkeypatch.setattr(chart_module, "MAX_CHART_VERSIONS", 2)
    chart = leader_chart(
        snapshot_history_rankings(benchmark=benchmark, metric=benchmark.metrics.get())
    )
    assert [p.version for p in chart.points] == [2, 3] and chart.older == 1


def test_the_history_page_shows_the_chart_and_its_table(client):
    _three_versions()
    page = client.get("/b/toy/history/").content.decode()
    assert 'data-testid="leader-chart"' in page and '<desc id="leader-chart-desc">' in page
    rows = re.findall(r'data-testid="leader-table-row" data-point-version="(\d+)"', page)
    assert rows == ["1", "2", "3"]
    assert "new leader" in page
    assert "stages: s" not in page
