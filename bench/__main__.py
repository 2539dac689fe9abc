"""``python -m bench <suite> [options]``: see bench/README.md."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import time

from bench.common import Options, machine_line
from bench.scratch import Scratch

SUITES = (
    "tests",
    "plackett_luce",
    "loo",
    "analyze",
    "scale",
    "pairwise",
    "coverage",
    "rank_sets",
    "power",
    "ingest",
    "latency",
    "api",
    "pages",
    "bigboards",
    "import_formats",
    "advisor",
)
DATABASE_SUITES = ("ingest", "latency", "api", "pages")
# Run only when named: the soak takes a quarter of an hour and stops its own servers.
ON_REQUEST = ("soak",)


def _interrupted(signum: int, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("suite", nargs="+", choices=(*SUITES, *ON_REQUEST, "all", "core"))
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats (min is kept)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--minutes", type=float, default=15.0, help="soak: minutes of load (default 15)"
    )
    parser.add_argument(
        "--faults",
        default="",
        help="soak: comma-separated faults in order (default: worker_kill,postgres_stop,"
        "redis_restart,gunicorn_kill)",
    )
    parser.add_argument(
        "--keep-logs",
        default="",
        metavar="DIR",
        help="soak: copy the stack's logs (gunicorn, workers, beat, PostgreSQL) into DIR",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    suites = []
    for name in args.suite:
        expanded = SUITES if name == "all" else SUITES[:5] if name == "core" else (name,)
        suites += [s for s in expanded if s not in suites]
    # A plain `kill` must also stop the worker/server and drop the scratch database.
    signal.signal(signal.SIGTERM, _interrupted)
    signal.signal(signal.SIGINT, _interrupted)
    if args.minutes <= 0:
        parser.error("--minutes must be positive")
    options = Options(
        repeats=args.repeats,
        quick=args.quick,
        seed=args.seed,
        minutes=args.minutes,
        faults=args.faults,
        keep_logs=args.keep_logs,
    )
    print(f"Machine: {machine_line()}\n", flush=True)
    needs_database = any(s in DATABASE_SUITES for s in suites)
    with Scratch() if needs_database else contextlib.nullcontext() as scratch:
        for suite in suites:
            started = time.perf_counter()
            module = importlib.import_module(f"bench.suite_{suite}")
            report = (
                module.run(options, scratch) if suite in DATABASE_SUITES else module.run(options)
            )
            print(report, end="\n\n", flush=True)
            print(f"bench {suite}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
