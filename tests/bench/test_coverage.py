"""The coverage bench (``python -m bench coverage``): its truths, its tally and its verdicts.

The full grid takes minutes; these tests run tiny grids (seconds) and assert what such
a grid can honestly show: the tally agrees with coverage computed exactly from the
binomial distribution, intervals that claim 95 % and reach it pass, a deliberately
too-narrow interval is caught, and the same seed gives the same numbers. Every
Monte Carlo comparison allows ``ALLOWANCE_SE`` standard errors, ``sqrt(c (1 - c) / R)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bench import suite_coverage as coverage
from estimation.core.intervals import exact_interval, win_intervals

ALLOWANCE_SE = 4.0
"""Monte Carlo allowance in standard errors (one-sided 4 SE: a false alarm about once in
30,000 runs per comparison)."""


def _win_rate_only(level: float = coverage.LEVEL):
    def intervals(ranks, *, rng, n_boot, K, known_positions=None):
        result = win_intervals(ranks, level=coverage.LEVEL)
        return {
            "exact": exact_interval(result.wins, result.n, level=level),
            "exact_simultaneous": (result.simultaneous_lower, result.simultaneous_upper),
        }

    return intervals


EXACT = coverage.Family("exact", "Exact", "each")
SIMULTANEOUS = coverage.Family("exact_simultaneous", "Exact, simultaneous", "all")


def _allowance(c: float, replicates: int) -> float:
    return ALLOWANCE_SE * coverage.standard_error(c, replicates)


def _binomial_coverage(p: float, n: int) -> float:
    """P(the exact 95 % interval holds p) when the win count is Binomial(n, p)."""
    x = np.arange(n + 1)
    lower, upper = exact_interval(x, n, level=0.95)
    covered = (lower <= p) & (p <= upper)
    return float(stats.binom.pmf(x, n, p)[covered].sum())


@pytest.mark.parametrize("n", [10, 30])
def test_the_tally_matches_the_coverage_computed_exactly(n):
    """Plackett-Luce rankings have no ties, so each win count is Binomial(n, p_j): the
    simulated coverage of every algorithm must match the exact binomial sum."""
    truth = coverage.plackett_luce_truth("pl_two", 4)
    replicates = 4000
    cell = coverage.simulate_cell(
        truth,
        n,
        replicates=replicates,
        rng=np.random.default_rng(7),
        n_boot=0,
        K=3,
        intervals=_win_rate_only(),
        checked=[EXACT],
    )
    exact = [_binomial_coverage(float(p), n) for p in truth.p]
    measured = cell.coverage["exact"]
    assert abs(measured.per_algorithm - np.mean(exact)) <= _allowance(np.mean(exact), replicates)
    assert abs(measured.leader - exact[0]) <= _allowance(exact[0], replicates)


def test_plackett_luce_truths_win_as_often_as_their_worths_say():
    truth = coverage.plackett_luce_truth("pl_clear", 10)
    ranks = truth.draw(np.random.default_rng(3), 20000)
    shares = (ranks == 1).mean(axis=0)
    assert truth.p[0] == pytest.approx(0.5)
    assert np.abs(shares - truth.p).max() < 4 * np.sqrt(0.25 / 20000)


def test_resampled_tables_take_the_table_win_rate_as_their_truth():
    demsar, tabzilla, top3 = coverage.real_truths()
    assert (demsar.m, tabzilla.m) == (4, 18) and top3.known_positions == 3
    assert demsar.p.sum() == pytest.approx(1.0) and tabzilla.p.sum() == pytest.approx(1.0)
    ranks = demsar.draw(np.random.default_rng(0), 5)
    assert ranks.shape == (5, 4)


def test_intervals_that_claim_95_percent_reach_the_floor_on_a_small_grid():
    """The exact interval (each algorithm) and its Bonferroni form (all at once) on four
    algorithms at n = 10 and 30, two truths: both claim 95 % and reach 0.93 (the full grid
    is in bench/README.md)."""
    replicates = 2000
    truths = [coverage.plackett_luce_truth("pl_two", 4), coverage.real_truths()[0]]
    for truth in truths:
        for n in (10, 30):
            cell = coverage.simulate_cell(
                truth,
                n,
                replicates=replicates,
                rng=np.random.default_rng(11),
                n_boot=0,
                K=3,
                intervals=_win_rate_only(),
                checked=[EXACT, SIMULTANEOUS],
            )
            floor = coverage.CONFIDENCE_FLOOR - _allowance(coverage.LEVEL, replicates)
            assert cell.coverage["exact"].per_algorithm >= floor, (truth.key, n)
            assert cell.coverage["exact_simultaneous"].joint >= floor, (truth.key, n)


def test_a_too_narrow_interval_is_caught():
    """A 60 % exact interval presented as a 95 % one: the bench must see it under-cover
    and refuse to call it a confidence interval."""
    replicates = 400
    truth = coverage.plackett_luce_truth("pl_two", 4)
    cell = coverage.simulate_cell(
        truth,
        30,
        replicates=replicates,
        rng=np.random.default_rng(5),
        n_boot=0,
        K=3,
        intervals=_win_rate_only(level=0.6),
        checked=[EXACT],
    )
    narrow = cell.coverage["exact"]
    assert narrow.per_algorithm < coverage.CONFIDENCE_FLOOR - _allowance(0.93, replicates)
    verdict = coverage.qualifies(EXACT, [coverage.cell_dict(cell)], 30)
    assert verdict["confidence"] is False and verdict["clearly_short"] is True
    assert verdict["worst_cell"] == "pl_two n=30 m=4"


def test_a_shrunken_bootstrap_band_is_caught():
    """The win rate's own band shrunk to a third of its width around the estimate, as a
    band that is too narrow would be: the bench reports the shortfall."""
    from estimation.core.resampling import bootstrap

    def shrunken(ranks, *, rng, n_boot, K, known_positions=None):
        summary = bootstrap(ranks, rng=rng, n_boot=n_boot, K=K, schemes=["mle"]).schemes["mle"]
        centre = summary.estimate
        return {
            "mle": (centre + (summary.lower - centre) / 3, centre + (summary.upper - centre) / 3)
        }

    replicates = 100
    family = coverage.Family("mle", "win rate, shrunken", "each")
    cell = coverage.simulate_cell(
        coverage.plackett_luce_truth("pl_two", 4),
        30,
        replicates=replicates,
        rng=np.random.default_rng(4),
        n_boot=100,
        K=3,
        intervals=shrunken,
        checked=[family],
    )
    assert cell.coverage["mle"].per_algorithm < 0.93 - _allowance(0.93, replicates)
    assert coverage.qualifies(family, [coverage.cell_dict(cell)], 30)["clearly_short"]


def test_the_bootstrap_bands_are_checked_against_the_truth():
    """The engine's own bands on a tiny cell: every family gets a coverage in [0, 1], and
    Borda's band, which estimates Borda's share and not P(win), misses a clear leader."""
    truth = coverage.plackett_luce_truth("pl_clear", 4)
    cell = coverage.simulate_cell(
        truth, 30, replicates=20, rng=np.random.default_rng(1), n_boot=200, K=3
    )
    assert set(cell.coverage) == {f.key for f in coverage.families()}
    for value in cell.coverage.values():
        assert 0.0 <= value.joint <= value.per_algorithm <= 1.0
    assert cell.coverage["borda"].leader < 0.5


def test_the_same_seed_gives_the_same_table():
    truths = [coverage.plackett_luce_truth("pl_flat", 4)]
    first, second, other = (
        coverage.run_grid(
            truths, (10,), replicates=5, analytic_replicates=20, seed=seed, n_boot=100, K=3
        )
        for seed in (0, 0, 1)
    )
    assert [c.coverage for c in first] == [c.coverage for c in second]
    assert [c.coverage for c in first] != [c.coverage for c in other]


def test_a_tie_in_the_truth_is_covered_by_any_or_by_all_of_its_positions():
    truth = coverage.Truth("t", "t", np.array([0.5, 0.25, 0.25]), draw=lambda rng, n: None)
    first, last = coverage.true_rank_span(truth.p)
    assert first.tolist() == [1, 2, 2] and last.tolist() == [1, 3, 3]
    shown = (np.array([1, 2, 3]), np.array([1, 2, 3]))  # separates the tied pair
    any_position = coverage.Family("r", "r", "all", target="rank")
    all_positions = coverage.Family("r", "r", "all", target="rank_all")
    assert coverage.hits(any_position, shown, truth).tolist() == [True, True, True]
    assert coverage.hits(all_positions, shown, truth).tolist() == [True, False, False]
    plausible = coverage.Family("b", "b", "set", target="best")
    assert coverage.hits(plausible, np.array([False, True, True]), truth).tolist() == [False]


def test_the_readme_section_is_replaced_not_repeated(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\n## Results\n\n## What the numbers say\n\n* fast\n")
    coverage.write_readme_section("### coverage\n\nfirst", readme)
    coverage.write_readme_section("### coverage\n\nsecond", readme)
    text = readme.read_text()
    assert text.count(coverage.SECTION_START) == 1 and "first" not in text
    assert text.index("second") < text.index("## What the numbers say")
    assert text.endswith("* fast\n")


def _labelled_confidence() -> list[str]:
    from estimation.core.registry import ESTIMATORS

    return [e.key for e in ESTIMATORS if e.interval_kind == "confidence"]


def test_the_committed_table_is_complete_and_backs_every_confidence_label():
    """docs/coverage.json (what the methods page shows) covers the whole grid, and no
    interval (an estimator's own, or the win rate's exact one) is called a confidence interval unless
    the table shows it reaching 0.93 at every n."""
    import json

    from estimation.core.registry import ESTIMATOR_KEYS

    table = json.loads(coverage.COVERAGE_JSON.read_text(encoding="utf-8"))
    cells = {(c["truth"], c["n"], c["m"]) for c in table["cells"]}
    for shape in coverage.PL_SHAPES:
        for n in coverage.GRID_N:
            assert {(shape, n, m) for m in coverage.GRID_M} <= cells
    assert {key for key, _, _ in cells} >= {"demsar", "tabzilla", "tabzilla_top3"}
    assert set(table["verdicts"]) >= set(ESTIMATOR_KEYS) | {"exact", "exact_simultaneous"}
    from estimation.core.registry import WIN_RATE_INTERVAL_KIND

    win_rate = ["exact", "exact_simultaneous"] if WIN_RATE_INTERVAL_KIND == "confidence" else []
    for key in [*_labelled_confidence(), *win_rate]:
        assert all(table["verdicts"][key][str(n)]["confidence"] for n in coverage.GRID_N), key


@pytest.mark.parametrize("key", _labelled_confidence())
def test_bands_labelled_confidence_cover_the_true_win_probability(key):
    """The engine's own interval of every estimator the registry calls a confidence
    interval, on a small grid (B = 200, so the ends are noisier than the board's)."""
    from estimation.core.resampling import bootstrap

    def own_interval(ranks, *, rng, n_boot, K, known_positions=None):
        summary = bootstrap(
            ranks, rng=rng, n_boot=n_boot, K=K, known_positions=known_positions, schemes=[key]
        ).schemes[key]
        return {key: (summary.lower, summary.upper)}

    replicates = 150
    family = coverage.Family(key, key, "each")
    for truth in (coverage.plackett_luce_truth("pl_two", 4), coverage.real_truths()[0]):
        cell = coverage.simulate_cell(
            truth,
            30,
            replicates=replicates,
            rng=np.random.default_rng(2),
            n_boot=200,
            K=3,
            intervals=own_interval,
            checked=[family],
        )
        floor = coverage.CONFIDENCE_FLOOR - _allowance(coverage.LEVEL, replicates)
        assert cell.coverage[key].per_algorithm >= floor, truth.key
