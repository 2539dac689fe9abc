"""CPU per request of the reader pages, in this process: the WSGI application called
directly (no server, no sockets, no other clients), so that the load of the machine
moves the numbers less than the suites' (issue 43 item 3). Production settings on a
scratch database (bench/scratch.py), the board of bench/suite_api.py.

    python -m bench.pages_in_process [--requests 300] [--rounds 3]

Each round runs every row in turn; a row's number is the least CPU per request of
its rounds.
"""

from __future__ import annotations

import argparse
import io
import sys
import time

BROWSER = {"HTTP_ACCEPT": "text/html,*/*", "HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
PLAIN = {"HTTP_ACCEPT": "text/html,*/*"}


def _board(seed: int):
    from django.contrib.auth import get_user_model

    from bench.common import synthetic_scores
    from bench.suite_latency import score_entries
    from estimation.services import snapshot_refresh
    from leaderboard import services
    from leaderboard.models import Submission

    benchmark = services.benchmark_create(
        slug="api-load", title="API load", metrics=[("score", "higher")], submission_policy="open"
    )
    _, fold_values = synthetic_scores(20, 100, folds=10, seed=seed)
    services.submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=score_entries(fold_values, list(range(20))),
        source=Submission.Source.IMPORT,
    )
    snapshot_refresh(benchmark_id=benchmark.pk)
    reader = get_user_model().objects.create_user(username="bench-reader", password=None)
    return benchmark, reader


def _call(app, path: str, headers: dict[str, str]) -> tuple[str, dict[str, str], bytes]:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        **headers,
    }
    started: list = []
    chunks = app(environ, lambda status, headers, exc_info=None: started.append((status, headers)))
    body = b"".join(chunks)
    getattr(chunks, "close", lambda: None)()
    status, response_headers = started[0]
    return status, dict(response_headers), body


def run(requests: int, rounds: int, seed: int) -> str:
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application

    from bench.suite_api import _static_path, signed_in_cookies

    call_command("collectstatic", interactive=False, verbosity=0)  # the static file's row
    benchmark, reader = _board(seed)
    app = get_wsgi_application()
    signed_in = {"HTTP_COOKIE": signed_in_cookies(reader)}
    board, charts = f"/b/{benchmark.slug}/", f"/b/{benchmark.slug}/charts/"
    rows = [
        ("static file", _static_path("frontend/podium.css"), PLAIN),
        ("leaderboard, anonymous hit, gzip", board, BROWSER),
        ("leaderboard, signed in", board, {**PLAIN, **signed_in}),
        ("leaderboard, signed in, gzip", board, {**BROWSER, **signed_in}),
        ("charts, anonymous hit, gzip", charts, BROWSER),
        ("charts, signed in", charts, {**PLAIN, **signed_in}),
        ("charts, signed in, gzip", charts, {**BROWSER, **signed_in}),
    ]
    best: dict[str, float] = {}
    answers: dict[str, tuple[str, str, int]] = {}
    for _ in range(rounds):
        for label, path, headers in rows:
            for _ in range(10):  # the entry, the pieces, the connection
                status, response_headers, body = _call(app, path, headers)
            answers[label] = (status, response_headers.get("Content-Encoding", ""), len(body))
            started = time.process_time()
            for _ in range(requests):
                _call(app, path, headers)
            per_request = (time.process_time() - started) / requests
            best[label] = min(best.get(label, per_request), per_request)
    static = best["static file"]
    lines = [
        f"CPU per request in process, least of {rounds} rounds of {requests} requests",
        "| request | CPU per request | vs static file | status | coding | bytes |",
        "|---|---|---|---|---|---|",
    ]
    for label, _, _ in rows:
        status, coding, size = answers[label]
        lines.append(
            f"| {label} | {best[label] * 1e3:.2f} ms | {best[label] / static:.2f}x"
            f" | {status} | {coding or 'identity'} | {size:,} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pages_in_process")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from bench.scratch import Scratch

    with Scratch():
        print(run(args.requests, args.rounds, args.seed), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
