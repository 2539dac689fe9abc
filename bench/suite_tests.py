"""Suite ``tests``: Friedman + Nemenyi + all pairwise Wilcoxon, ours against the peers.

* ours: ``rank_scores`` + ``significance.friedman`` + ``nemenyi`` + ``wilcoxon_pairwise``
  (Holm), from the (n, m) score matrix.
* scikit-posthocs: ``scipy.stats.friedmanchisquare`` + ``posthoc_nemenyi_friedman`` +
  ``posthoc_wilcoxon(p_adjust="holm")``, from the same matrix (its groups as a list).
* autorank: ``autorank(df, force_mode="nonparametric")``, which runs Friedman and the
  Nemenyi critical difference (no pairwise p-values, no Wilcoxon for more than two
  populations) plus its effect sizes; it is timed once per repeat under a time cap.

The p-values of ours and scikit-posthocs are compared as a check that both did the same
work: the table reports the largest absolute difference. Times are CPU seconds of this
process (``time.process_time``: user + system of all its threads, which a loaded machine
inflates far less than wall time) and, beside the totals, wall seconds; the ratio that
counts (issue 43: >= 50x at every size) is the CPU one.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from bench.common import (
    Options,
    best_time,
    fmt_ratio,
    fmt_seconds,
    markdown_table,
    quiet,
    synthetic_scores,
)

SIZES = [(20, 100), (100, 1000), (50, 5000)]
QUICK_SIZES = [(10, 30)]


def _clock() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def _since(started: tuple[float, float]) -> tuple[float, float]:
    """(CPU, wall) seconds since ``started``."""
    cpu, wall = _clock()
    return cpu - started[0], wall - started[1]


def _ours(scores: np.ndarray) -> dict:
    from estimation.core import rankings, significance

    parts = {}
    started = _clock()
    ranks = rankings.rank_scores(scores)
    friedman = significance.friedman(ranks)
    parts["friedman"] = _since(started)
    started = _clock()
    nemenyi = significance.nemenyi(ranks)
    parts["nemenyi"] = _since(started)
    started = _clock()
    wilcoxon = significance.wilcoxon_pairwise(scores, correction="holm")
    parts["wilcoxon"] = _since(started)
    return {
        "parts": parts,
        "friedman_p": friedman.pvalue,
        "nemenyi": nemenyi.pvalues,
        "wilcoxon": wilcoxon.pvalues_corrected,
    }


def _posthocs(scores: np.ndarray) -> dict:
    import scikit_posthocs as sp
    from scipy import stats

    parts = {}
    started = _clock()
    friedman = stats.friedmanchisquare(*scores.T)
    parts["friedman"] = _since(started)
    started = _clock()
    nemenyi = sp.posthoc_nemenyi_friedman(scores)
    parts["nemenyi"] = _since(started)
    started = _clock()
    wilcoxon = sp.posthoc_wilcoxon(list(scores.T), p_adjust="holm")
    parts["wilcoxon"] = _since(started)
    return {
        "parts": parts,
        "friedman_p": friedman.pvalue,
        "nemenyi": nemenyi.to_numpy(),
        "wilcoxon": wilcoxon.to_numpy(),
    }


def _autorank(scores: np.ndarray):
    import pandas as pd
    from autorank import autorank

    frame = pd.DataFrame(scores, columns=[f"a{j}" for j in range(scores.shape[1])])
    with quiet():
        return autorank(frame, alpha=0.05, verbose=False, force_mode="nonparametric")


def _min_parts(fn, scores, repeats: int) -> tuple[tuple[float, float], dict, dict]:
    """Least CPU total (with its wall time) and, for that run, its parts (CPU, wall)."""
    fn(scores)  # warm-up
    best_total, best_parts, result = (float("inf"), float("inf")), {}, {}
    for _ in range(repeats):
        started = _clock()
        result = fn(scores)
        total = _since(started)
        if total[0] < best_total[0]:
            best_total, best_parts = total, result["parts"]
    return best_total, best_parts, result


def run(options: Options, *, autorank_cap: float = 60.0) -> str:
    warnings.simplefilter("ignore")
    sizes = QUICK_SIZES if options.quick else SIZES
    repeats = 1 if options.quick else options.repeats
    rows, checks = [], []
    for m, n in sizes:
        scores, _ = synthetic_scores(m, n, seed=options.seed)
        ours_total, ours_parts, ours = _min_parts(_ours, scores, repeats)
        peer_total, peer_parts, peer = _min_parts(_posthocs, scores, repeats)
        auto_time, auto = best_time(
            lambda s=scores: _autorank(s), repeats=repeats, budget=autorank_cap
        )
        rows.append(
            [
                f"m={m}, n={n}",
                fmt_seconds(ours_parts["friedman"][0]),
                fmt_seconds(ours_parts["nemenyi"][0]),
                fmt_seconds(ours_parts["wilcoxon"][0]),
                f"**{fmt_seconds(ours_total[0])}**",
                fmt_seconds(peer_parts["friedman"][0]),
                fmt_seconds(peer_parts["nemenyi"][0]),
                fmt_seconds(peer_parts["wilcoxon"][0]),
                f"**{fmt_seconds(peer_total[0])}**",
                f"**{fmt_ratio(peer_total[0], ours_total[0])}**",
                f"{fmt_seconds(ours_total[1])} / {fmt_seconds(peer_total[1])}",
                fmt_ratio(peer_total[1], ours_total[1]),
                fmt_seconds(auto_time),
                fmt_ratio(auto_time, ours_total[1]),
            ]
        )
        checks.append(
            [
                f"m={m}, n={n}",
                f"{abs(ours['friedman_p'] - peer['friedman_p']):.1e}",
                f"{np.nanmax(np.abs(ours['nemenyi'] - peer['nemenyi'])):.1e}",
                f"{np.nanmax(np.abs(ours['wilcoxon'] - peer['wilcoxon'])):.1e}",
                f"{auto.omnibus} + {auto.posthoc}",
            ]
        )
    headers = [
        "size",
        "ours Friedman",
        "ours Nemenyi",
        "ours Wilcoxon",
        "ours total",
        "skp Friedman",
        "skp Nemenyi",
        "skp Wilcoxon",
        "skp total",
        "skp/ours CPU",
        "wall ours / skp",
        "skp/ours wall",
        "autorank (wall)",
        "autorank/ours wall",
    ]
    load = os.getloadavg()
    return "\n\n".join(
        [
            f"### tests (CPU seconds, least of {repeats} after a warm-up; m algorithms, "
            f"n datasets; load average at the end {load[0]:.1f})",
            markdown_table(headers, rows),
            "Agreement (largest |p_ours - p_peer|; ours' Friedman p is tie-corrected like "
            "scipy's; Wilcoxon p-values Holm-corrected on both sides):",
            markdown_table(
                ["size", "Friedman p", "Nemenyi p", "Wilcoxon p (Holm)", "autorank ran"], checks
            ),
            "skp = scikit-posthocs (scipy.stats.friedmanchisquare + posthoc_nemenyi_friedman "
            "+ posthoc_wilcoxon). autorank computes Friedman + the Nemenyi critical "
            "difference only (no pairwise p-values or Wilcoxon), so it does less work.",
        ]
    )
