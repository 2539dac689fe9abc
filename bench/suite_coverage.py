"""Suite ``coverage``: how often every displayed interval covers what it claims (issue 21).

Benchmarks are drawn from known truths and analysed with the engine's own functions, as
the analysis calls them (not the Django stack); each interval is checked against the
truth it claims to cover:

* each estimator's own 95 % interval (``resampling.bootstrap``, bias-corrected
  percentile, the engine's default B and K) and the win rate's exact interval
  (``intervals.win_intervals``) against the true probability that each algorithm wins a
  new dataset;
* the win rate's simultaneous (Bonferroni) exact intervals against all the true win probabilities at once;
* the simultaneous rank intervals (``rank_inference.rank_intervals``, on the bootstrap
  replicates of the default estimator ``loo_kl`` and of the win rate) against the ranks
  of the true win probabilities, all at once, and their plausible winners against the
  truly best algorithm.

Truths: Plackett-Luce with fixed worths (the true P(win) of ``j`` is ``w_j / sum(w)``,
PL's first-place probability) at every ``m``, and real tables resampled (``n`` datasets
drawn with replacement from the table's rankings; the truth is the table's own
tie-split win rate) at the table's own ``m``. A truth with tied leaders counts the
leader's coverage as the mean over the tied leaders.

Coverage figures are Monte Carlo estimates from ``R`` simulated benchmarks per cell
(:data:`REPLICATES`; the win rate's exact intervals, closed forms, on :data:`ANALYTIC_REPLICATES`
more), seeded per cell; the table states ``R`` and the standard error
``sqrt(c (1 - c) / R)`` (for averages over algorithms that is an upper bound: the
average of ``m`` indicators varies less than one of them).

``python -m bench coverage`` (not ``--quick``) also replaces this suite's section of
bench/README.md and writes the machine-readable table the methods page reads,
``docs/coverage.json`` (:data:`COVERAGE_JSON`).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import ROOT, Options, machine_line, markdown_table

# The truths live in coverage_truths; their names stay readable here (tests/bench).
from bench.coverage_truths import (  # noqa: F401
    COVER_TOL,
    PL_SHAPES,
    Truth,
    grid_truths,
    pl_worths,
    plackett_luce_truth,
    real_truths,
    resampled_truth,
)

GRID_N = (10, 30, 100)
GRID_M = (4, 10, 30)
QUICK_N = (10, 30)
QUICK_M = (4,)
REPLICATES = 100
ANALYTIC_REPLICATES = 2000
"""Benchmarks per cell for the win rate's exact intervals (closed forms, milliseconds each)."""
ANALYTIC = ("exact", "exact_simultaneous")
QUICK_REPLICATES = 10
QUICK_ANALYTIC_REPLICATES = 100
QUICK_BOOTSTRAP = 200
LEVEL = 0.95
CONFIDENCE_FLOOR = 0.93
"""An interval may be called a confidence interval where it covers at least this often."""
"""Interval ends are compared with the truth within this (rounding of the quantiles)."""

COVERAGE_JSON = ROOT / "docs" / "coverage.json"
README = ROOT / "bench" / "README.md"
SECTION_START = "<!-- coverage: written by `python -m bench coverage`; do not edit by hand -->"
SECTION_END = "<!-- coverage: end -->"


# --------------------------------------------------------------------------------------
# truths


# --------------------------------------------------------------------------------------
# intervals


@dataclass(frozen=True)
class Family:
    """One displayed interval and what it claims to cover.

    ``shows`` names the interval in what :func:`displayed_intervals` returns; ``target``
    is what it is checked against: ``"p"`` the true win probabilities, ``"rank"`` the
    true ranks (a tie in the truth is covered when the interval holds any of the tied
    positions), ``"rank_all"`` the same but holding every tied position, ``"best"`` a
    set of algorithms that should contain a truly best one. ``claim`` is ``"each"``
    (every algorithm's own truth, pointwise), ``"all"`` (all at once) or ``"set"``.
    """

    key: str
    label: str
    claim: str
    target: str = "p"
    shows: str = ""

    @property
    def interval(self) -> str:
        return self.shows or self.key

    @property
    def claims(self) -> str:
        """What the family claims to cover, in words."""
        if self.target == "best":
            return "holds a truly best algorithm"
        if self.target == "p":
            return "each algorithm's P(win)" if self.claim == "each" else "all P(win) at once"
        ties = "any" if self.target == "rank" else "all"
        return f"all ranks at once (a tie in the truth: {ties} of its positions)"


RANKED = ("loo_kl", "mle")
"""Estimators whose rank intervals are measured: Podium's default (what a board shows
unless its maintainer chose another) and the win rate, whose estimand is P(win) at
every n."""


def families() -> tuple[Family, ...]:
    from estimation.core.registry import ESTIMATORS, estimator_get

    ranked = []
    for key in RANKED:
        name = estimator_get(key).short_label
        ranked += [
            Family(f"ranks_{key}", f"Rank intervals ({name})", "all", "rank", f"ranks:{key}"),
            Family(
                f"ranks_all_ties_{key}",
                f"Rank intervals ({name}), ties strict",
                "all",
                "rank_all",
                f"ranks:{key}",
            ),
            Family(f"winners_{key}", f"Plausible winners ({name})", "set", "best", f"best:{key}"),
        ]
    return (
        *(
            Family(e.key, f"{e.short_label}: its own bootstrap interval", "each")
            for e in ESTIMATORS
        ),
        Family("exact", "Exact (win rate)", "each"),
        Family("exact_simultaneous", "Exact, simultaneous by Bonferroni (win rate)", "all"),
        *ranked,
    )


Shown = tuple[np.ndarray, np.ndarray] | np.ndarray
"""A (lower, upper) pair of arrays, or a boolean mask over algorithms (a set)."""


def displayed_intervals(
    ranks: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int,
    K: int,
    known_positions: int | None = None,
) -> dict[str, Shown]:
    """Every interval a board shows for one benchmark, computed as the analysis does
    (``uncertainty_sections.bootstrap_sections`` and ``.win_interval_section``): each estimator's own
    bootstrap interval, the win rate's exact intervals, and the rank intervals and plausible winners
    from the replicates of the estimators in :data:`RANKED`."""
    from estimation.core.rank_inference import rank_intervals
    from estimation.core.resampling import bootstrap
    from estimation.core.uncertainty_sections import BOOTSTRAP_LEVEL, RANK_LEVEL

    boot = bootstrap(
        ranks,
        rng=rng,
        n_boot=n_boot,
        K=K,
        known_positions=known_positions,
        level=BOOTSTRAP_LEVEL,
        keep=RANKED,
    )
    out: dict[str, Shown] = {key: (s.lower, s.upper) for key, s in boot.schemes.items()}
    out.update(win_rate_intervals(ranks, rng=rng, n_boot=n_boot, K=K))
    for key in RANKED:
        chosen = boot.schemes[key]
        inference = rank_intervals(
            chosen.estimate, chosen.replicates, n_datasets=len(ranks), level=RANK_LEVEL
        )
        out[f"ranks:{key}"] = (inference.lower, inference.upper)
        out[f"best:{key}"] = inference.best
    return out


def win_rate_intervals(
    ranks: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int,
    K: int,
    known_positions: int | None = None,
) -> dict[str, Shown]:
    """The win rate's exact intervals alone, pointwise and simultaneous, as the analysis
    computes them (closed forms: no bootstrap, so they are checked on many more
    benchmarks)."""
    from estimation.core.intervals import win_intervals
    from estimation.core.uncertainty_sections import WIN_INTERVAL_LEVEL

    wins = win_intervals(ranks, level=WIN_INTERVAL_LEVEL)
    return {
        "exact": (wins.lower, wins.upper),
        "exact_simultaneous": (wins.simultaneous_lower, wins.simultaneous_upper),
    }


IntervalsFn = Callable[..., dict[str, Shown]]


def true_rank_span(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last position (1 = best) each algorithm may take in the truth: equal
    true probabilities (within 1e-12) share the positions of their tie group."""
    first = 1 + (p[None, :] > p[:, None] + COVER_TOL).sum(axis=1)
    last = (p[None, :] >= p[:, None] - COVER_TOL).sum(axis=1)
    return first, last


def hits(family: Family, shown: Shown, truth: Truth) -> np.ndarray:
    """Per algorithm, whether ``shown`` covers the truth (for a set: one entry)."""
    if family.target == "best":
        return np.array([bool(np.asarray(shown)[truth.leaders].any())])
    lower, upper = shown
    if family.target == "p":
        return (lower - COVER_TOL <= truth.p) & (truth.p <= upper + COVER_TOL)
    first, last = true_rank_span(truth.p)
    if family.target == "rank":
        return (lower <= last) & (first <= upper)
    if family.target == "rank_all":
        return (lower <= first) & (last <= upper)
    raise ValueError(f"target must be p, rank, rank_all or best, got {family.target!r}")


def width(family: Family, shown: Shown) -> float:
    """Mean width of the intervals (in probability or in ranks); a set's size."""
    if family.target == "best":
        return float(np.asarray(shown).sum())
    lower, upper = shown
    return float(np.mean(np.asarray(upper, dtype=float) - lower))


# --------------------------------------------------------------------------------------
# simulation


@dataclass(frozen=True)
class Coverage:
    """Coverage of one interval family in one cell (shares of the ``R`` benchmarks).

    For a set (``claim="set"``) every field but ``width`` is the share of benchmarks
    whose set holds a truly best algorithm, and ``width`` its mean size.
    """

    per_algorithm: float
    leader: float
    joint: float
    width: float
    replicates: int

    def to_dict(self) -> dict[str, float | int]:
        rounded: dict[str, float | int] = {
            k: round(v, 4) for k, v in vars(self).items() if k != "replicates"
        }
        return {**rounded, "replicates": self.replicates}


@dataclass(frozen=True)
class Cell:
    truth: str
    n: int
    m: int
    seconds: float
    coverage: dict[str, Coverage] = field(default_factory=dict)


def cell_seed(
    seed: int, truth_index: int, n: int, m: int, stream: int = 0
) -> np.random.SeedSequence:
    """One independent stream per (truth, n, m) and pass (``stream``): a cell's numbers
    do not depend on which other cells run."""
    return np.random.SeedSequence([seed, truth_index, n, m, stream])


def simulate_cell(
    truth: Truth,
    n: int,
    *,
    replicates: int,
    rng: np.random.Generator,
    n_boot: int,
    K: int,
    intervals: IntervalsFn = displayed_intervals,
    checked: Sequence[Family] | None = None,
) -> Cell:
    """Draw ``replicates`` benchmarks of ``n`` datasets from ``truth`` and check every
    family of ``checked`` (default :func:`families`) against it; ``intervals``
    (default :func:`displayed_intervals`) computes what is shown."""
    started = time.perf_counter()
    checked = tuple(families() if checked is None else checked)
    covered: dict[str, list[np.ndarray]] = {f.key: [] for f in checked}
    widths: dict[str, list[float]] = {f.key: [] for f in checked}
    for _ in range(replicates):
        ranks = truth.draw(rng, n)
        shown = intervals(ranks, rng=rng, n_boot=n_boot, K=K, known_positions=truth.known_positions)
        for family in checked:
            covered[family.key].append(hits(family, shown[family.interval], truth))
            widths[family.key].append(width(family, shown[family.interval]))
    leaders = truth.leaders
    coverage = {}
    for family in checked:
        table = np.array(covered[family.key])  # (R, m), or (R, 1) for a set
        leader = table.mean() if family.target == "best" else table[:, leaders].mean()
        coverage[family.key] = Coverage(
            per_algorithm=float(table.mean()),
            leader=float(leader),
            joint=float(table.all(axis=1).mean()),
            width=float(np.mean(widths[family.key])),
            replicates=replicates,
        )
    return Cell(truth.key, n, truth.m, time.perf_counter() - started, coverage)


def standard_error(c: float, replicates: int) -> float:
    """Monte Carlo standard error of a coverage share, ``sqrt(c (1 - c) / R)``."""
    return float(np.sqrt(max(c * (1.0 - c), 0.0) / replicates))


def run_grid(
    truths: Sequence[Truth],
    grid_n: Sequence[int],
    *,
    replicates: int,
    analytic_replicates: int,
    seed: int,
    n_boot: int,
    K: int,
    progress: bool = False,
) -> list[Cell]:
    """Every cell of the grid, in two passes with their own streams: the intervals that
    need the bootstrap on ``replicates`` benchmarks, and the win rate's exact intervals (closed
    forms, no bootstrap) on ``analytic_replicates`` further benchmarks."""
    bootstrapped = [f for f in families() if f.key not in ANALYTIC]
    analytic = [f for f in families() if f.key in ANALYTIC]
    cells = []
    for index, truth in enumerate(truths):
        for n in grid_n:
            main = simulate_cell(
                truth,
                n,
                replicates=replicates,
                rng=np.random.default_rng(cell_seed(seed, index, n, truth.m)),
                n_boot=n_boot,
                K=K,
                checked=bootstrapped,
            )
            closed = simulate_cell(
                truth,
                n,
                replicates=analytic_replicates,
                rng=np.random.default_rng(cell_seed(seed, index, n, truth.m, stream=1)),
                n_boot=n_boot,
                K=K,
                intervals=win_rate_intervals,
                checked=analytic,
            )
            cell = Cell(
                truth.key,
                n,
                truth.m,
                main.seconds + closed.seconds,
                {**main.coverage, **closed.coverage},
            )
            cells.append(cell)
            if progress:
                print(
                    f"coverage: {truth.key} n={n} m={truth.m} {cell.seconds:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    return cells


# --------------------------------------------------------------------------------------
# verdicts and output


def claimed(family: Family, coverage: dict[str, Any]) -> float:
    """The coverage a family claims: each algorithm's (averaged), or all at once."""
    return coverage["per_algorithm"] if family.claim == "each" else coverage["joint"]


def qualifies(
    family: Family, cells: Sequence[dict[str, Any]], n: int, *, floor: float = CONFIDENCE_FLOOR
) -> dict[str, Any]:
    """Whether ``family`` reaches ``floor`` at ``n``, from the cells of :func:`cell_dict`.

    It does (``confidence``) when, in every cell with ``n`` datasets, what it claims (per
    algorithm or jointly) and, for a pointwise interval, the leader's coverage reach
    ``floor`` (point estimates). ``worst`` is the lowest of those with its standard error
    and cell; ``clearly_short`` says that it is more than two standard errors below
    ``floor``, i.e. not Monte Carlo noise of an interval that reaches it. ``mean`` is
    the claimed coverage averaged over the cells.
    """
    values = []
    claims = []
    for cell in cells:
        if cell["n"] != n or family.key not in cell["coverage"]:
            continue
        coverage = cell["coverage"][family.key]
        claims.append(claimed(family, coverage))
        values.append((claims[-1], coverage["replicates"], cell))
        if family.claim == "each":
            values.append((coverage["leader"], coverage["replicates"], cell))
    worst, replicates, worst_cell = min(values, key=lambda item: item[0])
    se = standard_error(worst, replicates)
    return {
        "confidence": bool(worst >= floor),
        "clearly_short": bool(worst + 2.0 * se < floor),
        "worst": round(worst, 4),
        "worst_se": round(se, 4),
        "worst_cell": f"{worst_cell['truth']} n={worst_cell['n']} m={worst_cell['m']}",
        "mean": round(float(np.mean(claims)), 4),
    }


def cell_dict(cell: Cell) -> dict[str, Any]:
    return {
        "truth": cell.truth,
        "n": cell.n,
        "m": cell.m,
        "coverage": {key: value.to_dict() for key, value in cell.coverage.items()},
    }


def verdicts(payload: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """:func:`qualifies` for every family and n of the payload's cells."""
    fams = [Family(**f) for f in payload["families"]]
    grid_n = sorted({c["n"] for c in payload["cells"]})
    return {f.key: {str(n): qualifies(f, payload["cells"], n) for n in grid_n} for f in fams}


def coverage_payload(
    cells: Sequence[Cell],
    truths: Sequence[Truth],
    *,
    replicates: int,
    analytic_replicates: int,
    n_boot: int,
    K: int,
    seed: int,
    seconds: float,
    cpu_seconds: float,
) -> dict[str, Any]:
    """The machine-readable table (``docs/coverage.json``); bench/README.md describes it."""
    payload: dict[str, Any] = {
        "about": "How often each displayed interval covers what it claims, measured by "
        "simulation (python -m bench coverage). Coverage values are shares of the cell's "
        "`replicates` simulated benchmarks; standard error sqrt(c (1 - c) / replicates).",
        "level": LEVEL,
        "confidence_floor": CONFIDENCE_FLOOR,
        "replicates": replicates,
        "analytic_replicates": analytic_replicates,
        "bootstrap": n_boot,
        "K": K,
        "seed": seed,
        "command": "python -m bench coverage" + (f" --seed {seed}" if seed else ""),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "measured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine_line(),
        "families": [
            {"key": f.key, "label": f.label, "claim": f.claim, "target": f.target, "shows": f.shows}
            for f in families()
        ],
        "truths": [{"key": t.key, "label": t.label, "m": t.m, "source": t.source} for t in truths],
        "cells": [cell_dict(c) for c in cells],
    }
    payload["verdicts"] = verdicts(payload)
    return payload


def _pct(value: float) -> str:
    return f"{value:.3f}"


def _verdict_words(verdict: dict[str, Any]) -> str:
    word = (
        "yes"
        if verdict["confidence"]
        else "**no**"
        if verdict["clearly_short"]
        else "no (within 2 SE)"
    )
    return (
        f"{word} (worst {_pct(verdict['worst'])} ± {verdict['worst_se']:.3f}, "
        f"{verdict['worst_cell']})"
    )


def report(payload: dict[str, Any], *, quick: bool = False) -> str:
    """The markdown section: verdicts per family and n, then every cell."""

    fams = [Family(**f) for f in payload["families"]]
    grid_n = sorted({c["n"] for c in payload["cells"]})
    R, R_fast = payload["replicates"], payload["analytic_replicates"]
    truths = {t["key"]: t for t in payload["truths"]}
    parts = [
        f"### coverage (nominal {LEVEL:.2f}; R = {R} simulated benchmarks per cell, "
        f"{R_fast} for the win rate's exact intervals; B = {payload['bootstrap']} bootstrap replicates, "
        f"K = {payload['K']}, seed {payload['seed']}{'; quick' if quick else ''})",
        f"`{payload['command']}`, measured {payload['measured']}: {payload['seconds']:.0f} s "
        f"wall, {payload['cpu_seconds']:.0f} s CPU, one thread "
        f"({payload['machine']}). Monte Carlo standard error of a coverage c from R "
        f"benchmarks: sqrt(c (1 - c) / R): at 0.95, {standard_error(LEVEL, R):.3f} "
        f"(R = {R}) and {standard_error(LEVEL, R_fast):.3f} (R = {R_fast}); at 0.90, "
        f"{standard_error(0.9, R):.3f} and {standard_error(0.9, R_fast):.3f}. For "
        "averages over algorithms it is an upper bound.",
        f"**Does it reach {CONFIDENCE_FLOOR} at nominal {LEVEL}?** Per n, the worst cell "
        "over every truth and m of what the interval claims (and, for a pointwise "
        "interval, of the leader's coverage), its standard error and the cell. 'yes': "
        f"every cell reaches {CONFIDENCE_FLOOR}; '**no**': the worst is more than 2 "
        "standard errors below it; 'no (within 2 SE)': below it, but by no more than the "
        "Monte Carlo noise of an interval that would reach it.",
    ]
    headers = ["interval", "claims", *(f"n = {n}" for n in grid_n)]
    rows = [
        [
            f.label,
            f.claims,
            *(_verdict_words(payload["verdicts"][f.key][str(n)]) for n in grid_n),
        ]
        for f in fams
    ]
    parts.append(markdown_table(headers, rows))
    parts.append(_confidence_line(payload, fams, grid_n))
    if payload.get("companions"):
        parts.append(
            "The same command measures "
            + " and ".join(
                {
                    "rank_sets": "the set of the best and the rank intervals of expected ranks, "
                    "beside Nemenyi's group of the leader and Holm against the best (section "
                    "'The set of the best and the rank intervals of expected ranks')",
                    "power": "the interval of the datasets needed (section 'How sure is the "
                    "datasets needed')",
                }[suite]
                for suite in payload["companions"]
            )
            + "; docs/coverage.json carries their tables under `companions`."
        )
    parts += _cell_tables(payload, fams)
    parts.append(
        "Truths: "
        + "; ".join(f"`{key}` {t['label']}" for key, t in truths.items())
        + ". Per cell, R benchmarks of n datasets are drawn from the truth and analysed "
        "as the analysis does, with the engine's functions (`resampling.bootstrap`: each "
        "estimator's own bias-corrected interval; `intervals.win_intervals`: the win rate's "
        "exact intervals; `rank_inference.rank_intervals` on the replicates of `loo_kl`, the "
        "default, and of `mle`: ranks and plausible winners). A P(win) interval covers "
        "when lower <= p <= upper (within 1e-12); a rank interval covers the rank of the "
        "true P(win); where the truth ties (equal worths, equal win rates of a table) the "
        "plain rank row counts any position of the tie as covered, the 'ties strict' row "
        "only an interval holding all of them (what the stepdown guarantees). The "
        "leader is the truly best algorithm (mean over tied leaders). Resampled tables "
        "keep their own m; their truth is the table's tie-split win rate. The exact "
        "intervals are checked on their own R benchmarks per cell (another seed stream)."
    )
    return "\n\n".join(parts)


def _confidence_line(payload: dict[str, Any], fams: list[Family], grid_n: list[int]) -> str:
    """Which estimators' own intervals may be called confidence intervals, per n."""
    from estimation.core.registry import ESTIMATOR_KEYS

    per_n = []
    for n in grid_n:
        keys = [
            f"`{f.key}`"
            for f in fams
            if f.key in ESTIMATOR_KEYS and payload["verdicts"][f.key][str(n)]["confidence"]
        ]
        per_n.append(f"n = {n}: {', '.join(keys) or 'none'}")
    return (
        "Estimators whose own interval may be called a confidence interval for the win "
        "probability (the registry's `interval_kind`), per n: "
        + "; ".join(per_n)
        + ". Every other estimator's interval is the spread of its estimate."
    )


def _cell_tables(payload: dict[str, Any], fams: list[Family]) -> list[str]:
    """Every cell's coverage and width, a table per measure."""
    parts: list[str] = []
    for measure, title in (
        (
            "claimed",
            "What each interval claims: per algorithm (averaged) for pointwise "
            "intervals, all algorithms at once for simultaneous ones, a best algorithm "
            "inside for the plausible winners",
        ),
        ("leader", "The truly best algorithm's coverage"),
        ("joint", "All algorithms covered at once"),
        (
            "width",
            "Mean width (P(win) intervals: upper - lower; rank intervals: upper - lower in "
            "positions, m - 1 when they say nothing; plausible winners: how many)",
        ),
    ):
        parts.append(f"**{title}:**")
        shown = fams if measure != "leader" else [f for f in fams if f.claim != "set"]
        if measure == "joint":
            shown = [f for f in fams if f.claim == "each"]
        headers = ["truth", "n", "m", *(f"`{f.key}`" for f in shown)]
        rows = []
        for c in payload["cells"]:
            values = []
            for f in shown:
                cov = c["coverage"][f.key]
                value = claimed(f, cov) if measure == "claimed" else cov[measure]
                values.append(f"{value:.2f}" if measure == "width" else _pct(value))
            rows.append([c["truth"], c["n"], c["m"], *values])
        parts.append(markdown_table(headers, rows))
    return parts


def write_readme_section(
    section: str,
    readme: Path = README,
    *,
    start: str = SECTION_START,
    end: str = SECTION_END,
) -> None:
    """Replace a suite's section of bench/README.md between its ``start`` and ``end``
    markers (this suite's by default), or add it before "What the numbers say"."""
    text = readme.read_text(encoding="utf-8")
    block = f"{start}\n\n{section}\n\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1]
        text = head + block + tail
    else:
        anchor = "## What the numbers say"
        head, sep, tail = text.partition(anchor)
        text = f"{head}{block}\n\n{sep}{tail}" if sep else f"{text.rstrip()}\n\n{block}\n"
    readme.write_text(text, encoding="utf-8")


def companion_table_store(suite: str, payload: dict[str, Any], section: str) -> None:
    """A companion suite's table: ``docs/<suite>.json`` (which :func:`with_companions`
    embeds) and its section of bench/README.md between its own markers."""
    (ROOT / "docs" / f"{suite}.json").write_text(
        json.dumps(payload, indent=1) + "\n", encoding="utf-8"
    )
    write_readme_section(
        section,
        README,
        start=f"<!-- {suite}: written by `python -m bench {suite}`; do not edit by hand -->",
        end=f"<!-- {suite}: end -->",
    )


COMPANIONS = ("rank_sets", "power")
"""Suites whose coverage tables belong to this one's: ``python -m bench coverage`` runs
them too, and docs/coverage.json carries their payloads (``companions``): the set of the
best and the rank intervals of expected ranks beside Nemenyi's group and Holm against the
best; the datasets needed's interval."""


def with_companions(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with the companions' stored tables (docs/<suite>.json) embedded."""
    stored = {}
    for suite in COMPANIONS:
        path = ROOT / "docs" / f"{suite}.json"
        if path.exists():
            stored[suite] = json.loads(path.read_text(encoding="utf-8"))
    return {**payload, "companions": stored}


def write_outputs(payload: dict[str, Any]) -> str:
    """Write ``docs/coverage.json`` (with the companions' tables) and this suite's
    section of bench/README.md."""
    payload = with_companions(payload)
    section = report(payload)
    COVERAGE_JSON.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    write_readme_section(section)
    return section


def run(options: Options) -> str:
    import importlib

    from estimation.core.contract import AnalysisSettings

    if not options.quick:
        for suite in COMPANIONS:
            importlib.import_module(f"bench.suite_{suite}").run(options)

    os.environ.setdefault("PODIUM_ANALYSIS_THREADS", "1")
    defaults = AnalysisSettings()
    quick = options.quick
    replicates = QUICK_REPLICATES if quick else REPLICATES
    analytic_replicates = QUICK_ANALYTIC_REPLICATES if quick else ANALYTIC_REPLICATES
    n_boot = QUICK_BOOTSTRAP if quick else defaults.bootstrap
    truths = grid_truths(QUICK_M if quick else GRID_M, real=not quick)
    started, cpu_started = time.perf_counter(), time.process_time()
    cells = run_grid(
        truths,
        QUICK_N if quick else GRID_N,
        replicates=replicates,
        analytic_replicates=analytic_replicates,
        seed=options.seed,
        n_boot=n_boot,
        K=defaults.k,
        progress=not quick,
    )
    payload = coverage_payload(
        cells,
        truths,
        replicates=replicates,
        analytic_replicates=analytic_replicates,
        n_boot=n_boot,
        K=defaults.k,
        seed=options.seed,
        seconds=time.perf_counter() - started,
        cpu_seconds=time.process_time() - cpu_started,
    )
    return report(payload, quick=True) if quick else write_outputs(payload)


def refresh_analytic(stored: dict[str, Any]) -> dict[str, Any]:
    """The stored payload with its closed-form families simulated again (their own seed
    stream per cell, as :func:`run_grid` draws them), the bootstrapped ones kept: for a
    change to the win rate's intervals alone, in seconds instead of a full run."""
    from estimation.core.contract import AnalysisSettings

    analytic = [f for f in families() if f.key in ANALYTIC]
    truths = grid_truths(GRID_M, real=True)
    index = {(c["truth"], c["n"], c["m"]): c for c in stored["cells"]}
    for number, truth in enumerate(truths):
        for n in GRID_N:
            closed = simulate_cell(
                truth,
                n,
                replicates=stored["analytic_replicates"],
                rng=np.random.default_rng(cell_seed(stored["seed"], number, n, truth.m, stream=1)),
                n_boot=stored["bootstrap"],
                K=AnalysisSettings().k,
                intervals=win_rate_intervals,
                checked=analytic,
            )
            coverage = index[(truth.key, n, truth.m)]["coverage"]
            for key in ("wilson", "goodman"):  # the families' names before engine 0.7.0
                coverage.pop(key, None)
            coverage.update({key: value.to_dict() for key, value in closed.coverage.items()})
    stored["families"] = [
        asdict(f) if f.key in ANALYTIC else next(g for g in stored["families"] if g["key"] == f.key)
        for f in families()
    ]
    stored["verdicts"] = verdicts(stored)
    return stored


if __name__ == "__main__":
    # ``python -m bench.suite_coverage --render``: rewrite the README section and the
    # verdicts from the stored cells of docs/coverage.json, without simulating again;
    # ``--analytic``: simulate the closed-form families again first (refresh_analytic).
    if sys.argv[1:] not in (["--render"], ["--analytic"]):
        sys.exit("usage: python -m bench.suite_coverage --render | --analytic")
    stored = json.loads(COVERAGE_JSON.read_text(encoding="utf-8"))
    if sys.argv[1:] == ["--analytic"]:
        stored = refresh_analytic(stored)
    stored["verdicts"] = verdicts(stored)
    print(write_outputs(stored))
