"""The text report's robustness lines: the sensitivity sentence, the ROPE verdict
(signed-rank and, with folds, hierarchical) and the power figures."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import AdvisorSection, HierarchicalComparison
from estimation.core.table import ResultTable
from estimation.report import render_report
from tests.core.demo_tables import demo_analysis


def test_the_report_says_sensitivity_rope_hierarchical_and_power():
    payload = demo_analysis("simulated").payload
    report = render_report(payload)
    section = report[report.index("Robustness") : report.index("Tests across datasets")]
    assert payload.board.sensitivity.sentence in section
    assert "region of practical equivalence ±0.01" in section
    hierarchical = payload.practical.hierarchical
    assert isinstance(hierarchical, HierarchicalComparison)
    assert "Hierarchical model over datasets x folds" in section
    for versus in hierarchical.versus:
        assert f"vs {versus.algorithm}: {versus.leader_better:.3f}" in section
        assert f"Monte-Carlo error {versus.mc_se:.3f})" in section
    assert hierarchical.folds_power.sentence in section
    assert isinstance(payload.advisor, AdvisorSection)
    assert payload.advisor.power.sentence in section


def test_the_report_says_practically_equivalent_where_it_holds():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.6, 0.9, size=12)
    scores = np.column_stack([base + 0.001, base, base - 0.2])
    table = ResultTable(tuple(f"d{i}" for i in range(12)), ("A", "B", "C"), scores)
    payload = analyze(table, replace(AnalysisSettings(bootstrap=0), rope=0.05)).payload
    report = render_report(payload)
    assert "B is practically equivalent to A" in report
