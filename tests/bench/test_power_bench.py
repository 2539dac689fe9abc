"""The power bench (``python -m bench power``): its true sizes are what the advisor's
own test reaches, and its stored table covers the grid it claims."""

import json

import numpy as np

from bench import suite_power as power


def test_true_size_reaches_the_power_and_one_less_does_not():
    """The true size of a population is the smallest with 80 % power: checked on fresh
    draws (another seed) to within the Monte Carlo error of 4000 simulations (0.006)."""
    from estimation.core.power import signed_rank_rejects

    population = power.populations()[1]
    size = power.true_needed(population, simulations=4000, seed=0)
    rng = np.random.default_rng(99)

    def at(k):
        return signed_rank_rejects(population.draw(rng, (4000, k)), power.ALPHA).mean()

    assert at(size) >= 0.8 - 0.02
    assert at(size - 2) < 0.8 + 0.02


def test_cell_counts_and_shares():
    population = power.populations()[1]
    cell = power.simulate_cell(population, 30, 26, replicates=20, seed=1)
    assert cell["shown"] <= 20
    for key in ("coverage", "below_truth", "unbounded"):
        assert 0.0 <= cell[key] <= 1.0


def test_stored_table_covers_the_grid():
    data = json.loads(power.JSON_OUT.read_text())
    cells = data["cells"]
    assert {c["n"] for c in cells} == set(power.GRID_N)
    assert {c["population"] for c in cells} == {p.key for p in power.populations()}
    # normal differences: the interval's own assumption; it reaches the floor there
    normal = [c for c in cells if c["population"].startswith("normal")]
    assert min(c["coverage"] for c in normal) >= 0.93 - 2 * np.sqrt(
        0.95 * 0.05 / data["replicates"]
    )
