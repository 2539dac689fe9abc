"""Suite ``advisor``: the estimator advisor's CPU against the bootstrap it is held to.

Issue 43 item 5 asks that the advisor's share of "complete" be at most the bootstrap's
at m = 20, n = 100, 10 folds. In one process (minimum of ``--repeats`` calls, run with
``OPENBLAS_NUM_THREADS=1`` as the worker is) this suite takes the bootstrap stage of
``analyze`` (B = 1000) as suite_latency does, from the stage timings (wall seconds of
single-threaded work: its CPU on a quiet machine), and times in CPU, at the same size,
``advise`` (METHODS 8's simulations) at several numbers of simulated benchmarks per size
and truth ``S``, then the rest of ``analyze_advisor`` (the datasets needed and the folds
power's hierarchical sampler).
A straight line through ``advise``'s times in ``S`` splits its cost into a part per
simulation and a part that does not shrink with ``S`` (drawing each pool, building its
design, the refits' fixed steps): what ``S`` alone can and cannot buy.
"""

from __future__ import annotations

import time

import numpy as np

from bench.common import Options, best_time, fmt_seconds, markdown_table, result_table

SIZE = (20, 100, 10)
QUICK_SIZE = (6, 20, 3)
SIMULATIONS = (200, 100, 50, 10)
QUICK_SIMULATIONS = (20, 10)


def run(options: Options) -> str:
    from estimation.core.advisor import advise
    from estimation.core.analysis import AnalysisSettings, _prepared, analyze, analyze_advisor

    m, n, folds = QUICK_SIZE if options.quick else SIZE
    counts = QUICK_SIMULATIONS if options.quick else SIMULATIONS
    repeats = 1 if options.quick else options.repeats
    table = result_table(m, n, folds=folds, seed=options.seed)
    settings = AnalysisSettings()
    prepared = _prepared(table, settings)  # the rankings analyze reads under the settings
    K = min(settings.k, prepared.known_positions)
    # The stage's own timing, as suite_latency reads it from the worker's snapshot.
    bootstrap = min(
        analyze(table, settings, advisor=False).timings["bootstrap"] for _ in range(repeats + 1)
    )
    advise_cpu = {
        s: best_time(
            lambda s=s: advise(
                prepared.ranks,
                rng=options.seed,
                K=K,
                known_positions=prepared.known_positions,
                n_simulations=s,
            ),
            repeats=repeats,
            clock=time.process_time,
        )[0]
        for s in counts
    }
    whole, _ = best_time(
        lambda: analyze_advisor(table, settings),
        repeats=max(1, repeats // 2),
        clock=time.process_time,
    )
    per_simulation, fixed = np.polyfit(list(advise_cpu), list(advise_cpu.values()), 1)
    rows = [["bootstrap stage (B = 1000)", fmt_seconds(bootstrap), "1.00x"]]
    rows += [
        [f"`advise`, S = {s}", fmt_seconds(cpu), f"{cpu / bootstrap:.2f}x"]
        for s, cpu in advise_cpu.items()
    ]
    rows += [
        [
            "`advise`, the part S does not shrink (line's intercept)",
            fmt_seconds(fixed),
            f"{fixed / bootstrap:.2f}x",
        ],
        ["`advise`, per simulation (line's slope)", fmt_seconds(per_simulation), ""],
        [
            "`analyze_advisor` (S = 200, no rope: with the folds power's sampler)",
            fmt_seconds(whole),
            f"{whole / bootstrap:.2f}x",
        ],
    ]
    return "\n\n".join(
        [
            f"### advisor (m={m}, n={n}, {folds} folds; minimum of {repeats})",
            markdown_table(["part", "seconds", "÷ bootstrap"], rows),
        ]
    )
