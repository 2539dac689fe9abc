"""Suite ``bigboards``: the biggest boards' whole analysis, this engine against a reference.

Each shape runs ``bench.analyze_child`` (every estimator and test, B = 1000 bootstrap,
the 10 x 5 evaluation: what the worker computes for "complete"; the advisor is not run
above ``advisor.MAX_ALGORITHMS``) in a child interpreter, timed once, with this
checkout's engine ("after") and with the engine of :data:`REFERENCE` ("before",
extracted from git), in one run. CPU seconds are the figure to read on a shared machine.

Targets (issue 43): 5000 x 6 under 60 s of CPU; 10000 x 6 under 120 s and 1.5 GB.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bench.common import Options, engine_at, fmt_seconds, machine_line, markdown_table, run_child

REFERENCE = "cb758b9eb87f2603d2770c3988611a42b77a9717"
"""Main before the work on the biggest boards (2026-12-05)."""

SHAPES = ((5000, 6, 60.0, None), (10000, 6, 120.0, 1536.0))
QUICK_SHAPES = ((300, 6, None, None), (600, 6, None, None))
TIMEOUT = 1800.0


def _measure(m: int, n: int, options: Options, source: Path | None) -> dict:
    args = [str(v) for v in (m, n, 0, 1, options.seed)]
    args += ["--bootstrap", "100" if options.quick else "1000"]
    try:
        return run_child("bench.analyze_child", *args, timeout=TIMEOUT, source=source)
    except RuntimeError as error:
        return {"refused": str(error).splitlines()[-1][:200]}


def run(options: Options) -> str:
    rows = []
    with tempfile.TemporaryDirectory() as work:
        before = engine_at(REFERENCE, Path(work) / "before")
        for m, n, seconds, memory in QUICK_SHAPES if options.quick else SHAPES:
            results = {"before": _measure(m, n, options, before) if before else None}
            results["after"] = _measure(m, n, options, None)
            for label, result in results.items():
                if result is None or "refused" in result:
                    reason = "no reference engine" if result is None else result["refused"]
                    rows.append([f"m={m}, n={n}", label, reason, "", "", "", ""])
                    continue
                stages = result["stages"]
                rows.append(
                    [
                        f"m={m}, n={n}",
                        label,
                        f"**{result['cpu_seconds']:.1f} s**"
                        + ("" if seconds is None else f" (< {seconds:.0f} s)"),
                        fmt_seconds(result["seconds"]),
                        fmt_seconds(stages.get("bootstrap")),
                        fmt_seconds(stages.get("tests")),
                        f"{result['peak_rss_mib']:.0f} MiB"
                        + ("" if memory is None else f" (< {memory:.0f})"),
                    ]
                )
            done = [r for r in results.values() if r and "refused" not in r]
            if len(done) == 2:
                ratio = done[0]["cpu_seconds"] / done[1]["cpu_seconds"]
                rows.append([f"m={m}, n={n}", "before / after CPU", f"**{ratio:.2f}x**"] + [""] * 4)
    table = markdown_table(
        ["shape", "engine", "CPU (target)", "wall", "bootstrap (wall)", "tests (wall)", "peak RSS"],
        rows,
    )
    return (
        "#### bigboards (analysis with bootstrap 1000 and 10 x 5 evaluation, each in a child,"
        f" timed once; before = {REFERENCE[:7]})\n\n{table}\n"
    )


if __name__ == "__main__":
    print(f"Machine: {machine_line()}\n")
    print(run(Options(quick="--quick" in sys.argv[1:])))
