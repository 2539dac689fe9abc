"""The server-side SVG charts on the three demo payloads (no page rendering)."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import pytest

from frontend.explore import charts
from tests.frontend.explore_fixtures import demo_benchmarks  # noqa: F401

SVG = "{http://www.w3.org/2000/svg}"
SLUGS = ["demsar-2006", "tabzilla-hard-top3", "simulated-new-vs-old"]

CHART_FUNCTIONS = {
    "cd-nemenyi": lambda p: charts.critical_difference_chart(p, "nemenyi"),
    "cd-wilcoxon": lambda p: charts.critical_difference_chart(p, "wilcoxon"),
    "rank-heatmap": charts.rank_heatmap_chart,
    "rank-distribution": charts.rank_distribution_chart,
    "win-probability": charts.win_probability_chart,
    "pvalues-wilcoxon": lambda p: charts.pvalue_matrix_chart(p, "wilcoxon"),
    "pvalues-nemenyi": lambda p: charts.pvalue_matrix_chart(p, "nemenyi"),
    "estimator-evaluation": charts.estimator_evaluation_chart,
    "estimator-weights": charts.estimator_weights_chart,
    "algorithm-estimates": lambda p: charts.algorithm_estimates_chart(
        p, p["input"]["algorithms"][0]
    ),
    "rank-histogram": lambda p: charts.rank_histogram_chart(p, p["input"]["algorithms"][0]),
}
NOT_APPLICABLE_ON_TOP3 = {"cd-nemenyi", "cd-wilcoxon", "pvalues-wilcoxon", "pvalues-nemenyi"}


def assert_accessible_svg(chart: charts.Chart) -> ET.Element:
    root = ET.fromstring(chart.svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    assert root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") == "100%"
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
    payload = demo_benchmarks[slug]
    chart = CHART_FUNCTIONS[name](payload)
    assert chart.key == name
    if slug == "tabzilla-hard-top3" and name in NOT_APPLICABLE_ON_TOP3:
        assert chart.not_applicable and chart.svg == "" and chart.table == ""
        return
    assert chart.not_applicable is None
    assert_accessible_svg(chart)


@pytest.mark.django_db
def test_critical_difference_diagram_shows_ranks_cd_and_groups(demo_benchmarks):  # noqa: F811
    payload = demo_benchmarks["demsar-2006"]
    chart = charts.critical_difference_chart(payload, "nemenyi")
    root = assert_accessible_svg(chart)
    assert "CD = 1.25" in chart.svg
    for name, rank in payload["mean_rank"].items():
        assert f"{rank:.2f}" in chart.table and name in chart.table
    # Demšar's four C4.5 variants form one indistinguishable group: one thick bar.
    bars = [e for e in root.iter(f"{SVG}line") if e.get("data-group")]
    assert len(bars) == 1 and bars[0].get("stroke-width") == "5"

    simulated = demo_benchmarks["simulated-new-vs-old"]
    wilcoxon = charts.critical_difference_chart(simulated, "wilcoxon")
    assert "CD =" not in wilcoxon.svg
    groups = [e for e in ET.fromstring(wilcoxon.svg).iter(f"{SVG}line") if e.get("data-group")]
    expected = [g for g in simulated["wilcoxon"]["groups"] if len(g) > 1]
    assert [g.get("data-group") for g in groups] == [", ".join(g) for g in expected]


@pytest.mark.django_db
def test_not_applicable_reasons_come_from_the_payload(demo_benchmarks):  # noqa: F811
    payload = demo_benchmarks["tabzilla-hard-top3"]
    chart = charts.critical_difference_chart(payload, "nemenyi")
    assert chart.not_applicable == payload["nemenyi"]["not_applicable"]
    assert chart.description.startswith("Not applicable: ")
    huge = dict(payload, rank_matrix=None)
    for function in (charts.rank_heatmap_chart, charts.rank_distribution_chart):
        chart = function(huge)
        assert chart.not_applicable and "large" in chart.not_applicable


@pytest.mark.django_db
def test_win_probability_numbers_for_every_estimator(demo_benchmarks):  # noqa: F811
    payload = demo_benchmarks["demsar-2006"]
    for estimator, entry in payload["estimators"].items():
        chart = charts.win_probability_chart(payload, estimator)
        assert_accessible_svg(chart)
        assert entry["label"] in chart.title
        for name, p in entry["p"].items():
            assert f"{p:.3f}" in chart.table
            low, high = entry["ci"][name]
            assert f"{low:.3f}" in chart.table and f"{high:.3f}" in chart.table
    with pytest.raises(ValueError, match="estimator must be one of"):
        charts.win_probability_chart(payload, "nope")


@pytest.mark.django_db
def test_heatmap_caps_datasets_and_marks_unknown_positions(demo_benchmarks):  # noqa: F811
    payload = demo_benchmarks["tabzilla-hard-top3"]
    chart = charts.rank_heatmap_chart(payload, max_datasets=10)
    root = assert_accessible_svg(chart)
    assert "Showing the first 10 of 36 datasets" in chart.note
    first = sorted(payload["rank_matrix"]["datasets"])[:10]
    assert all(name in chart.table for name in first)
    assert sorted(payload["rank_matrix"]["datasets"])[10] not in chart.table
    assert "not in the top 3" in chart.svg
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#eceff2"]
    assert cells, "positions beyond the top 3 are drawn as unknown"


@pytest.mark.django_db
def test_rank_distribution_and_top_k_counts(demo_benchmarks):  # noqa: F811
    demsar = demo_benchmarks["demsar-2006"]
    chart = charts.rank_distribution_chart(demsar)
    matrix = demsar["rank_matrix"]
    column = matrix["algorithms"].index("C4.5")
    worst = max(row[column] for row in matrix["ranks"])
    assert f"{worst:g}" in chart.table and "3.14" in chart.table

    top3 = demo_benchmarks["tabzilla-hard-top3"]
    chart = charts.rank_distribution_chart(top3)
    assert "top 3" in chart.title
    wins = charts.algorithm_positions(top3, "XGBoost")
    assert wins[0][0] == "1" and wins[-1][0] == "below 3"
    assert sum(count for _, count in wins) == pytest.approx(36)
    assert wins[0][1] == pytest.approx(top3["win_rate"]["XGBoost"] * 36)


@pytest.mark.django_db
def test_pvalue_matrix_and_evaluation_numbers(demo_benchmarks):  # noqa: F811
    payload = demo_benchmarks["simulated-new-vs-old"]
    chart = charts.pvalue_matrix_chart(payload, "wilcoxon")
    assert "Holm" in chart.title and "not significant" in chart.svg
    p = payload["wilcoxon"]["pvalues"]["new"]["old"]
    assert (f"{p:.3f}" if p >= 0.001 else "&lt; 0.001") in chart.table

    evaluation = charts.estimator_evaluation_chart(payload)
    for loss in payload["evaluation"]["log_loss"].values():
        assert f"{loss:.3f}" in evaluation.table
    weights = charts.estimator_weights_chart(payload)
    for scheme in ("loo_kl", "loo_tv", "minimax"):
        for w in payload["estimators"][scheme]["weights"]:
            assert f"{w:.3f}" in weights.table


@pytest.mark.django_db
def test_names_are_escaped(demo_benchmarks):  # noqa: F811
    hostile = '<script>alert("x")</script> & co'
    text = json.dumps(demo_benchmarks["demsar-2006"]).replace('"C4.5+cf"', json.dumps(hostile))
    payload = json.loads(text)
    for build in CHART_FUNCTIONS.values():
        chart = build(copy.deepcopy(payload))
        if chart.not_applicable:
            continue
        assert "<script>" not in chart.svg and "<script>" not in chart.table
        ET.fromstring(chart.svg)
        ET.fromstring(chart.table)
