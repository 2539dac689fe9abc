"""Suite ``ingest``: a 1,000,000-row long CSV into PostgreSQL through the real services.

The file (``dataset,algorithm,score,fold``: 100 algorithms x 1000 datasets x 10 folds)
is generated first (not timed). Timed, once: ``parse_results_csv`` (read + validate),
``submission_entries_from_csv`` (one SubmissionInput per algorithm) and
``submissions_create`` as a system import (validation, a packed row per submission and
metric, COPY, commit, enqueue of the recompute: no worker listens, the queue is purged
afterwards). The services are wrapped (not changed) to split ``submissions_create`` into
its parts. Reading the scores back as the recompute does (``result_table_build``, the
packs) is timed too, checked against the same scores read as rows
(``accepted_score_rows``), and the ceiling: the same file by one raw text COPY into a
bare table.
Targets: < 15 s and peak memory < 600 MB (issue 14); within 5x the raw COPY (issue 25).
"""

from __future__ import annotations

import functools
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import Options, fmt_seconds, markdown_table, max_rss_mib, synthetic_scores

SIZE = (100, 1000, 10)  # algorithms, datasets, folds: 1,000,000 rows
QUICK_SIZE = (10, 20, 5)
TARGET_SECONDS = 15.0


def write_long_csv(path: Path, m: int, n: int, folds: int, seed: int) -> int:
    _, fold_values = synthetic_scores(m, n, folds=folds, seed=seed)
    datasets = [f"dataset-{i:05d}" for i in range(n)]
    algorithms = [f"algorithm-{j:04d}" for j in range(m)]
    with path.open("w") as out:
        out.write("dataset,algorithm,score,fold\n")
        for j, algorithm in enumerate(algorithms):
            out.writelines(
                f"{datasets[i]},{algorithm},{fold_values[i, f, j]:.6f},{f}\n"
                for i in range(n)
                for f in range(folds)
            )
    return m * n * folds


def raw_copy_seconds(path: Path) -> float:
    """The ceiling: the CSV file as it is, by one text COPY into a table with no key, no
    reference and no check, committed (what PostgreSQL itself costs for these rows)."""
    import psycopg
    from django.db import connection

    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or None,
        password=settings["PASSWORD"] or None,
    ) as conn:
        conn.execute(
            "CREATE TABLE bench_raw_scores "
            "(dataset text, algorithm text, score double precision, fold integer)"
        )
        conn.commit()
        started = time.perf_counter()
        with conn.cursor() as cursor, path.open("rb") as source:
            with cursor.copy("COPY bench_raw_scores FROM STDIN (FORMAT csv, HEADER true)") as copy:
                while block := source.read(1 << 20):
                    copy.write(block)
        conn.commit()
        seconds = time.perf_counter() - started
        conn.execute("DROP TABLE bench_raw_scores")
        conn.commit()
    return seconds


class _Stopwatch:
    """Accumulated time of wrapped functions, by label."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def wrap(self, module, name: str, label: str):
        original = getattr(module, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - started

        setattr(module, name, timed)
        return original


def run(options: Options, scratch) -> str:
    from django.db import transaction

    from estimation.services import result_table_build
    from leaderboard import services
    from leaderboard.ingest.results_csv import parse_results_csv
    from leaderboard.models import ScorePack, Submission
    from leaderboard.score_packs import VALUE
    from leaderboard.selectors import accepted_score_rows
    from leaderboard.services import submissions as submission_services

    m, n, folds = QUICK_SIZE if options.quick else SIZE
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.csv"
        rows = write_long_csv(path, m, n, folds, options.seed)
        size_mb = path.stat().st_size / 1e6
        benchmark = services.benchmark_create(
            slug="ingest", title="Ingest", metrics=[("score", "higher")], submission_policy="open"
        )
        watch = _Stopwatch()
        originals = {
            name: watch.wrap(submission_services, name, label)
            for name, label in (
                ("content_hash", "content hash"),
                ("entry_problems", "validation (entry_problems)"),
                ("_submissions_write", "write in the transaction (_submissions_write)"),
                (
                    "scores_insert",
                    "packing + binary COPY of the packs + dataset check (scores_insert)",
                ),
                ("recompute_request", "recompute_request"),
            )
        }
        original_request = submission_services.recompute_request
        commit: dict[str, float] = {}

        def request_then_mark(**kwargs):
            # The last call inside the transaction: what follows until our on_commit
            # callback (queued after the enqueue) runs is the commit itself.
            original_request(**kwargs)
            commit["start"] = time.perf_counter()
            transaction.on_commit(lambda: commit.setdefault("end", time.perf_counter()))

        submission_services.recompute_request = request_then_mark
        try:
            cpu_started = time.process_time()
            started = time.perf_counter()
            parsed = parse_results_csv(path)
            parse_s = time.perf_counter() - started
            parse_cpu = time.process_time() - cpu_started
            started = time.perf_counter()
            entries = services.submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
            entries_s = time.perf_counter() - started
            started = time.perf_counter()
            services.submissions_create(
                benchmark=benchmark,
                submitter=None,
                entries=entries,
                source=Submission.Source.IMPORT,
            )
            create_s = time.perf_counter() - started
            total_cpu = time.process_time() - cpu_started
        finally:
            for name, original in originals.items():
                setattr(submission_services, name, original)
        commit_s = commit["end"] - commit["start"]
        upload_peak = max_rss_mib()  # before any read-back
        stored = sum(
            len(scores) // VALUE.itemsize
            for scores in ScorePack.objects.filter(submission__benchmark=benchmark).values_list(
                "scores", flat=True
            )
        )
        metric = benchmark.metrics.get()
        started = time.perf_counter()
        table = result_table_build(benchmark=benchmark, metric=metric)
        readback_s = time.perf_counter() - started
        started = time.perf_counter()
        old_rows = accepted_score_rows(benchmark=benchmark, metric=metric)
        readback_rows_s = time.perf_counter() - started
        # every score of the packed table is the one read as a row (all folds 0-9 are
        # present, so a fold's position in the table is its number)
        dataset_at = {name: i for i, name in enumerate(table.datasets)}
        algorithm_at = {name: j for j, name in enumerate(table.algorithms)}
        d, a, f, v = zip(*old_rows, strict=True)
        same = len(old_rows) == rows and np.array_equal(
            table.fold_values[
                [dataset_at[name] for name in d], list(f), [algorithm_at[name] for name in a]
            ],
            np.array(v),
        )
        peak = max_rss_mib()
        del old_rows
        del parsed, entries
        copy_s = raw_copy_seconds(path)
    scratch.purge_queue()
    total = parse_s + entries_s + create_s
    seconds = watch.seconds
    write = seconds.get("write in the transaction (_submissions_write)", 0.0)
    inner = {
        label: value
        for label, value in seconds.items()
        if label.startswith(("validation", "packing"))
    }
    outer = create_s - write - seconds.get("content hash", 0.0) - commit_s
    breakdown = [
        ["parse_results_csv", f"{fmt_seconds(parse_s)} (CPU {fmt_seconds(parse_cpu)})"],
        ["submission_entries_from_csv", fmt_seconds(entries_s)],
        ["submissions_create", fmt_seconds(create_s)],
        ["&nbsp;&nbsp;↳ content hash", fmt_seconds(seconds.get("content hash"))],
        ["&nbsp;&nbsp;↳ _submissions_write", fmt_seconds(write)],
        *[[f"&nbsp;&nbsp;&nbsp;&nbsp;↳ {label}", fmt_seconds(v)] for label, v in inner.items()],
        [
            "&nbsp;&nbsp;&nbsp;&nbsp;↳ rest (datasets, algorithms, submissions, score tuples)",
            fmt_seconds(write - sum(inner.values())),
        ],
        [
            "&nbsp;&nbsp;↳ commit + enqueue",
            fmt_seconds(commit_s),
        ],
        ["&nbsp;&nbsp;↳ rest (permission checks, recompute_request)", fmt_seconds(outer)],
        [
            f"**total** (target < {TARGET_SECONDS:g} s)",
            f"**{fmt_seconds(total)}** (CPU of this process {fmt_seconds(total_cpu)}; "
            "PostgreSQL's is not in it)",
        ],
        [
            "ceiling: raw COPY of the same file into a bare table (not in total)",
            f"{fmt_seconds(copy_s)}; the total is **{total / copy_s:.1f}x** it (target <= 5x)",
        ],
        ["read back: result_table_build, the packs (not in total)", fmt_seconds(readback_s)],
        [
            "read back as rows: accepted_score_rows (a Python tuple a score)",
            f"{fmt_seconds(readback_rows_s)} ({readback_rows_s / readback_s:.1f}x the packs)",
        ],
    ]
    check = np.isfinite(table.fold_values).all() and stored == rows and same
    return "\n\n".join(
        [
            f"### ingest ({rows:,} rows = {m} algorithms x {n} datasets x {folds} folds, "
            f"{size_mb:.0f} MB CSV, timed once)",
            markdown_table(["step", "time"], breakdown),
            f"Stored scores: {stored:,} ({'all' if check else 'NOT all'} read back). "
            f"Target < {TARGET_SECONDS:g} s: {'yes' if total < TARGET_SECONDS else 'no'}; "
            f"within 5x the raw COPY: {'yes' if total <= 5 * copy_s else 'no'}. "
            f"Peak RSS of the bench process: {upload_peak:.0f} MiB at the end of the upload "
            f"(target < 500 MB), {peak:.0f} MiB after the read-backs.",
        ]
    )
