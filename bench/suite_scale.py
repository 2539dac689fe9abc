"""Suite ``scale``: the full analysis on leaderboard shapes, today's engine against this one.

Each shape runs ``analysis.analyze`` (every estimator and test, the bootstrap, the
10 x 5 evaluation) in a child interpreter whose peak RSS is its own, once with the
engine of this checkout ("after") and once with the engine of :data:`BASELINE`
("today", extracted from git into a temporary directory; the data generator and the
child are this checkout's, so both engines see the same table). The ratio today/after
comes from the same run. Where both engines finish on a shape with at most 200
algorithms, their payloads are compared number by number (every path the two
payloads share, timings left out): the scale work must not change a number there.

Targets (issue 8): m=300, n=56 under 10 s and 1 GB; m=2000, n=6 under 30 s and 1.5 GB
(board section under 1 MB); m=500, n=5000 under 30 s; m=100, n=1000 with 10 folds no
slower than today.

First, growth exponents (issue 43: kept <= 1.0): this checkout's analysis on two
ladders, m at n = 6 (:data:`M_LADDER`) and n at m = 20 (:data:`N_LADDER`), each size in a
child timed once; the least-squares slope of log CPU seconds and of log peak memory (the
child's peak RSS above its RSS before the analysis: the interpreter and imports are not
the analysis' growth) against log m or log n. ``python -m bench.suite_scale growth``
prints that table alone.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import Options, engine_at, fmt_seconds, machine_line, markdown_table, run_child

BASELINE = "0bf631f780195e04b1c3f74a1e2e51967aef783b"
"""Main before the scale work of issue 8 (2026-11-30): the engine called "today"."""

TIMEOUT = 1200.0
"""Seconds a child of this checkout's engine may take."""

TODAY_TIMEOUT = 300.0
"""Seconds today's engine may take: ten times the largest target. It needed more than
8 minutes at m = 2000 (stopped by hand), which is reported as not finished."""

MAX_MEMORY_GIB = 8.0
"""Address-space cap of a child: today's engine needs gigabytes at m = 2000."""

COMPARE_MAX_ALGORITHMS = 200
STAGES = ("ranking", "estimators", "tests", "within_dataset", "bootstrap", "evaluation")


@dataclass(frozen=True)
class Shape:
    label: str
    m: int
    n: int
    folds: int
    bootstrap: int
    seconds: float | None  # target; None: no slower than today
    memory_mib: float | None
    repeats: int  # 1: timed once, no warm-up


SHAPES = [
    Shape("embedding benchmark", 300, 56, 0, 1000, 10.0, 1024, 1),
    Shape("LLM leaderboard", 2000, 6, 0, 1000, 30.0, 1536, 1),
    Shape("many datasets", 500, 5000, 0, 1000, 30.0, None, 1),
    Shape("folds", 100, 1000, 10, 1000, None, None, 3),
]
# The same kinds of shape, small enough for a smoke run (a few seconds each), with
# more algorithms than COMPARE_MAX_ALGORITHMS in one of them so that the limits of
# the readable views are exercised too.
# Today's engine runs on the first of them only (it is slow on the others).
# B = 100: the smallest bootstrap that gives bands (issue 11), so the smoke run has one.
QUICK_SHAPES = [
    Shape("embedding benchmark", 40, 14, 0, 100, None, None, 1),
    Shape("LLM leaderboard", 220, 5, 0, 100, None, None, 1),
    Shape("many datasets", 20, 300, 0, 100, None, None, 1),
    Shape("folds", 12, 40, 5, 100, None, None, 1),
]


M_LADDER = (250, 500, 1000, 2000)
N_LADDER = (100, 300, 1000, 3000)
QUICK_M_LADDER = (50, 100, 200)
QUICK_N_LADDER = (30, 60, 120)
GROWTH_TARGET = 1.0


def _growth_point(m: int, n: int, options: Options) -> dict:
    args = [str(v) for v in (m, n, 0, 1, options.seed)]
    args += ["--bootstrap", "100" if options.quick else "1000"]
    try:
        return run_child(
            "bench.analyze_child", *args, timeout=TIMEOUT, max_memory_gib=MAX_MEMORY_GIB
        )
    except subprocess.TimeoutExpired:
        return {"refused": f"did not finish in {TIMEOUT:.0f} s"}
    except RuntimeError as error:
        return {"refused": str(error).splitlines()[-1][:200]}


def growth_exponent(sizes: list[int], values: list[float]) -> float | None:
    """Least-squares slope of log(value) against log(size); None below two points."""
    if len(sizes) < 2 or min(values) <= 0:
        return None
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def growth(options: Options) -> str:
    """The growth table: CPU and peak memory against m at n = 6 and against n at m = 20."""
    ladders = (
        ("m", QUICK_M_LADDER if options.quick else M_LADDER, lambda v: (v, 6), "n = 6"),
        ("n", QUICK_N_LADDER if options.quick else N_LADDER, lambda v: (20, v), "m = 20"),
    )
    rows, summary = [], []
    for axis, ladder, shape, fixed in ladders:
        sizes, cpu, memory = [], [], []
        for value in ladder:
            m, n = shape(value)
            result = _growth_point(m, n, options)
            if "refused" in result:
                rows.append([f"m={m}, n={n}", result["refused"], "", ""])
                continue
            grown = max(result["peak_rss_mib"] - result["baseline_rss_mib"], 1.0)
            sizes.append(value)
            cpu.append(result["cpu_seconds"])
            memory.append(grown)
            rows.append(
                [
                    f"m={m}, n={n}",
                    fmt_seconds(result["cpu_seconds"]),
                    f"{grown:.0f} MiB",
                    f"{result['peak_rss_mib']:.0f} MiB",
                ]
            )
        for label, values in (("CPU", cpu), ("peak memory", memory)):
            slope = growth_exponent(sizes, values)
            verdict = "–" if slope is None else ("yes" if slope <= GROWTH_TARGET else "no")
            shown = "–" if slope is None else f"**{slope:.2f}**"
            summary.append(
                [f"{label} in {axis} ({fixed})", shown, f"<= {GROWTH_TARGET:g}: {verdict}"]
            )
    bootstrap = 100 if options.quick else 1000
    return "\n\n".join(
        [
            f"### scale: growth exponents (analysis without folds, B = {bootstrap}, "
            "each size in a child, timed once)",
            markdown_table(["quantity", "exponent", "target"], summary),
            markdown_table(["size", "CPU", "peak RSS above start", "peak RSS"], rows),
        ]
    )


def _measure(shape: Shape, options: Options, source: Path | None, payload: Path | None) -> dict:
    timeout = TIMEOUT if source is None else TODAY_TIMEOUT
    args = [str(v) for v in (shape.m, shape.n, shape.folds, shape.repeats, options.seed)]
    args += ["--bootstrap", str(shape.bootstrap)]
    if payload is not None:
        args += ["--payload", str(payload)]
    try:
        return run_child(
            "bench.analyze_child",
            *args,
            timeout=timeout,
            verbose=shape.repeats == 1 and not options.quick,
            source=source,
            max_memory_gib=MAX_MEMORY_GIB,
        )
    except subprocess.TimeoutExpired:
        return {"refused": f"did not finish in {timeout:.0f} s"}
    except RuntimeError as error:  # the child died (out of memory, a crash)
        return {"refused": str(error).splitlines()[-1][:200]}


def _numbers(value: Any, path: str, out: dict[str, float]) -> None:
    """Every number of a JSON value by its path (dict keys and list positions)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if path == "" and key == "timings":
                continue
            _numbers(item, f"{path}/{key}", out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _numbers(item, f"{path}/{index}", out)
    elif isinstance(value, bool) or value is None:
        out[path] = float(bool(value)) if value is not None else math.nan
    elif isinstance(value, int | float):
        out[path] = float(value)


def compare_payloads(today: Path, after: Path) -> str:
    """How many numbers the two payloads share and how many of them differ."""
    numbers_today: dict[str, float] = {}
    numbers_after: dict[str, float] = {}
    _numbers(json.loads(today.read_text()), "", numbers_today)
    _numbers(json.loads(after.read_text()), "", numbers_after)
    common = numbers_today.keys() & numbers_after.keys()
    differ = [
        p
        for p in common
        if not (
            numbers_today[p] == numbers_after[p]
            or (math.isnan(numbers_today[p]) and math.isnan(numbers_after[p]))
        )
    ]
    if not common:
        return "no common paths (payload shape changed)"
    if not differ:
        return f"all {len(common):,} shared numbers equal"
    worst = max(differ, key=lambda p: abs(numbers_today[p] - numbers_after[p]))
    return (
        f"{len(differ):,} of {len(common):,} differ (largest at {worst}: "
        f"{numbers_today[worst]!r} -> {numbers_after[worst]!r})"
    )


def _cell_time(result: dict) -> str:
    if "seconds" not in result:
        return "–"
    if "refused" in result:
        return f"refused after {fmt_seconds(result['seconds'])}"
    return fmt_seconds(result["seconds"])


def _cell_cpu(result: dict) -> str:
    return fmt_seconds(result["cpu_seconds"]) if "cpu_seconds" in result else "–"


def _cell_rss(result: dict) -> str:
    return f"{result['peak_rss_mib']:.0f} MiB" if "peak_rss_mib" in result else "–"


def _verdict(shape: Shape, today: dict, after: dict) -> str:
    if "refused" in after:
        return "no: " + after["refused"]
    parts = []
    if shape.seconds is not None:
        ok = after["seconds"] < shape.seconds
        parts.append(f"< {shape.seconds:g} s: {'yes' if ok else 'no'}")
    elif not {"refused"} & today.keys() and "seconds" in today:
        ok = after["seconds"] <= today["seconds"]
        parts.append(f"no slower: {'yes' if ok else 'no'}")
    if shape.memory_mib is not None:
        ok = after["peak_rss_mib"] < shape.memory_mib
        parts.append(f"< {shape.memory_mib / 1024:g} GB: {'yes' if ok else 'no'}")
    return "; ".join(parts)


SCALE_COLUMNS = [
    "shape",
    "runs",
    "today",
    "today CPU",
    "today peak RSS",
    "after",
    "after CPU",
    "after peak RSS",
    "today/after",
    "today/after CPU",
    "payload JSON",
    "board",
    "target",
    "numbers (m ≤ 200) vs today",
]


def run(options: Options) -> str:
    return growth(options) + "\n\n" + _shapes(options)


def _shapes(options: Options) -> str:
    shapes = QUICK_SHAPES if options.quick else SHAPES
    rows, stage_rows, notes = [], [], []
    with tempfile.TemporaryDirectory(prefix="podium-bench-scale-") as scratch:
        work = Path(scratch)
        (work / "today").mkdir()
        source = engine_at(BASELINE, work / "today")
        if source is None:
            notes.append(f"Today's engine ({BASELINE[:10]}) is not in this checkout: no ratios.")
        for index, shape in enumerate(shapes):
            with_today = source is not None and (index == 0 or not options.quick)
            today, after, same = _shape_measured(
                shape, options, source if with_today else None, work, index
            )
            label = f"m={shape.m}, n={shape.n}, " + (
                f"{shape.folds} folds" if shape.folds else "no folds"
            )
            rows.append(_scale_row(shape, label, today, after, same))
            for name, result in (("today", today), ("after", after)):
                if "refused" in result and "seconds" in result:
                    notes.append(f"{label}, {name}: {result['refused']}")
                stages = result.get("stages")
                if stages:
                    stage_rows.append([label, name, *(fmt_seconds(stages.get(s)) for s in STAGES)])
    header = (
        "### scale (full analysis per shape, each in a child interpreter; timed once unless noted)"
    )
    parts = [
        header,
        markdown_table(SCALE_COLUMNS, rows),
        "Stages (the analysis' own timings of the timed run):",
        markdown_table(["shape", "engine", *STAGES], stage_rows),
    ]
    if notes:
        parts.append("\n".join(f"- {note}" for note in notes))
    return "\n\n".join(parts)


def _shape_measured(shape, options: Options, source, work: Path, index: int):
    """One shape measured after (and today, when ``source`` holds today's engine), and
    whether their numbers agree (m ≤ COMPARE_MAX_ALGORITHMS, else "–")."""
    compare = shape.m <= COMPARE_MAX_ALGORITHMS
    paths = (work / f"today-{index}.json", work / f"after-{index}.json")
    today = (
        _measure(shape, options, source, paths[0] if compare else None)
        if source is not None
        else {}
    )
    after = _measure(shape, options, None, paths[1] if compare else None)
    same = "–"
    if compare and "seconds" in today and "refused" not in today and "refused" not in after:
        same = compare_payloads(*paths)
    return today, after, same


def _scale_row(shape, label: str, today: dict, after: dict, same: str) -> list[str]:
    """One shape's row of the scale table (SCALE_COLUMNS)."""
    ratio = cpu_ratio = "–"
    if "seconds" in today and "seconds" in after and "refused" not in today:
        ratio = f"{today['seconds'] / after['seconds']:.1f}x"
        if "cpu_seconds" in today and "cpu_seconds" in after:
            cpu_ratio = f"{today['cpu_seconds'] / after['cpu_seconds']:.1f}x"
    board = after.get("board_bytes")
    return [
        f"{shape.label}: {label}, B={shape.bootstrap}",
        "min of 3" if shape.repeats > 1 else "once",
        _cell_time(today),
        _cell_cpu(today),
        _cell_rss(today),
        f"**{_cell_time(after)}**",
        _cell_cpu(after),
        _cell_rss(after),
        ratio,
        cpu_ratio,
        f"{after['payload_bytes'] / 1e6:.2f} MB" if "payload_bytes" in after else "–",
        "–" if board is None else f"{board / 1e6:.3f} MB",
        _verdict(shape, today, after),
        same,
    ]


if __name__ == "__main__":
    if sys.argv[1:2] != ["growth"]:
        sys.exit(
            "usage: python -m bench.suite_scale growth [--quick]  (the suite: python -m bench scale)"
        )
    print(f"Machine: {machine_line()}\n")
    print(growth(Options(repeats=1, quick="--quick" in sys.argv[2:], seed=0)))
