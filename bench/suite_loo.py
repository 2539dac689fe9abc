"""Suite ``loo``: the leave-one-out weight fits against the cost of ranking the scores.

Ranking the (n, m) score matrix (``rankings.rank_scores``) is the floor of any estimator
that starts from scores; the target is that both LOO fits together (``fit_loo``, one
pass for KL and TV, which is what the analysis calls) stay within 2x of it.
"""

from __future__ import annotations

from bench.common import Options, best_time, fmt_seconds, markdown_table, synthetic_scores

SIZES = [(20, 100), (100, 1000), (500, 5000)]
QUICK_SIZES = [(10, 30)]


def run(options: Options) -> str:
    from estimation.core import rankings, win_probability

    sizes = QUICK_SIZES if options.quick else SIZES
    repeats = 1 if options.quick else options.repeats
    rows = []
    for m, n in sizes:
        scores, _ = synthetic_scores(m, n, seed=options.seed)
        floor, ranks = best_time(lambda s=scores: rankings.rank_scores(s), repeats=repeats)
        kl, _ = best_time(lambda r=ranks: win_probability.fit_loo_kl(r, K=3), repeats=repeats)
        tv, _ = best_time(lambda r=ranks: win_probability.fit_loo_tv(r, K=3), repeats=repeats)
        both, _ = best_time(lambda r=ranks: win_probability.fit_loo(r, K=3), repeats=repeats)
        ratio = both / floor
        rows.append(
            [
                f"m={m}, n={n}",
                fmt_seconds(floor),
                fmt_seconds(kl),
                fmt_seconds(tv),
                fmt_seconds(both),
                f"{ratio:.1f}x",
                "yes" if ratio <= 2 else "no",
            ]
        )
    headers = [
        "size",
        "rank_scores (floor)",
        "fit_loo_kl",
        "fit_loo_tv",
        "fit_loo (both)",
        "÷ floor",
        "≤ 2x",
    ]
    return "\n\n".join(
        [f"### loo (K=3; min of {repeats} after a warm-up)", markdown_table(headers, rows)]
    )
