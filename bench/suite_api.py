"""Suite ``api``: a static file, reader pages, snapshots/latest/ and snapshots/status/
under 32 concurrent clients, each row against the static file of the same run.

Rows: the ceiling, a static file served by WhiteNoise through the same server (the
stylesheet every page links to); the SVG badge, the leaderboard page, the CSV export
and the charts page as anonymous readers get them (frontend/page_cache.py: 200, 304 by
``If-None-Match``, brotli) and rendered by the view for each request (a session cookie
of no session took a request off the cache before signed-in readers were served from
it; now it reads the anonymous entry like a signed-in reader, except the latest
snapshot's) and as a signed-in reader gets them (a stored session and a CSRF cookie:
the cached board with the reader's own navigation drawn per request,
frontend/page_shell.py); the latest snapshot through the DRF view
(the cookie again: 200 and 304; signed in: 200), then as anonymous clients get it (200, gzip-ed, brotli,
a conditional GET answered 304; from one cache read), and the polling status endpoint
(200 and 304). "time vs static file" is the static file's throughput over the row's
(how many times slower); "server CPU per request" is the user + system time gunicorn's
master and workers (live or recycled) spent during the row over its requests, and "CPU vs
static file" that against the static file's: the figure to read on a shared machine,
where other load moves throughput from row to row; "vs view 200" the row's throughput
over the DRF view's 200.

The server is gunicorn with the production config (``config/gunicorn.py``: its worker
count, recycling after ``max_requests``, timeouts, access log; ``config.wsgi``,
production settings, static files collected first) on a loopback port against the
scratch database, with throttling switched off. The snapshot served is that of an m=20,
n=100, 10-fold benchmark (computed in this process before the server starts). The load
generator is 4 processes x 8 threads of ``http.client`` (a new connection per request,
since gunicorn's sync workers close it), bounded by a number of requests and a time
limit, after a warm-up of 2 requests per client. Client and server share the machine's
cores, so the throughput is a lower bound of the server's.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench.common import Options, machine_line, markdown_table

CLIENTS = 32
PROCESSES = 4
REQUESTS = 6000
TIME_LIMIT = 30.0
QUICK = {"requests": 200, "time_limit": 5.0, "m": 5, "n": 10, "folds": 3}  # a smoke run


def _client_process(args: tuple) -> dict:
    base, path, threads, quota, time_limit, headers = args
    host = urlsplit(base)
    lock = threading.Lock()
    issued = [0]
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    sizes: list[int] = []
    deadline = time.perf_counter() + time_limit

    def one() -> tuple[int, int]:
        conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
        try:
            conn.request("GET", path, headers={"Accept": "application/json", **headers})
            response = conn.getresponse()
            body = response.read()
            return response.status, len(body)
        finally:
            conn.close()

    def loop() -> None:
        while time.perf_counter() < deadline:
            with lock:
                if issued[0] >= quota:
                    return
                issued[0] += 1
            started = time.perf_counter()
            try:
                status, size = one()
            except OSError:
                status, size = 0, 0
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                statuses[status] = statuses.get(status, 0) + 1
                sizes.append(size)

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return {
        "latencies": latencies,
        "statuses": statuses,
        "bytes": max(sizes) if sizes else 0,
        "elapsed": time.perf_counter() - started,
    }


def server_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a gunicorn master and its workers, alive or reaped:
    the master's own, its reaped children's (cutime, cstime) and each live worker's."""
    tick = os.sysconf("SC_CLK_TCK")

    def stat(process: int) -> list[str]:
        try:
            text = Path(f"/proc/{process}/stat").read_text()
        except OSError:
            return []
        return text[text.rindex(")") + 2 :].split()

    fields = stat(pid)
    if not fields:
        return 0.0
    total = sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            child = stat(int(entry.name))
            if child and int(child[1]) == pid:
                total += int(child[11]) + int(child[12])
    return total / tick


def load(
    base: str,
    path: str,
    *,
    requests: int,
    time_limit: float,
    headers: dict | None = None,
    server: int | None = None,
) -> dict:
    per_process = CLIENTS // PROCESSES
    headers = headers or {}
    jobs = [
        (base, path, per_process, requests // PROCESSES, time_limit, headers)
        for _ in range(PROCESSES)
    ]
    context = multiprocessing.get_context("spawn")
    with context.Pool(PROCESSES) as pool:
        warm = (base, path, per_process, 2 * per_process, 30.0, headers)
        pool.map(_client_process, [warm] * PROCESSES)
        cpu_before = server_cpu_seconds(server) if server else 0.0
        started = time.perf_counter()
        results = pool.map(_client_process, jobs)
        elapsed = time.perf_counter() - started
        cpu = (server_cpu_seconds(server) - cpu_before) if server else 0.0
    latencies = sorted(x for r in results for x in r["latencies"])
    statuses: dict[int, int] = {}
    for r in results:
        for status, count in r["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    return {
        "elapsed": elapsed,
        "count": len(latencies),
        "latencies": latencies,
        "statuses": statuses,
        "bytes": max(r["bytes"] for r in results),
        "server_cpu": cpu,
    }


def _sequential(base: str, path: str, count: int) -> list[float]:
    """Latency with one client: the server's own time per request, without queueing."""
    one = _client_process((base, path, 1, count, 60.0, {}))
    return sorted(one["latencies"])


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def run(options: Options, scratch, *, rows: tuple[str, ...] = ()) -> str:
    """``rows``: only the rows whose label starts with one of these (the static file,
    the ceiling, always runs first); empty: every row."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connections

    from bench.common import synthetic_scores
    from bench.suite_latency import score_entries
    from estimation.services import snapshot_refresh
    from leaderboard import services
    from leaderboard.models import Submission

    quick = options.quick
    m, n, folds = (QUICK["m"], QUICK["n"], QUICK["folds"]) if quick else (20, 100, 10)
    requests = QUICK["requests"] if quick else REQUESTS
    time_limit = QUICK["time_limit"] if quick else TIME_LIMIT
    benchmark = services.benchmark_create(
        slug="api-load", title="API load", metrics=[("score", "higher")], submission_policy="open"
    )
    _, fold_values = synthetic_scores(m, n, folds=folds, seed=options.seed)
    services.submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=score_entries(fold_values, list(range(m))),
        source=Submission.Source.IMPORT,
    )
    version = snapshot_refresh(benchmark_id=benchmark.pk)[0].version
    reader = get_user_model().objects.create_user(username="bench-reader", password=None)
    # The same board kept private, maintained by the reader: never cached, so its pages
    # are rendered by the view for every request (the cost of a page before the shell).
    private = services.benchmark_create(
        slug="api-load-private",
        title="API load, private",
        metrics=[("score", "higher")],
        visibility="private",
    )
    private.maintainers.add(reader)
    services.submissions_create(
        benchmark=private,
        submitter=None,
        entries=score_entries(fold_values, list(range(m))),
        source=Submission.Source.IMPORT,
    )
    private_version = snapshot_refresh(benchmark_id=private.pk)[0].version
    scratch.purge_queue()
    connections.close_all()
    base, server = scratch.start_gunicorn()
    path = f"/api/benchmarks/{benchmark.slug}/snapshots/latest/"
    status_path = f"/api/benchmarks/{benchmark.slug}/snapshots/status/"
    try:
        first = _warm_get(base, path)
        status_first = _get(base, status_path, {})
        for answer in (first, status_first):
            if answer["status"] != 200 or not answer["etag"]:
                raise RuntimeError(f"the server answered {answer}, not a 200 with an ETag")
        # A session cookie (of no session: the view reads it, finds nothing, answers as
        # for anyone) takes the DRF view instead of the anonymous fast path: the same
        # answer by the way it was served before, the base of the ratios.
        view = {"Cookie": f"{settings.SESSION_COOKIE_NAME}=bench-no-session"}
        # A reader signed in, as a browser sends it: their session and CSRF cookies.
        signed_in = {"Cookie": signed_in_cookies(reader)}
        page = {"Accept": "text/html,*/*"}
        # What every browser sends: a signed-in page is then gzip-ed (no brotli: a CSRF
        # token is in the body), which the signed-in rows without it do not pay.
        browser = {**page, "Accept-Encoding": "gzip, deflate, br"}
        static = _static_path("frontend/podium.css")
        badge = f"/b/{benchmark.slug}/badge/algorithm-0000.svg"
        board_page = f"/b/{benchmark.slug}/"
        csv = f"/b/{benchmark.slug}/v{version}/export.csv"
        charts = f"/b/{benchmark.slug}/charts/"
        for answer in (_get(base, p, page) for p in (static, badge, board_page, csv, charts)):
            if answer["status"] != 200:
                raise RuntimeError(f"the server answered {answer}")
        if b"bench-reader" not in _body(base, board_page, {**page, **signed_in}):
            raise RuntimeError("the signed-in reader's page does not name them")
        badge_etag = _get(base, badge, page)["etag"]
        page_etag = _get(base, board_page, page)["etag"]
        scenarios = [
            ("static file (WhiteNoise), 200", static, page),
            ("badge, 200", badge, page),
            ("badge, If-None-Match -> 304", badge, {**page, "If-None-Match": badge_etag}),
            # The badge's entry answers every reader (frontend/page_cache.py), cookie or not.
            ("badge, session cookie (from the cache)", badge, {**page, **view}),
            ("leaderboard page, 200", board_page, page),
            ("leaderboard page, 200 brotli", board_page, {**page, "Accept-Encoding": "br"}),
            (
                "leaderboard page, If-None-Match -> 304",
                board_page,
                {**page, "If-None-Match": page_etag},
            ),
            ("leaderboard page, session cookie of no session", board_page, {**page, **view}),
            ("leaderboard page, signed in", board_page, {**page, **signed_in}),
            ("leaderboard page, signed in, gzip", board_page, {**browser, **signed_in}),
            (
                "leaderboard page, rendered (private board, signed-in maintainer)",
                f"/b/{private.slug}/",
                {**page, **signed_in},
            ),
            ("CSV export, 200", csv, page),
            ("CSV export, session cookie of no session", csv, {**page, **view}),
            ("CSV export, signed in", csv, {**page, **signed_in}),
            (
                "CSV export, rendered (private board, signed-in maintainer)",
                f"/b/{private.slug}/v{private_version}/export.csv",
                {**page, **signed_in},
            ),
            ("charts page, 200", charts, page),
            ("charts page, session cookie of no session", charts, {**page, **view}),
            ("charts page, signed in", charts, {**page, **signed_in}),
            ("charts page, signed in, gzip", charts, {**browser, **signed_in}),
            (
                "charts page, rendered (private board, signed-in maintainer)",
                f"/b/{private.slug}/charts/",
                {**page, **signed_in},
            ),
            ("latest, 200, view (cookie)", path, view),
            ("latest, 200, signed in", path, signed_in),
            (
                "latest, If-None-Match -> 304, view (cookie)",
                path,
                {**view, "If-None-Match": first["etag"]},
            ),
            ("latest, 200", path, {}),
            ("latest, 200 gzip", path, {"Accept-Encoding": "gzip"}),
            ("latest, 200 brotli", path, {"Accept-Encoding": "br"}),
            ("latest, If-None-Match -> 304", path, {"If-None-Match": first["etag"]}),
            ("status, 200", status_path, {}),
            (
                "status, If-None-Match -> 304",
                status_path,
                {"If-None-Match": status_first["etag"]},
            ),
        ]
        if rows:
            scenarios = scenarios[:1] + [
                s for s in scenarios[1:] if any(s[0].startswith(prefix) for prefix in rows)
            ]
        results = []
        for label, p, h in scenarios:
            result = load(
                base, p, requests=requests, time_limit=time_limit, headers=h, server=server.pid
            )
            results.append((label, result))
        sequential = _sequential(base, path, 20 if quick else 200)
    finally:
        scratch.stop(server)
    static_rate = results[0][1]["count"] / results[0][1]["elapsed"]
    static_cpu = results[0][1]["server_cpu"] / max(results[0][1]["count"], 1)
    view_label = "latest, 200, view (cookie)"
    base_result = next((result for label, result in results if label == view_label), None)
    base_rate = base_result["count"] / base_result["elapsed"] if base_result else 0.0
    rows = []
    for label, result in results:
        latencies = result["latencies"]
        rate = result["count"] / result["elapsed"]
        expected = 304 if "304" in label else 200
        rows.append(
            [
                label,
                f"{result['count']:,}",
                f"{result['elapsed']:.1f} s",
                f"**{rate:.0f} req/s**",
                f"{static_rate / rate:.2f}x",
                f"{result['server_cpu'] / result['count'] * 1e3:.2f} ms",
                f"**{result['server_cpu'] / result['count'] / static_cpu:.2f}x**"
                if static_cpu
                else "–",
                f"{rate / base_rate:.1f}x" if base_rate else "–",
                f"{_percentile(latencies, 0.5) * 1e3:.1f} ms",
                f"{_percentile(latencies, 0.99) * 1e3:.1f} ms",
                f"{max(latencies) * 1e3:.1f} ms",
                f"{result['statuses'].get(expected, 0):,} / {result['count']:,} ({expected})",
                f"{result['bytes'] / 1e3:.1f} kB",
            ]
        )
    return "\n\n".join(
        [
            f"### api (a static file, pages, snapshots/latest/ and snapshots/status/ of "
            f"m={m}, n={n}, {folds} folds; {CLIENTS} clients; gunicorn with "
            f"config/gunicorn.py, {_workers()} sync workers; at most "
            f"{requests:,} requests or {time_limit:g} s per row)",
            markdown_table(
                [
                    "request",
                    "requests",
                    "elapsed",
                    "throughput",
                    "time vs static file",
                    "server CPU per request",
                    "CPU vs static file",
                    "vs view 200",
                    "p50",
                    "p99",
                    "max",
                    "expected status",
                    "response",
                ],
                rows,
            ),
            f"One client, {len(sequential)} requests of latest/ in sequence: p50 "
            f"{_percentile(sequential, 0.5) * 1e3:.1f} ms, p99 "
            f"{_percentile(sequential, 0.99) * 1e3:.1f} ms (the server's time per request "
            "without queueing).",
        ]
    )


def signed_in_cookies(user) -> str:
    """The Cookie header of ``user`` signed in: a session stored as a log-in stores it,
    and a CSRF cookie (the log-out form on every page reads it)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.middleware.csrf import _get_new_csrf_string

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return (
        f"{settings.SESSION_COOKIE_NAME}={session.session_key}; "
        f"{settings.CSRF_COOKIE_NAME}={_get_new_csrf_string()}"
    )


def _workers() -> int:
    import importlib

    return importlib.import_module("config.gunicorn").workers


def _static_path(name: str) -> str:
    """The hashed URL the pages link to (CompressedManifestStaticFilesStorage, read from
    the manifest collectstatic wrote)."""
    import json

    from django.conf import settings

    manifest = json.loads((settings.STATIC_ROOT / "staticfiles.json").read_text())
    return f"/{settings.STATIC_URL.strip('/')}/{manifest['paths'][name]}"


def _warm_get(base: str, path: str, patience: float = 180.0) -> dict:
    """The first answer, once the workers have loaded the app: gunicorn's port opens
    before its workers import Django, which on a busy machine takes longer than one
    request's timeout."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return _get(base, path, {}, timeout=60.0)
        except (TimeoutError, ConnectionError):
            if time.monotonic() > deadline:
                raise


def _body(base: str, path: str, headers: dict) -> bytes:
    host = urlsplit(base)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30.0)
    try:
        conn.request("GET", path, headers=headers)
        return conn.getresponse().read()
    finally:
        conn.close()


def _get(base: str, path: str, headers: dict, timeout: float = 30.0) -> dict:
    host = urlsplit(base)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Accept": "application/json", **headers})
        response = conn.getresponse()
        response.read()
        return {"status": response.status, "etag": response.getheader("ETag")}
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.suite_api", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rows",
        default="",
        help="comma-separated label prefixes, e.g. 'badge,leaderboard page' (the static "
        "file always runs); default every row",
    )
    args = parser.parse_args(argv)
    from bench.scratch import Scratch

    print(f"Machine: {machine_line()}\n", flush=True)
    rows = tuple(part.strip() for part in args.rows.split(",") if part.strip())
    with Scratch() as scratch:
        print(run(Options(quick=args.quick, seed=args.seed), scratch, rows=rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
