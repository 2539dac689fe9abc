"""The rank-sets bench (``python -m bench rank_sets``): its truths' expected ranks are
right, and the committed table shows the set of the best valid and the smallest."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench import suite_rank_sets as rank_sets


@pytest.mark.parametrize("truth", rank_sets.grid_truths((5,), real=False), ids=lambda t: t.key)
def test_each_truths_expected_ranks_match_its_draws(truth):
    """The closed forms (Plackett-Luce, Thurstone, Cauchy, the mixture) against 40,000
    drawn datasets: mean ranks within 5 standard errors (at most 0.02 of a rank here)."""
    ranks = truth.draw(np.random.default_rng(0), 40_000)
    se = ranks.std(axis=0) / np.sqrt(len(ranks))
    assert np.all(np.abs(ranks.mean(axis=0) - truth.expected_rank) <= 5 * se + 1e-9)


def test_holm_against_the_best_and_nemenyi_keep_the_leader():
    rng = np.random.default_rng(1)
    ranks = np.argsort(rng.random((20, 6)), axis=1).argsort(axis=1) + 1.0
    leader = int(np.argmin(ranks.mean(axis=0)))
    assert rank_sets.holm_against_best(ranks)[leader]
    assert rank_sets.nemenyi_group(ranks)[leader]


def test_the_committed_table_is_valid_in_every_cell_and_the_smallest_set():
    """docs/rank_sets.json (the claims the methods page makes): Podium's set of the best covers the
    truly best in every cell of the grid and its rank intervals hold jointly, at the
    0.93 floor less two Monte Carlo standard errors; its set is never larger than
    Nemenyi's group of the leader or Holm's against the best on the same benchmarks."""
    data = json.loads(rank_sets.JSON_OUT.read_text())
    replicates = data["replicates"]
    allowance = 2 * np.sqrt(0.95 * 0.05 / replicates)
    cells = data["cells"]
    assert {c["m"] for c in cells} >= set(rank_sets.GRID_M)
    assert {c["n"] for c in cells} >= set(rank_sets.GRID_N)
    for cell in cells:
        name = f"{cell['truth']} n={cell['n']} m={cell['m']}"
        assert cell["podium_coverage"] >= rank_sets.FLOOR - allowance, name
        assert cell["ranks_coverage"] >= rank_sets.FLOOR - allowance, name
        assert cell["podium_size"] <= cell["nemenyi_size"] + 1e-9, name
        assert cell["podium_size"] <= cell["holm_size"] + 1e-9, name
    helm = next(c for c in cells if c["truth"] == "helm_like")
    assert helm["podium_size"] <= helm["m"] / 2
