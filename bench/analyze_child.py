"""One ``analyze`` measurement in a fresh interpreter, so that its peak memory is its own.

``python -m bench.analyze_child M N FOLDS REPEATS SEED`` prints one JSON line.
"""

from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> None:
    m, n, folds, repeats, seed = (int(a) for a in argv)
    from bench.common import max_rss_mib, result_table
    from estimation.core.analysis import AnalysisSettings, analyze

    table = result_table(m, n, folds=folds, seed=seed)
    begun = time.perf_counter()

    def progress(stage: str, fraction: float) -> None:
        print(f"[{time.perf_counter() - begun:8.1f} s] m={m} n={n}: {stage}", file=sys.stderr)

    settings = AnalysisSettings(bootstrap=1000, evaluation_folds=10, evaluation_repeats=5)
    baseline = max_rss_mib()
    if repeats > 1:
        analyze(table, settings)  # warm-up
    best, stages, payload = float("inf"), {}, None
    for _ in range(repeats):
        started = time.perf_counter()
        result = analyze(table, settings, progress=progress)
        elapsed = time.perf_counter() - started
        if elapsed < best:
            best, stages, payload = elapsed, dict(result.timings), result.to_json()
    size = len(json.dumps(payload, allow_nan=False))
    print(
        json.dumps(
            {
                "seconds": best,
                "stages": stages,
                "baseline_rss_mib": baseline,
                "peak_rss_mib": max_rss_mib(),
                "payload_bytes": size,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
