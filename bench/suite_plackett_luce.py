"""Suite ``plackett_luce``: one Plackett-Luce fit, ours against choix.

Both fit the same tie-free full rankings (scores drawn from a Gumbel model, so the data
are Plackett-Luce). Ours: ``aggregates.plackett_luce`` (MM iterations, default Gamma
prior 0.1). choix: ``ilsr_rankings`` (iterative Luce spectral ranking, no
regularisation) and, at the small size only by default, ``opt_rankings`` (L-BFGS on
the likelihood; 77 s at m=100, n=1000 in a trial run, so it is skipped there). Both
libraries stop at a tolerance of 1e-8. Agreement is the largest difference between the
normalised worths.
"""

from __future__ import annotations

import numpy as np

from bench.common import Options, best_time, fmt_ratio, fmt_seconds, markdown_table

SIZES = [(20, 100), (100, 1000)]
QUICK_SIZES = [(10, 30)]
OPT_MAX_CELLS = 20 * 100  # opt_rankings beyond this takes minutes


def gumbel_rankings(m: int, n: int, seed: int) -> np.ndarray:
    from estimation.core.rankings import rank_scores

    rng = np.random.default_rng(seed)
    log_worth = np.linspace(0.0, 2.0, m)
    return rank_scores(log_worth + rng.gumbel(size=(n, m)))


def _normalised(log_worth: np.ndarray) -> np.ndarray:
    worth = np.exp(log_worth - log_worth.max())
    return worth / worth.sum()


def run(options: Options) -> str:
    import choix

    from estimation.core import aggregates

    sizes = QUICK_SIZES if options.quick else SIZES
    repeats = 1 if options.quick else options.repeats
    rows = []
    for m, n in sizes:
        ranks = gumbel_rankings(m, n, options.seed)
        orders = [list(np.argsort(row, kind="stable")) for row in ranks]  # best first
        ours_time, ours = best_time(lambda r=ranks: aggregates.plackett_luce(r), repeats=repeats)
        mle_worths = aggregates.plackett_luce(ranks, prior_strength=1e-12).worths
        ilsr_time, ilsr = best_time(
            lambda o=orders, k=m: choix.ilsr_rankings(k, o), repeats=repeats, budget=120
        )
        if m * n <= OPT_MAX_CELLS:
            opt_time, opt = best_time(
                lambda o=orders, k=m: choix.opt_rankings(k, o), repeats=repeats, budget=60
            )
            opt_cells = [fmt_seconds(opt_time), fmt_ratio(opt_time, ours_time)]
            opt_diff = f"{np.abs(_normalised(opt) - mle_worths).max():.1e}"
        else:
            opt_cells, opt_diff = ["skipped", "–"], "–"
        rows.append(
            [
                f"m={m}, n={n}",
                fmt_seconds(ours_time),
                str(ours.iterations),
                fmt_seconds(ilsr_time),
                fmt_ratio(ilsr_time, ours_time),
                *opt_cells,
                f"{np.abs(_normalised(ilsr) - mle_worths).max():.1e}",
                opt_diff,
                f"{np.abs(ours.worths - mle_worths).max():.1e}",
            ]
        )
    headers = [
        "size",
        "ours",
        "MM iterations",
        "choix ilsr_rankings",
        "ilsr/ours",
        "choix opt_rankings",
        "opt/ours",
        "max abs Δworth ilsr",
        "max abs Δworth opt",
        "prior 0.1 vs none",
    ]
    return "\n\n".join(
        [
            f"### plackett_luce (min of {repeats} after a warm-up)",
            markdown_table(headers, rows),
            "Δworth compares choix with ours fitted without the prior (prior_strength=1e-12, "
            "the same maximum-likelihood problem); the last column is how far the default "
            "prior (0.1, the one timed) moves the worths.",
        ]
    )
