"""The estimator advisor and the comparison with a control on the charts and methods pages."""

from __future__ import annotations

import pytest

from estimation.core.contract import AdvisorSection, ControlComparison, NotApplicable
from frontend.explore import advice
from tests.frontend.explore_fixtures import demo_benchmarks  # noqa: F401

pytestmark = pytest.mark.django_db


def test_charts_page_shows_the_advisor_at_your_size_and_with_twice_the_datasets(
    client,
    demo_benchmarks,  # noqa: F811
):
    page = client.get("/b/demsar-2006/charts/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="advisor"' in html
    assert "At your size" in html and "With twice the datasets" in html
    section = demo_benchmarks["demsar-2006"]["advisor"]
    assert isinstance(section, AdvisorSection)
    for truth in ("plackett_luce", "empirical"):
        assert f'data-testid="advisor-{truth}-14"' in html
        assert f'data-testid="advisor-{truth}-28"' in html
    table = html.split('data-testid="advisor-plackett_luce-14"')[1].split("</table>")[0]
    size = section.truth("plackett_luce").sizes[0]
    for row in size.estimators:
        assert f"{row.kl:.4f}" in table


def test_charts_page_compares_with_the_default_control_and_a_picked_one(
    client,
    demo_benchmarks,  # noqa: F811
):
    board = demo_benchmarks["demsar-2006"]["board"]
    assert isinstance(board.control, ControlComparison)
    html = client.get("/b/demsar-2006/charts/").content.decode()
    assert 'data-testid="control-table"' in html
    assert f'data-testid="control-name">{board.control.control}<' in html
    picked = client.get("/b/demsar-2006/charts/", {"control": "C4.5"}).content.decode()
    assert 'data-testid="control-name">C4.5<' in picked
    # Demšar 2006 §3.2.2 from the ranks of the printed AUCs (C4.5+cf and C4.5+m+cf tie on
    # voting here): CD 1.168 whatever the control; Holm rejects two comparisons.
    assert 'data-testid="control-cd">1.168<' in picked
    rows = picked.split('data-testid="control-table"')[1].split("</table>")[0]
    assert rows.count("<td>yes</td>") >= 2
    unknown = client.get("/b/demsar-2006/charts/", {"control": "<script>x"}).content.decode()
    assert 'data-testid="control-unknown"' in unknown and "<script>x" not in unknown


def test_top_k_input_says_why_there_is_no_control_comparison(client, demo_benchmarks):  # noqa: F811
    board = demo_benchmarks["tabzilla-hard-top3"]["board"]
    assert isinstance(board.control, NotApplicable)
    html = client.get("/b/tabzilla-hard-top3/charts/").content.decode()
    assert 'data-testid="control-not-applicable"' in html


def test_methods_page_explains_the_advisor_and_shows_a_benchmarks_tables(
    client,
    demo_benchmarks,  # noqa: F811
):
    plain = client.get("/methods/").content.decode()
    assert 'id="advisor"' in plain and 'id="control"' in plain
    assert "?benchmark=" in plain
    html = client.get("/methods/", {"benchmark": "simulated-new-vs-old"}).content.decode()
    assert "At your size" in html and "With twice the datasets" in html
    assert client.get("/methods/", {"benchmark": "no-such"}).status_code == 404


def test_advisor_view_of_a_not_applicable_section():
    view = advice.advisor_view(NotApplicable("a single dataset"))
    assert view.not_applicable == "a single dataset" and view.tables == []
    assert advice.advisor_view(None, has_board=False) is None  # no results yet
    assert advice.advisor_view(None).pending  # stored after the other sections


def test_dataset_page_shows_the_rm_anova_and_the_tukey_intervals(client, demo_benchmarks):  # noqa: F811
    entry = demo_benchmarks["simulated-new-vs-old"]["within_dataset"].entry("task-01")
    html = client.get("/b/simulated-new-vs-old/datasets/task-01/").content.decode()
    anova = html.split('data-testid="rm-anova"')[1].split("</p>")[0]
    assert f"F({entry.anova.df[0]}, {entry.anova.df[1]}) = {entry.anova.statistic:.3f}" in anova
    table = html.split('data-testid="tukey-table"')[1].split("</table>")[0]
    for low, high in zip(entry.tukey.ci_lower, entry.tukey.ci_upper, strict=True):
        assert f"{low:.4f} to {high:.4f}" in table
