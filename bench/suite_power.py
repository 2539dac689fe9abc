"""Suite ``power``: how sure is "about N datasets would separate them with 80 % power"?

The advisor's datasets needed (estimation/core/power.py) is simulated from the observed
paired differences of the board's #1 and #2, so it is as uncertain as those
differences: it is right in the median but one benchmark's figure can be a third or
five times the true size. Beside it the page shows a 95 % confidence interval
(``PowerResult.needed_low`` to ``needed_high``). Here benchmarks of ``n`` paired
differences are drawn from populations whose true datasets needed is known (simulated
once from the population itself with many draws), and for each cell this suite reports
how often the interval holds the true size (its coverage), how often the point figure
falls below it (a benchmark run at that size would have under 80 % power), the median
ratio of the figure to the truth, and how often the interval has no upper end.

``python -m bench power`` writes its section of bench/README.md and ``docs/power.json``;
``--quick`` runs a corner.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.common import ROOT, Options, machine_line, markdown_table
from bench.suite_coverage import companion_table_store

GRID_N = (10, 30, 100)
QUICK_N = (10,)
REPLICATES = 200
QUICK_REPLICATES = 10
TRUE_SIMULATIONS = 20_000
QUICK_TRUE_SIMULATIONS = 2_000
ALPHA = 0.05
JSON_OUT = ROOT / "docs" / "power.json"


@dataclass(frozen=True)
class Population:
    key: str
    label: str
    draw: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


def populations() -> tuple[Population, ...]:
    def normal(effect: float) -> Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]:
        return lambda rng, shape: rng.normal(effect, 1.0, shape)

    def heavy(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return 0.3 + rng.standard_t(3, shape) / np.sqrt(3.0)

    def skewed(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.lognormal(0.0, 0.75, shape) - 1.0

    def mixture(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        loses = rng.random(shape) < 0.25
        return np.where(loses, rng.normal(-0.8, 0.3, shape), rng.normal(0.5, 0.4, shape))

    return (
        Population("normal_small", "normal, effect 0.3 sd", normal(0.3)),
        Population("normal_large", "normal, effect 0.6 sd", normal(0.6)),
        Population("heavy", "t with 3 df, shift 0.3 sd", heavy),
        Population("skewed", "lognormal (sigma 0.75) minus 1", skewed),
        Population("mixture", "wins by 0.5, loses by 0.8 a quarter of the time", mixture),
    )


def true_needed(population: Population, *, simulations: int, seed: int) -> int:
    """The smallest size at which Wilcoxon's test (the advisor's) rejects with 80 %
    power on draws from the population itself (common draws for every size tried)."""
    from estimation.core.power import POWER, signed_rank_rejects

    def power_at(size: int) -> float:
        rng = np.random.default_rng(seed)
        chunks = [
            signed_rank_rejects(population.draw(rng, (rows, size)), ALPHA)
            for rows in _chunks(simulations, size)
        ]
        return float(np.concatenate(chunks).mean())

    low, high = 1, 2
    while power_at(high) < POWER:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if power_at(middle) >= POWER:
            high = middle
        else:
            low = middle
    return high


def _chunks(rows: int, size: int, cells: int = 4_000_000) -> list[int]:
    step = max(1, cells // max(size, 1))
    return [min(step, rows - start) for start in range(0, rows, step)]


def simulate_cell(
    population: Population, n: int, truth: int, *, replicates: int, seed: int
) -> dict[str, Any]:
    from estimation.core.power import pair_power

    rng = np.random.default_rng(seed)
    covered = below = unbounded = shown = 0
    ratios = []
    for _ in range(replicates):
        result = pair_power(population.draw(rng, (n,)), alpha=ALPHA, rng=rng)
        if result.datasets_needed is None or result.needed_low is None:
            continue
        shown += 1
        high = result.needed_high
        covered += result.needed_low <= truth and (high is None or truth <= high)
        below += result.datasets_needed < truth
        unbounded += high is None
        ratios.append(result.datasets_needed / truth)
    share = (lambda k: k / shown) if shown else (lambda k: float("nan"))
    return {
        "population": population.key,
        "n": n,
        "true_needed": truth,
        "shown": shown,
        "coverage": share(covered),
        "below_truth": share(below),
        "unbounded": share(unbounded),
        "median_ratio": float(np.median(ratios)) if ratios else float("nan"),
        "ratio_5": float(np.quantile(ratios, 0.05)) if ratios else float("nan"),
        "ratio_95": float(np.quantile(ratios, 0.95)) if ratios else float("nan"),
    }


def report(payload: dict[str, Any]) -> str:
    cells = payload["cells"]
    labels = payload["populations"]
    lowest = min(c["coverage"] for c in cells if c["shown"])
    lines = [
        "### How sure is the datasets needed",
        "",
        f"`python -m bench power` ({payload['replicates']} benchmarks a cell, seed "
        f"{payload['seed']}; {payload['machine']}; {payload['cpu_seconds']:.0f} s CPU). "
        "The advisor's 'about N datasets would separate them with 80 % power' on benchmarks "
        "of n paired differences drawn from each population, against the population's "
        f"true size (simulated from it, {payload['true_simulations']} draws a size). "
        "Coverage: how often the 95 % interval shown beside the figure holds the true size; "
        "below truth: how often the figure itself is smaller (a study of that size would "
        "have under 80 % power); the figure / truth ratio's median and 5–95 % range; "
        f"unbounded: the interval has no upper end. Lowest coverage: {lowest:.2f}.",
        "",
    ]
    rows = [
        [
            labels[c["population"]],
            c["n"],
            c["true_needed"],
            f"{c['coverage']:.2f}",
            f"{c['below_truth']:.2f}",
            f"{c['median_ratio']:.2f} ({c['ratio_5']:.2f}–{c['ratio_95']:.2f})",
            f"{c['unbounded']:.2f}",
        ]
        for c in cells
    ]
    lines.append(
        markdown_table(
            [
                "population",
                "n",
                "true size",
                "coverage",
                "below truth",
                "figure / truth",
                "unbounded",
            ],
            rows,
        )
    )
    return "\n".join(lines)


def run(options: Options) -> str:
    quick = options.quick
    replicates = QUICK_REPLICATES if quick else REPLICATES
    true_simulations = QUICK_TRUE_SIMULATIONS if quick else TRUE_SIMULATIONS
    pops = populations()[:2] if quick else populations()
    started = time.process_time()
    cells = []
    for number, population in enumerate(pops):
        truth = true_needed(population, simulations=true_simulations, seed=options.seed + number)
        for n in QUICK_N if quick else GRID_N:
            cells.append(
                simulate_cell(
                    population,
                    n,
                    truth,
                    replicates=replicates,
                    seed=options.seed * 1000 + number * 10 + n,
                )
            )
            if not quick:
                print(f"power: {population.key} n={n}: {cells[-1]}", file=sys.stderr)
    payload = {
        "replicates": replicates,
        "true_simulations": true_simulations,
        "seed": options.seed,
        "machine": machine_line(),
        "cpu_seconds": time.process_time() - started,
        "populations": {p.key: p.label for p in pops},
        "cells": cells,
    }
    section = report(payload)
    if not quick:
        companion_table_store("power", payload, section)
    return section
