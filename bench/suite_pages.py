"""Suite ``pages``: server time and weight of pages read from a stored snapshot.

A benchmark of m=100 algorithms x n=200 datasets (``bench.common.synthetic_scores``) is
imported through the services and analysed once, synchronously
(``estimation.services.recompute_run``, the benchmark's default analysis settings), so
its snapshot is stored in PostgreSQL. Then each page is requested ``--requests`` times
(50; after 3 warm-up requests) with Django's test client: the whole WSGI stack in this
process (middleware, view, selectors, template) on production settings against the
scratch database, without the network. Reported: median and p90 server time, SQL
queries per request, and page weight: the HTML (raw and gzip -6) plus every static
asset the page references (``<link href>``, ``<script src>``), served by WhiteNoise from
a ``collectstatic``'ed STATIC_ROOT in a temporary folder, as in production. Target:
median < 50 ms for the leaderboard at m = 100.

Beside each cached page, the leaderboard with the reader's maximum of per-dataset columns
(``ds=`` six times, then sorted by one) is timed rendered: its client sends a session
cookie, which the page cache never answers (frontend/page_cache.py), so every request
runs the view, the selectors (the snapshot's ``dataset_scores`` section, parsed once per
process) and the template. ``--algorithms 130 --datasets 100`` is issue 28's shape.

``--algorithms 2000 --datasets 6`` measures the LLM-leaderboard shape (issue 8: the page
< 100 ms median and < 500 KB of HTML at m = 2000), with the same full analysis (about
25 s at that size).

Run ``python -m bench.suite_pages [--requests 50] [--quick]``: it creates a scratch
PostgreSQL database (``bench.scratch.Scratch``: ``podium_bench_<pid>`` on
``PODIUM_BENCH_POSTGRES``, default 127.0.0.1:5432) and drops it at the end. As a suite
of ``python -m bench`` it is ``run(options, scratch)``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass

from bench.common import (
    ROOT,
    Options,
    fmt_seconds,
    machine_line,
    markdown_table,
    score_matrix_import,
    synthetic_scores,
)

SIZE = (100, 200)
QUICK_SIZE = (8, 20)
TARGET_AT_SCALE = (2000, 0.100, 500 * 1024)  # m, median seconds, HTML bytes
REQUESTS = 50
WARMUP = 3
TARGET_SECONDS = 0.050
HOST = "localhost"  # in the scratch settings' ALLOWED_HOSTS
ASSET = re.compile(
    r"<link\b[^>]*\brel=\"stylesheet\"[^>]*\bhref=\"([^\"]+)\""
    r"|<link\b[^>]*\bhref=\"([^\"]+)\"[^>]*\brel=\"stylesheet\""
    r"|<script\b[^>]*\bsrc=\"([^\"]+)\""
)


@dataclass(frozen=True)
class PageTiming:
    name: str
    url: str
    median: float
    p90: float
    queries: int
    html_bytes: int
    html_gzip_bytes: int
    assets: dict[str, int]

    @property
    def total_bytes(self) -> int:
        return self.html_bytes + sum(self.assets.values())


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100), as numpy's default."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def build_benchmark(m: int, n: int, seed: int):
    """Import m x n generated scores and compute their snapshot here; return the analysis time."""
    from estimation.services import recompute_run

    values, _ = synthetic_scores(m, n, seed=seed)
    benchmark = score_matrix_import(
        values,
        slug="pages",
        title=f"Page benchmark: {m} algorithms on {n} datasets",
        description="Generated scores (bench/suite_pages.py).",
    )
    # The import queued a recompute for workers (none run here; the scratch queue is
    # purged at exit): compute it in this process instead.
    started = time.perf_counter()
    snapshots = recompute_run(benchmark_id=benchmark.pk, owner="bench-pages")
    analysis = time.perf_counter() - started
    if not snapshots or snapshots[-1].status != "ready":
        raise RuntimeError(f"the snapshot was not computed: {snapshots}")
    return benchmark, snapshots[-1], analysis


# The reader's bound (frontend.readers.table_filters.MAX_DATASET_COLUMNS).
DATASET_COLUMNS = 6
# A cookie other than the CSRF one: the page cache renders (and stores) nothing for it.
RENDER_COOKIE = "sessionid=bench-renders-every-request"


def dataset_column_pages(leaderboard: str, n: int) -> list[tuple[str, str]]:
    """The leaderboard with the most dataset columns a reader may choose, then sorted."""
    chosen = "&".join(f"ds=dataset-{i:05d}" for i in range(min(DATASET_COLUMNS, n)))
    return [
        (f"{DATASET_COLUMNS} dataset columns (rendered)", f"{leaderboard}?{chosen}"),
        (
            f"{DATASET_COLUMNS} dataset columns, sorted by one (rendered)",
            f"{leaderboard}?{chosen}&sort=dataset_1&order=desc",
        ),
    ]


def time_page(client, name: str, url: str, requests: int) -> PageTiming:
    from django.db import connection

    for _ in range(WARMUP):
        response = client.get(url)
        if response.status_code != 200:
            raise RuntimeError(f"GET {url}: {response.status_code}")
    queries = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    # (Not CaptureQueriesContext: every request resets connection.queries.)
    with connection.execute_wrapper(count):
        response = client.get(url)
    html = response.content
    elapsed = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        response.content  # noqa: B018 (rendered, as a server would before sending)
        elapsed.append(time.perf_counter() - started)
    assets = {}
    for match in ASSET.finditer(html.decode("utf-8")):
        asset_url = next(group for group in match.groups() if group)
        asset = client.get(asset_url)
        if asset.status_code != 200:
            raise RuntimeError(f"{name} references {asset_url}: {asset.status_code}")
        body = b"".join(asset.streaming_content) if asset.streaming else asset.content
        assets[asset_url] = len(body)
    return PageTiming(
        name=name,
        url=url,
        median=statistics.median(elapsed),
        p90=percentile(elapsed, 90),
        queries=len(queries),
        html_bytes=len(html),
        html_gzip_bytes=len(gzip.compress(html, compresslevel=6)),
        assets=assets,
    )


def profile_page(client, url: str, requests: int = 10, top: int = 15) -> str:
    """cProfile of ``requests`` GETs: the functions with the most cumulative time."""
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        client.get(url).content  # noqa: B018
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    out.write("Project code, by cumulative time:\n")
    stats.sort_stats("cumulative").print_stats(r"/(frontend|leaderboard|estimation)/", top)
    out.write("Everything, by own time:\n")
    stats.sort_stats("tottime").print_stats(top)
    return re.sub(r"\n{3,}", "\n\n", out.getvalue().replace(str(ROOT) + "/", ""))


def run(
    options: Options,
    scratch=None,
    *,
    requests: int = REQUESTS,
    profile: bool = False,
    size: tuple[int, int] | None = None,
) -> str:
    from django.core.management import call_command
    from django.test import Client, override_settings
    from django.urls import reverse

    m, n = size or (QUICK_SIZE if options.quick else SIZE)
    requests = min(requests, 10) if options.quick else requests
    benchmark, snapshot, analysis = build_benchmark(m, n, options.seed)
    payload_bytes = sum(len(s.body.encode("utf-8")) for s in snapshot.sections.all())
    pages = [
        ("leaderboard", reverse("benchmark-leaderboard", args=[benchmark.slug])),
        ("fragment", reverse("benchmark-board-fragment", args=[benchmark.slug])),
        ("index", reverse("benchmark-index")),
    ]
    if m > 100:
        pages.insert(2, ("show all", reverse("benchmark-leaderboard", args=[benchmark.slug])))
        pages[2] = (pages[2][0], pages[2][1] + "?all=1")
    with tempfile.TemporaryDirectory(prefix="podium-bench-static-") as static_root:
        with override_settings(STATIC_ROOT=static_root):
            call_command("collectstatic", interactive=False, verbosity=0)
            client = Client(HTTP_HOST=HOST)
            load_before = os.getloadavg()[0]
            timings = [time_page(client, name, url, requests) for name, url in pages]
            renders = Client(HTTP_HOST=HOST, HTTP_COOKIE=RENDER_COOKIE)
            leaderboard_url = pages[0][1]
            timings += [
                time_page(renders, name, url, requests)
                for name, url in [
                    ("leaderboard (rendered)", leaderboard_url),
                    *dataset_column_pages(leaderboard_url, n),
                ]
            ]
            load_after = os.getloadavg()[0]
            profiled = profile_page(client, pages[0][1]) if profile else ""

    rows = [
        [
            f"{t.name}: `{t.url if len(t.url) < 60 else t.url[:57] + '...'}`",
            f"**{fmt_seconds(t.median)}**" if t.name == "leaderboard" else fmt_seconds(t.median),
            fmt_seconds(t.p90),
            t.queries,
            f"{t.html_bytes / 1024:.1f} KiB ({t.html_gzip_bytes / 1024:.1f} KiB gzip)",
            ", ".join(
                f"{url.rsplit('/', 1)[-1]} {size / 1024:.1f} KiB" for url, size in t.assets.items()
            )
            or "–",
            f"{t.total_bytes / 1024:.1f} KiB",
        ]
        for t in timings
    ]
    leaderboard = timings[0]
    scale_m, scale_seconds, scale_bytes = TARGET_AT_SCALE
    if m >= scale_m:
        met = leaderboard.median < scale_seconds and leaderboard.html_bytes < scale_bytes
        target = (
            f"median < {fmt_seconds(scale_seconds)} and HTML < {scale_bytes // 1024} KiB at m = {m}"
        )
    else:
        met = leaderboard.median < TARGET_SECONDS
        target = f"median < {fmt_seconds(TARGET_SECONDS)} at m = {m}"
    verdict = "meets" if met else "MISSES"
    return "\n\n".join(
        [
            f"### pages (m={m}, n={n}; snapshot v{snapshot.version} stored, payload "
            f"{payload_bytes / 1024:.0f} KiB as compact JSON; analysed once in "
            f"{fmt_seconds(analysis)}; {requests} requests per page after {WARMUP} warm-up, "
            "Django test client, production settings, PostgreSQL)",
            markdown_table(
                ["page", "median", "p90", "queries", "HTML", "static assets", "total weight"],
                rows,
            ),
            f"The leaderboard page {verdict} the target ({target}). Server time only: the client is "
            "in-process, so there is no network or browser time in these numbers; the "
            "weight counts uncompressed bytes of what the page itself references (a "
            "browser caches the static assets after the first page). Load average "
            f"(1 min) before/after: {load_before:.2f}/{load_after:.2f} on "
            f"{os.cpu_count()} CPUs: other work on the machine slows every number.",
            f"```\n{profiled}```" if profiled else "",
        ]
    ).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.suite_pages", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--requests", type=int, default=REQUESTS, help="timed requests per page")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--algorithms", type=int, help=f"m (default {SIZE[0]})")
    parser.add_argument("--datasets", type=int, help=f"n (default {SIZE[1]})")
    parser.add_argument(
        "--profile", action="store_true", help="append a cProfile of the leaderboard page"
    )
    args = parser.parse_args(argv)
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    from bench.scratch import Scratch

    print(f"Machine: {machine_line()}\n", flush=True)
    with Scratch() as scratch:
        options = Options(quick=args.quick, seed=args.seed)
        size = None
        if args.algorithms or args.datasets:
            size = (args.algorithms or SIZE[0], args.datasets or SIZE[1])
        report = run(
            options,
            scratch,
            requests=args.requests,
            profile=args.profile,
            size=size,
        )
        print(report, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
