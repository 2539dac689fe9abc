"""The methods page shows the measured coverage table (docs/coverage.json, written by
``python -m bench coverage``) beside what each interval is called on the pages."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from estimation.core.registry import ESTIMATOR_KEYS, estimator_get, interval_label
from frontend.explore.coverage import COVERAGE_JSON, coverage_table, coverage_table_from


def _committed() -> dict:
    return json.loads(COVERAGE_JSON.read_text())


def test_the_table_reads_every_family_and_its_worst_cell_per_size():
    data = _committed()
    table = coverage_table_from(data)
    assert [row.key for row in table.rows] == [f["key"] for f in data["families"]]
    assert table.sizes == tuple(sorted({c["n"] for c in data["cells"]}))
    for row in table.rows:
        for n, worst in zip(table.sizes, row.worst, strict=True):
            verdict = data["verdicts"][row.key][str(n)]
            assert worst.coverage == verdict["worst"]
            assert worst.reaches_floor == (verdict["worst"] >= data["confidence_floor"])
        if row.key in ESTIMATOR_KEYS:
            kind = estimator_get(row.key).interval_kind
            assert row.called == interval_label(kind, data["level"])
    assert len(table.cells) == len(data["cells"])


def test_a_family_below_the_floor_is_flagged_and_one_above_is_not():
    data = {
        "level": 0.95,
        "confidence_floor": 0.93,
        "replicates": 100,
        "bootstrap": 1000,
        "command": "python -m bench coverage",
        "measured": "today",
        "machine": "m",
        "cpu_seconds": 1.0,
        "families": [
            {"key": "exact", "label": "Exact", "claim": "each"},
            {"key": "ranks_mle", "label": "Ranks", "claim": "all"},
        ],
        "truths": [{"key": "t", "label": "Truth T"}],
        "cells": [
            {
                "truth": "t",
                "n": 10,
                "m": 4,
                "coverage": {
                    "exact": {"per_algorithm": 0.9, "joint": 0.5},
                    "ranks_mle": {"per_algorithm": 1.0, "joint": 0.97},
                },
            }
        ],
        "verdicts": {
            "exact": {
                "10": {"confidence": False, "worst": 0.9, "worst_se": 0.03, "worst_cell": "t"}
            },
            "ranks_mle": {
                "10": {"confidence": True, "worst": 0.97, "worst_se": 0.02, "worst_cell": "t"}
            },
        },
    }
    table = coverage_table_from(data)
    exact, ranks = table.rows
    assert not exact.worst[0].reaches_floor and ranks.worst[0].reaches_floor
    assert exact.worst[0].text == "90.0 % ± 3.0"
    # a cell shows the measure of the family's claim: per algorithm, or all together
    assert table.cells[0].coverage == (0.9, 0.97)
    assert table.cells[0].truth == "Truth T"


@pytest.mark.django_db
def test_the_methods_page_shows_the_coverage_table(client):
    table = coverage_table()
    assert table is not None
    page = client.get("/methods/").content.decode()
    section = page[page.index('data-testid="coverage"') :]
    rows = re.findall(r'<tr data-testid="coverage-row" data-family="([^"]+)">(.*?)</tr>', section)
    assert [key for key, _ in rows] == [row.key for row in table.rows]
    for (_, html), row in zip(rows, table.rows, strict=True):
        text = unescape(re.sub(r"<[^>]+>", " ", html))
        for worst in row.worst:
            assert worst.text in text
            assert ("below 0.93" in text) or worst.reaches_floor
        if row.called:
            assert row.called in text
    assert f"{table.replicates} simulated benchmarks per cell" in section
    assert f"{table.analytic_replicates} for the exact intervals" in section


@pytest.mark.django_db
def test_the_methods_page_shows_the_set_of_the_best_beside_nemenyi_and_holm(client):
    """The measured coverage and size of the set of the best, the rank
    intervals' joint coverage and width, beside Nemenyi's and Holm's sets."""
    from frontend.explore.coverage import rank_set_table

    table = rank_set_table()
    assert table is not None
    page = client.get("/methods/").content.decode()
    section = page[page.index('data-testid="rank-sets"') :]
    section = section[: section.index("</table>")]
    body = re.findall(r"<tr><td>(.*?)</tr>", section, flags=re.S)
    assert len(body) == len(table.rows)
    first = unescape(re.sub(r"<[^>]+>", " ", body[0])).split()
    row = table.rows[0]
    assert first[:3] == [row.truth, str(row.n), str(row.m)]
    assert f"{row.podium_size:.1f}" in first and f"{row.nemenyi_size:.1f}" in first
    assert "Best on average across datasets" in page
