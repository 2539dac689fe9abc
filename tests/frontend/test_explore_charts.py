"""The server-side SVG charts on the three demos' typed sections (no page rendering)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from estimation.core.contract import NotApplicable, section_from_json, to_json
from estimation.core.registry import estimator_get
from estimation.core.verdict import win_band
from frontend.explore import charts
from tests.frontend.explore_fixtures import demo_benchmarks  # noqa: F401

SVG = "{http://www.w3.org/2000/svg}"
SLUGS = ["demsar-2006", "tabzilla-hard-top3", "simulated-new-vs-old"]

CHART_FUNCTIONS = {
    "cd-nemenyi": lambda s: charts.critical_difference_chart(s["board"], s["nemenyi"], "nemenyi"),
    "cd-wilcoxon": lambda s: charts.critical_difference_chart(
        s["board"], s["wilcoxon"], "wilcoxon"
    ),
    "rank-heatmap": lambda s: charts.rank_heatmap_chart(s["board"], s["rank_matrix"]),
    "rank-distribution": lambda s: charts.rank_distribution_chart(s["board"], s["rank_matrix"]),
    "win-probability": lambda s: charts.win_probability_chart(s["board"]),
    "pvalues-wilcoxon": lambda s: charts.pvalue_matrix_chart(s["board"], s["wilcoxon"], "wilcoxon"),
    "pvalues-nemenyi": lambda s: charts.pvalue_matrix_chart(s["board"], s["nemenyi"], "nemenyi"),
    "estimator-evaluation": lambda s: charts.estimator_evaluation_chart(s["board"]),
    "estimator-weights": lambda s: charts.estimator_weights_chart(s["board"]),
    "algorithm-estimates": lambda s: charts.algorithm_estimates_chart(
        s["board"], s["board"].algorithms[0]
    ),
    "rank-histogram": lambda s: charts.rank_histogram_chart(
        s["board"], s["rank_matrix"], s["board"].algorithms[0]
    ),
}
NOT_APPLICABLE_ON_TOP3 = {"cd-nemenyi", "cd-wilcoxon", "pvalues-wilcoxon", "pvalues-nemenyi"}


def assert_accessible_svg(chart: charts.Chart) -> ET.Element:
    root = ET.fromstring(chart.svg)
    assert root.tag == f"{SVG}svg"
    # a drawing that holds links is a named group (its links stay reachable), else an image
    assert root.get("role") == ("group" if root.find(f".//{SVG}a") is not None else "img")
    assert root.get("viewBox", "").startswith("0 0 ")
    # Its natural width in an attribute (the CSS caps it at its box): no style attribute,
    # which the Content-Security-Policy refuses.
    assert root.get("width") == root.get("viewBox", "").split()[2]
    assert root.get("style") is None
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text == chart.title
    assert desc is not None and desc.text
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    table = ET.fromstring(chart.table)  # the text alternative is well-formed too
    assert table.find(".//table/caption") is not None
    return root


@pytest.mark.django_db
@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("name", sorted(CHART_FUNCTIONS))
def test_every_chart_is_valid_svg_with_a_text_alternative(demo_benchmarks, slug, name):  # noqa: F811
    chart = CHART_FUNCTIONS[name](demo_benchmarks[slug])
    assert chart.key == name
    if slug == "tabzilla-hard-top3" and name in NOT_APPLICABLE_ON_TOP3:
        assert chart.not_applicable and chart.svg == "" and chart.table == ""
        return
    assert chart.not_applicable is None
    assert_accessible_svg(chart)


@pytest.mark.django_db
def test_critical_difference_diagram_shows_ranks_cd_and_groups(demo_benchmarks):  # noqa: F811
    sections = demo_benchmarks["demsar-2006"]
    board = sections["board"]
    chart = charts.critical_difference_chart(board, sections["nemenyi"], "nemenyi")
    root = assert_accessible_svg(chart)
    assert "CD = 1.25" in chart.svg
    for name, rank in board.column(board.mean_rank).items():
        assert f"{rank:.2f}" in chart.table and name in chart.table
    # Demšar's four C4.5 variants form one indistinguishable group: one thick bar.
    bars = [e for e in root.iter(f"{SVG}line") if e.get("data-group")]
    assert len(bars) == 1 and bars[0].get("stroke-width") == "5"

    simulated = demo_benchmarks["simulated-new-vs-old"]
    wilcoxon = charts.critical_difference_chart(
        simulated["board"], simulated["wilcoxon"], "wilcoxon"
    )
    assert "CD =" not in wilcoxon.svg
    groups = [e for e in ET.fromstring(wilcoxon.svg).iter(f"{SVG}line") if e.get("data-group")]
    names = simulated["wilcoxon"].algorithms
    expected = [[names[i] for i in g] for g in simulated["wilcoxon"].groups if len(g) > 1]
    assert [g.get("data-group") for g in groups] == [", ".join(g) for g in expected]


@pytest.mark.django_db
def test_not_applicable_reasons_come_from_the_sections(demo_benchmarks):  # noqa: F811
    sections = demo_benchmarks["tabzilla-hard-top3"]
    board = sections["board"]
    chart = charts.critical_difference_chart(board, sections["nemenyi"], "nemenyi")
    assert chart.not_applicable == board.nemenyi.reason
    assert chart.description.startswith("Not applicable: ")
    huge = NotApplicable("1000 datasets x 500 algorithms exceed the ranks stored")
    for function in (charts.rank_heatmap_chart, charts.rank_distribution_chart):
        chart = function(board, huge)
        assert chart.not_applicable == huge.reason
        assert "large" in function(board, None).not_applicable


@pytest.mark.django_db
def test_win_probability_numbers_for_every_estimator(demo_benchmarks):  # noqa: F811
    board = demo_benchmarks["demsar-2006"]["board"]
    for entry in board.estimators:
        chart = charts.win_probability_chart(board, entry.key)
        assert_accessible_svg(chart)
        assert estimator_get(entry.key).label in chart.title
        # the whiskers are the estimate's own interval (the win rate's: the exact interval), named
        band = win_band(board, entry.key)
        assert f"Whiskers: {band.label}" in chart.note
        for p, low, high in zip(entry.p, band.lower, band.upper, strict=True):
            assert f"{p:.3f}" in chart.table
            assert f"{low:.3f}" in chart.table and f"{high:.3f}" in chart.table
    with pytest.raises(ValueError, match="estimator must be one of"):
        charts.win_probability_chart(board, "nope")


@pytest.mark.django_db
def test_heatmap_caps_datasets_and_marks_unknown_positions(demo_benchmarks):  # noqa: F811
    sections = demo_benchmarks["tabzilla-hard-top3"]
    chart = charts.rank_heatmap_chart(sections["board"], sections["rank_matrix"], max_datasets=10)
    root = assert_accessible_svg(chart)
    assert "Showing the first 10 of 36 datasets" in chart.note
    first = sorted(sections["rank_matrix"].datasets)[:10]
    assert all(name in chart.table for name in first)
    assert sorted(sections["rank_matrix"].datasets)[10] not in chart.table
    assert "not in the top 3" in chart.svg
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#eceff2"]
    assert cells, "positions beyond the top 3 are drawn as unknown"


@pytest.mark.django_db
def test_rank_distribution_and_top_k_counts(demo_benchmarks):  # noqa: F811
    demsar = demo_benchmarks["demsar-2006"]
    matrix = demsar["rank_matrix"]
    chart = charts.rank_distribution_chart(demsar["board"], matrix)
    column = matrix.algorithms.index("C4.5")
    worst = max(row[column] for row in matrix.ranks)
    assert f"{worst:g}" in chart.table and "3.14" in chart.table

    top3 = demo_benchmarks["tabzilla-hard-top3"]
    board = top3["board"]
    chart = charts.rank_distribution_chart(board, top3["rank_matrix"])
    assert "top 3" in chart.title
    wins = charts.algorithm_positions(board, top3["rank_matrix"], "XGBoost")
    assert wins[0][0] == "1" and wins[-1][0] == "below 3"
    assert sum(count for _, count in wins) == pytest.approx(36)
    assert wins[0][1] == pytest.approx(board.column(board.win_rate)["XGBoost"] * 36)


@pytest.mark.django_db
def test_pvalue_matrix_and_evaluation_numbers(demo_benchmarks):  # noqa: F811
    sections = demo_benchmarks["simulated-new-vs-old"]
    board, wilcoxon = sections["board"], sections["wilcoxon"]
    chart = charts.pvalue_matrix_chart(board, wilcoxon, "wilcoxon")
    assert "Holm" in chart.title and "not significant" in chart.svg
    names = wilcoxon.algorithms
    p = wilcoxon.pvalues.get(names.index("new"), names.index("old"), len(names))
    assert (f"{p:.3f}" if p >= 0.001 else "&lt; 0.001") in chart.table

    evaluation = charts.estimator_evaluation_chart(board)
    for loss in board.evaluation.log_loss.values():
        assert f"{loss:.3f}" in evaluation.table
    weights = charts.estimator_weights_chart(board)
    for result in board.estimators:
        if estimator_get(result.key).uses_top_k:
            for w in result.weights:
                assert f"{w:.3f}" in weights.table


@pytest.mark.django_db
def test_names_are_escaped(demo_benchmarks):  # noqa: F811
    hostile = '<script>alert("x")</script> & co'
    sections = {}
    for name, section in demo_benchmarks["demsar-2006"].items():
        text = json.dumps(to_json(section)).replace('"C4.5+cf"', json.dumps(hostile))
        sections[name] = section_from_json(name, json.loads(text))
    for build in CHART_FUNCTIONS.values():
        chart = build(sections)
        if chart.not_applicable:
            continue
        assert "<script>" not in chart.svg and "<script>" not in chart.table
        ET.fromstring(chart.svg)
        ET.fromstring(chart.table)
