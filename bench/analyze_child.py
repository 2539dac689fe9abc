"""One ``analyze`` measurement in a fresh interpreter, so that its peak memory is its own.

``python -m bench.analyze_child M N FOLDS REPEATS SEED [--bootstrap B] [--payload PATH]``
prints one JSON line: the best time (wall clock, and the CPU time of the same run, which
a loaded machine inflates far less), the stage timings, the peak RSS (of the analysis,
and after serialising its payload to JSON), the payload's size as compact JSON, as the
recompute stores and the API serves it (and the board section's, when the payload has
sections). With ``--payload`` the payload is also written there as JSON (to compare two
engines' numbers). An analysis
that raises is reported as ``{"refused": "<message>"}`` (exit status 0): the suites
show it as a result, it is what a user would have seen.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from typing import Any


def _payload_json(result: Any) -> tuple[dict, int | None]:
    """The payload as plain JSON, and the board section's size if there is one.

    The sectioned contract has ``Analysis.to_json()``; the engine before it (the
    "today" of the scale suite) has ``to_dict()``.
    """
    payload = result.to_json() if hasattr(result, "to_json") else result.to_dict()
    board = payload.get("board") if isinstance(payload, dict) else None
    board_bytes = None if board is None else len(_compact(board))
    return payload, board_bytes


def _compact(value: Any) -> str:
    """JSON as the recompute stores and the API serves a section: no spaces."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.analyze_child")
    for name in ("m", "n", "folds", "repeats", "seed"):
        parser.add_argument(name, type=int)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--payload", default=None, help="also write the payload here")
    args = parser.parse_args(argv)
    m, n, folds, repeats = args.m, args.n, args.folds, args.repeats
    from bench.common import max_rss_mib, result_table
    from estimation.core.analysis import AnalysisSettings, analyze

    table = result_table(m, n, folds=folds, seed=args.seed)
    begun = time.perf_counter()

    def progress(stage: str, fraction: float) -> None:
        print(f"[{time.perf_counter() - begun:8.1f} s] m={m} n={n}: {stage}", file=sys.stderr)

    settings = AnalysisSettings(bootstrap=args.bootstrap, evaluation_folds=10, evaluation_repeats=5)
    # The recompute service serves a snapshot before it runs the estimator advisor (engine
    # 0.5.0 on): time what readers wait for, and the advisor apart ("advisor_seconds").
    deferred = "advisor" in inspect.signature(analyze).parameters
    extra = {"advisor": False} if deferred else {}
    baseline = max_rss_mib()
    best, cpu, stages, result = float("inf"), 0.0, {}, None
    try:
        if repeats > 1:
            analyze(table, settings, **extra)  # warm-up
        for _ in range(repeats):
            started, cpu_started = time.perf_counter(), time.process_time()
            outcome = analyze(table, settings, progress=progress, **extra)
            elapsed = time.perf_counter() - started
            if elapsed < best:
                best, stages, result = elapsed, dict(outcome.timings), outcome
                cpu = time.process_time() - cpu_started
        advisor_seconds = None
        if deferred:
            from estimation.core.analysis import analyze_advisor

            started = time.perf_counter()
            analyze_advisor(table, settings)
            advisor_seconds = time.perf_counter() - started
        analysis_peak = max_rss_mib()
    except (ValueError, MemoryError) as error:
        print(
            json.dumps(
                {
                    "refused": f"{type(error).__name__}: {error}",
                    "seconds": time.perf_counter() - begun,
                    "baseline_rss_mib": baseline,
                    "peak_rss_mib": max_rss_mib(),
                }
            )
        )
        return
    payload, board_bytes = _payload_json(result)
    text = _compact(payload)
    if args.payload:
        with open(args.payload, "w", encoding="utf-8") as handle:
            handle.write(text)
    print(
        json.dumps(
            {
                "seconds": best,
                "cpu_seconds": cpu,
                "stages": stages,
                "advisor_seconds": advisor_seconds,
                "baseline_rss_mib": baseline,
                "peak_rss_mib": analysis_peak,
                "peak_rss_with_json_mib": max_rss_mib(),
                "payload_bytes": len(text),
                "board_bytes": board_bytes,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
