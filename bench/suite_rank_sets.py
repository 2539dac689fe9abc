"""Suite ``rank_sets``: the set of the best and the rank intervals of expected ranks
(``mean_rank_inference``, issue 40), valid and sharp, beside the tests a page shows.

Benchmarks are drawn from truths whose expected ranks are known in closed form, and on
the same simulated benchmarks three answers to "which algorithms may be best on
average across datasets" are measured:

* Podium's set of the best (``mean_rank_inference(...).best`` plus the exclusions by the
  tests shown on the page, as ``analysis._rank_section`` applies them) and its
  simultaneous rank intervals;
* Nemenyi's group of the leader: the algorithms whose mean rank is within Nemenyi's
  critical difference of the best mean rank;
* Holm against the best: the comparison with a control (Demšar 2006, section 3.2.2) with
  the best mean rank as the control, keeping those Holm does not find worse.

For each: how often the set holds the truly best algorithm (the mean over tied best,
as the coverage suite counts a tie), its mean size; for the rank intervals, how often
all hold at once (a tie in the truth: every position of its tie group inside) and their
mean width. ``python -m bench rank_sets`` writes its section of bench/README.md and
``docs/rank_sets.json``; ``--quick`` runs a corner of the grid.

Truths (expected ranks exact: ``E[rank a] = 1 + sum_b P(b ahead of a)``):
Plackett–Luce (``P = w_b / (w_a + w_b)``) with a clear leader, a graded order, two
leaders tied exactly and all tied; Thurstone with unequal spreads (normal scores,
``Phi``); heavy tails (Cauchy scores, the ``arctan`` form); a mixture of two opposite
orders; HELM-like (90 models on 9 scenarios, normal scores spread as on HELM Lite); and
Demšar's and TabZilla's tables resampled (their own mean ranks).
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from bench.common import ROOT, Options, machine_line, markdown_table
from bench.suite_coverage import companion_table_store

GRID_N = (10, 30, 100)
GRID_M = (4, 10, 30, 100)
QUICK_N = (10,)
QUICK_M = (4, 10)
REPLICATES = 1000
QUICK_REPLICATES = 20
LEVEL = 0.95
FLOOR = 0.93
JSON_OUT = ROOT / "docs" / "rank_sets.json"
TOL = 1e-9


@dataclass(frozen=True)
class RankTruth:
    key: str
    label: str
    expected_rank: np.ndarray
    draw: Callable[[np.random.Generator, int], np.ndarray]
    n: tuple[int, ...] = GRID_N

    @property
    def m(self) -> int:
        return self.expected_rank.size

    @property
    def best(self) -> np.ndarray:
        return np.flatnonzero(self.expected_rank <= self.expected_rank.min() + TOL)


def _ranks(scores: np.ndarray) -> np.ndarray:
    from estimation.core.rankings import rank_scores

    return rank_scores(scores)


def _expected(ahead: np.ndarray) -> np.ndarray:
    """``1 + sum_b P(b ahead of a)`` from ``ahead[a, b] = P(b ahead of a)``."""
    np.fill_diagonal(ahead, 0.0)
    return 1.0 + ahead.sum(axis=1)


def plackett_luce(key: str, label: str, worths: np.ndarray) -> RankTruth:
    w = np.asarray(worths, float)
    logw = np.log(w)

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return _ranks(logw + rng.gumbel(size=(n, w.size)))

    return RankTruth(key, label, _expected(w[None, :] / (w[:, None] + w[None, :])), draw)


def thurstone(key: str, label: str, mu: np.ndarray, sd: np.ndarray, **kw: Any) -> RankTruth:
    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return _ranks(mu + sd * rng.standard_normal((n, mu.size)))

    spread = np.sqrt(sd[:, None] ** 2 + sd[None, :] ** 2)
    return RankTruth(
        key, label, _expected(special.ndtr((mu[None, :] - mu[:, None]) / spread)), draw, **kw
    )


def cauchy(key: str, label: str, mu: np.ndarray, scale: np.ndarray) -> RankTruth:
    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return _ranks(mu + scale * rng.standard_cauchy((n, mu.size)))

    total = scale[:, None] + scale[None, :]
    ahead = 0.5 + np.arctan((mu[None, :] - mu[:, None]) / total) / np.pi
    return RankTruth(key, label, _expected(ahead), draw)


def mixture(key: str, label: str, m: int) -> RankTruth:
    """Two kinds of dataset: on 70 % the algorithms keep one order, on 30 % the reverse
    (normal scores, unit noise)."""
    mu = np.linspace(2.0, 0.0, m)
    one = thurstone("", "", mu, np.ones(m))
    other = thurstone("", "", mu[::-1].copy(), np.ones(m))

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        first = rng.random(n) < 0.7
        out = np.empty((n, m))
        out[first] = one.draw(rng, int(first.sum()))
        out[~first] = other.draw(rng, int((~first).sum()))
        return out

    return RankTruth(key, label, 0.7 * one.expected_rank + 0.3 * other.expected_rank, draw)


def resampled(key: str, label: str, population: np.ndarray) -> RankTruth:
    population = np.asarray(population, float)

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return population[rng.integers(0, len(population), size=n)]

    return RankTruth(key, label, population.mean(axis=0), draw)


def grid_truths(grid_m: tuple[int, ...], *, real: bool = True) -> list[RankTruth]:
    truths: list[RankTruth] = []
    for m in grid_m:
        truths += [
            plackett_luce(
                "pl_clear", "Plackett–Luce, one clear leader", np.r_[5.0, np.ones(m - 1)]
            ),
            plackett_luce("pl_graded", "Plackett–Luce, graded", np.exp(-np.linspace(0.0, 3.0, m))),
            plackett_luce(
                "pl_top_tie",
                "Plackett–Luce, two leaders tied exactly",
                np.r_[3.0, 3.0, np.exp(-np.linspace(0.5, 3.0, m - 2))],
            ),
            plackett_luce("pl_all_tied", "Plackett–Luce, all tied", np.ones(m)),
            thurstone(
                "thurstone",
                "Thurstone, unequal spreads",
                np.linspace(1.5, 0.0, m),
                np.linspace(0.5, 1.5, m),
            ),
            cauchy("cauchy", "heavy tails (Cauchy scores)", np.linspace(2.0, 0.0, m), np.ones(m)),
            mixture("mixture", "mixture of two opposite orders (70/30)", m),
        ]
    if real:
        truths.append(
            thurstone(
                "helm_like",
                "HELM-like: 90 models, 9 scenarios",
                np.linspace(3.0, 0.0, 90),
                np.full(90, 0.6),
                n=(9,),
            )
        )
        truths += _real_tables()
    return truths


def _real_tables() -> list[RankTruth]:
    """Demšar's and TabZilla's whole rankings, resampled (the top-3 lists are left out:
    their lower ranks are unknown, and their sets answer the P(win) question)."""
    from bench.coverage_truths import real_truths

    return [
        resampled(truth.key, truth.label, truth.population)
        for truth in real_truths()
        if truth.known_positions is None and truth.population is not None
    ]


@functools.cache
def _nemenyi_q(m: int) -> float:
    return float(stats.studentized_range.ppf(LEVEL, m, np.inf)) / np.sqrt(2.0)


def nemenyi_group(ranks: np.ndarray) -> np.ndarray:
    n, m = ranks.shape
    mean = ranks.mean(axis=0)
    cd = _nemenyi_q(m) * np.sqrt(m * (m + 1) / (6.0 * n))
    return mean - mean.min() <= cd


def holm_against_best(ranks: np.ndarray) -> np.ndarray:
    n, m = ranks.shape
    mean = ranks.mean(axis=0)
    control = int(np.argmin(mean))
    z = (mean - mean[control]) / np.sqrt(m * (m + 1) / (6.0 * n))
    p = 2.0 * stats.norm.sf(np.abs(z))
    others = np.array([j for j in range(m) if j != control])
    order = others[np.argsort(p[others], kind="stable")]
    thresholds = (1.0 - LEVEL) / (len(order) - np.arange(len(order)))
    passed = p[order] <= thresholds
    stop = len(order) if passed.all() else int(np.argmin(passed))
    keep = np.ones(m, dtype=bool)
    keep[order[:stop]] = False
    return keep


def podium(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The set of the best as a board shows it, and the rank intervals."""
    from estimation.core.mean_rank_inference import mean_rank_inference

    result = mean_rank_inference(ranks, level=LEVEL)
    best = result.best & nemenyi_group(ranks) & holm_against_best(ranks)
    return best, result.lower, result.upper


def simulate(truth: RankTruth, n: int, replicates: int, rng: np.random.Generator) -> dict:
    theta = truth.expected_rank
    first = 1 + (theta[None, :] < theta[:, None] - TOL).sum(axis=1)
    last = (theta[None, :] <= theta[:, None] + TOL).sum(axis=1)
    best = truth.best
    sums = {k: np.zeros(2) for k in ("podium", "nemenyi", "holm")}
    ranks_cover = ranks_width = 0.0
    started = time.process_time()
    for _ in range(replicates):
        ranks = truth.draw(rng, n)
        ours, lower, upper = podium(ranks)
        for key, chosen in (
            ("podium", ours),
            ("nemenyi", nemenyi_group(ranks)),
            ("holm", holm_against_best(ranks)),
        ):
            sums[key] += (chosen[best].mean(), chosen.sum())
        ranks_cover += bool(np.all((lower <= first) & (last <= upper)))
        ranks_width += float(np.mean(upper - lower + 1))
    out: dict[str, Any] = {"truth": truth.key, "n": n, "m": truth.m, "replicates": replicates}
    for key, (covered, size) in sums.items():
        out[f"{key}_coverage"] = round(covered / replicates, 4)
        out[f"{key}_size"] = round(size / replicates, 2)
    out["ranks_coverage"] = round(ranks_cover / replicates, 4)
    out["ranks_width"] = round(ranks_width / replicates, 2)
    out["cpu_seconds"] = round(time.process_time() - started, 2)
    return out


def run_grid(
    truths: list[RankTruth],
    grid_n: tuple[int, ...],
    replicates: int,
    seed: int,
    *,
    progress: bool = False,
) -> list[dict]:
    cells = []
    for index, truth in enumerate(truths):
        for n in grid_n if truth.n == GRID_N else truth.n:
            rng = np.random.default_rng(np.random.SeedSequence([seed, index, n, truth.m]))
            cell = simulate(truth, n, replicates, rng)
            cells.append(cell)
            if progress:
                print(f"rank_sets: {truth.key} n={n} m={truth.m}", file=sys.stderr, flush=True)
    return cells


def report(payload: dict[str, Any]) -> str:
    cells = payload["cells"]
    worst = min(min(c["podium_coverage"], c["ranks_coverage"]) for c in cells)
    lines = [
        "### The set of the best and the rank intervals of expected ranks",
        "",
        f"`python -m bench rank_sets` ({payload['replicates']} benchmarks a cell, seed "
        f"{payload['seed']}; {payload['machine']}; {payload['cpu_seconds']:.0f} s CPU). "
        "Coverage of a set: how often it holds the truly best algorithm (tied best: the "
        "mean over them); of the rank intervals: how often all hold at once (a tie in the "
        "truth: every position of its group inside). Sizes and widths are means. Nemenyi's "
        "group of the leader and Holm against the best are measured on the same benchmarks. "
        f"Lowest coverage of Podium's set or intervals in any cell: {worst:.2f} "
        f"(nominal {LEVEL:.2f}, floor {FLOOR:.2f}; Monte Carlo standard error at 0.95: "
        f"{np.sqrt(0.95 * 0.05 / payload['replicates']):.3f}).",
        "",
    ]
    rows = [
        [
            c["truth"],
            c["n"],
            c["m"],
            f"{c['podium_coverage']:.2f}",
            f"{c['podium_size']:.1f}",
            f"{c['nemenyi_coverage']:.2f}",
            f"{c['nemenyi_size']:.1f}",
            f"{c['holm_coverage']:.2f}",
            f"{c['holm_size']:.1f}",
            f"{c['ranks_coverage']:.2f}",
            f"{c['ranks_width']:.1f}",
        ]
        for c in cells
    ]
    lines.append(
        markdown_table(
            [
                "truth",
                "n",
                "m",
                "Podium set: coverage",
                "size",
                "Nemenyi group: coverage",
                "size",
                "Holm vs best: coverage",
                "size",
                "rank intervals: joint coverage",
                "mean width",
            ],
            rows,
        )
    )
    return "\n".join(lines)


def run(options: Options) -> str:
    quick = options.quick
    replicates = QUICK_REPLICATES if quick else REPLICATES
    truths = grid_truths(QUICK_M if quick else GRID_M, real=not quick)
    started = time.process_time()
    cells = run_grid(
        truths, QUICK_N if quick else GRID_N, replicates, options.seed, progress=not quick
    )
    payload = {
        "level": LEVEL,
        "replicates": replicates,
        "seed": options.seed,
        "machine": machine_line(),
        "cpu_seconds": time.process_time() - started,
        "truths": {t.key: t.label for t in truths},
        "cells": cells,
    }
    section = report(payload)
    if not quick:
        companion_table_store("rank_sets", payload, section)
    return section
