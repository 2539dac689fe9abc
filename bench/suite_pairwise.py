"""Memory, CPU and snapshot size of the full analysis as m grows at n = 6 (issue 25).

Each size in a child interpreter (``bench.analyze_child``, so its peak RSS is its own),
timed once: CPU time (user + system of the analysis, which a loaded machine inflates far
less than wall time), peak RSS of the analysis and after its payload is made JSON, the
payload's bytes as compact JSON (what the recompute stores), and the exponent of each
against m fitted by least squares on the logarithms. Targets: m = 5000 in < 60 s CPU and
< 1.5 GB with a snapshot < 50 MB; m = 2000 < 1 GB; peak RSS growing no faster than m^1.2.
"""

from __future__ import annotations

import os
import subprocess

import numpy as np

from bench.common import Options, machine_line, markdown_table, run_child

SIZES = (1000, 2000, 5000)
QUICK_SIZES = (200, 400, 800)  # 800 is above analysis.MAX_PAIRWISE_ALGORITHMS
N_DATASETS = 6
TIMEOUT = 1800.0
MAX_MEMORY_GIB = 8.0


def _measure(m: int, options: Options) -> dict:
    args = [str(v) for v in (m, N_DATASETS, 0, 1, options.seed)]
    try:
        return run_child(
            "bench.analyze_child", *args, timeout=TIMEOUT, max_memory_gib=MAX_MEMORY_GIB
        )
    except subprocess.TimeoutExpired:
        return {"refused": f"did not finish in {TIMEOUT:.0f} s"}
    except RuntimeError as error:  # the child died (out of memory, a crash)
        return {"refused": str(error).splitlines()[-1][:200]}


def exponent(sizes: list[int], values: list[float]) -> float | None:
    """Least-squares slope of log(value) against log(m)."""
    if len(sizes) < 2:
        return None
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def run(options: Options) -> str:
    sizes = QUICK_SIZES if options.quick else SIZES
    load_before = os.getloadavg()[0]
    results = {m: _measure(m, options) for m in sizes}
    load_after = os.getloadavg()[0]
    rows, done = [], [m for m in sizes if "refused" not in results[m]]
    for m in sizes:
        r = results[m]
        if "refused" in r:
            rows.append([f"m={m}, n={N_DATASETS}", r["refused"], "", "", "", ""])
            continue
        rows.append(
            [
                f"m={m}, n={N_DATASETS}",
                f"{r['cpu_seconds']:.1f} s",
                f"{r['seconds']:.1f} s",
                f"{r['peak_rss_mib']:.0f} MiB",
                f"{r['peak_rss_with_json_mib']:.0f} MiB",
                f"{r['payload_bytes'] / 1e6:.2f} MB",
            ]
        )
    fits = []
    for label, key in (
        ("CPU", "cpu_seconds"),
        ("peak RSS", "peak_rss_mib"),
        ("peak RSS with JSON", "peak_rss_with_json_mib"),
        ("snapshot bytes", "payload_bytes"),
    ):
        slope = exponent(done, [results[m][key] for m in done])
        fits.append(f"{label} m^{slope:.2f}" if slope is not None else f"{label}: -")
    return "\n".join(
        [
            f"### pairwise (full analysis at n = {N_DATASETS}, no folds, B = 1000; each size "
            "in a child interpreter, timed once; the advisor apart, as the recompute runs it)",
            "",
            markdown_table(
                [
                    "shape",
                    "CPU",
                    "wall",
                    "peak RSS",
                    "peak RSS with JSON",
                    "snapshot (compact JSON)",
                ],
                rows,
            ),
            "",
            f"Fitted exponents against m ({', '.join(map(str, done))}): " + "; ".join(fits) + ".",
            f"Load average (1 min) before/after: {load_before:.2f}/{load_after:.2f}. "
            + machine_line(),
        ]
    )
