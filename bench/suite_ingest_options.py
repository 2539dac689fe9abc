"""Suite ``ingest_options``: ways to store 1,000,000 score rows, measured in one run.

Each option stores the same rows (100 submissions x 1000 datasets x 10 folds, one
metric) into the migrated ``leaderboard_score`` table of the scratch database and
commits; the time is COPY (or INSERT) through commit, so deferred checks are included.
Submissions and datasets are created first (not timed), a fresh benchmark per option.
The table is put in each option's shape first ("today" = the row-level foreign keys and
indexes Django created before migration 0005) and left as migrated at the end. Ratios
are against "today" measured in the same run.

Options:

- ``today``: ``COPY ... FROM STDIN`` with ``write_row`` per row; three foreign keys
  (submission, dataset, metric), DEFERRABLE INITIALLY DEFERRED (Django's default), checked
  at commit.
- ``immediate``: the same after ``SET CONSTRAINTS ALL IMMEDIATE`` (checked row by row
  during COPY instead of queued to commit).
- ``staging``: COPY into an unlogged temporary table without constraints, then
  ``INSERT INTO score SELECT`` (the foreign keys still fire per row).
- ``binary``: today's constraints, but one binary COPY buffer built with numpy.
- ``row FK on submission only``: dataset and metric references not checked per row.
- ``no reference check``: the floor (no foreign key, no trigger, no single-column index).
- ``shipped``: migration 0005 as the write service uses it: binary COPY
  (``scores_insert``), references checked once per statement by triggers that lock
  every distinct referenced row (``FOR KEY SHARE``), no single-column indexes (the unique
  constraint leads with the submission).
- ``packed`` (a candidate, not shipped): one row per submission x metric in a table of
  the bench's own (``bench_score_pack``: real foreign keys to the submission and the
  metric, the dataset keys, folds and values as numpy bytes, unique per submission and
  metric), the dataset references checked once per block (the distinct keys locked
  ``FOR KEY SHARE`` and counted, of the benchmark's own datasets), read back and
  compared with what was written.
- ``raw COPY``: the same rows by binary COPY into a bare temporary table (no key, no
  check): what PostgreSQL itself costs, the ceiling every ratio of the last column is
  against (``write_row`` would time Python, not the database).
"""

from __future__ import annotations

import time

import numpy as np

from bench.common import Options, fmt_seconds, markdown_table

SIZE = (100, 1000, 10)
QUICK_SIZE = (10, 20, 5)


def _setup(benchmark_slug: str, m: int, n: int):
    from leaderboard import services
    from leaderboard.models import Algorithm, Dataset, Submission

    benchmark = services.benchmark_create(
        slug=benchmark_slug, title=benchmark_slug, metrics=[("score", "higher")]
    )
    datasets = Dataset.objects.bulk_create(
        [Dataset(benchmark=benchmark, name=f"dataset-{i:05d}") for i in range(n)]
    )
    algorithms = Algorithm.objects.bulk_create(
        [Algorithm(benchmark=benchmark, name=f"algorithm-{j:04d}") for j in range(m)]
    )
    submissions = Submission.objects.bulk_create(
        [
            Submission(benchmark=benchmark, algorithm=a, status=Submission.Status.ACCEPTED)
            for a in algorithms
        ]
    )
    metric = benchmark.metrics.get()
    return (
        np.array([s.pk for s in submissions], dtype=np.int64),
        np.array([d.pk for d in datasets], dtype=np.int64),
        metric.pk,
    )


def _columns(submissions, datasets, metric_id, folds, seed):
    m, n = len(submissions), len(datasets)
    rng = np.random.default_rng(seed)
    sub = np.repeat(submissions, n * folds)
    ds = np.tile(np.repeat(datasets, folds), m)
    fold = np.tile(np.arange(folds, dtype=np.int32), m * n)
    value = rng.normal(size=m * n * folds)
    metric = np.full(m * n * folds, metric_id, dtype=np.int64)
    return sub, ds, metric, fold, value


def _copy_write_row(cursor, table, cols) -> None:
    rows = zip(*(c.tolist() for c in cols), strict=True)
    with cursor.copy(
        f"COPY {table} (submission_id, dataset_id, metric_id, fold, value) FROM STDIN"
    ) as copy:
        for row in rows:
            copy.write_row(row)


def _copy_binary(cursor, table, cols) -> None:
    from leaderboard.services import score_copy_buffer

    sub, ds, metric, fold, value = cols
    with cursor.copy(
        f"COPY {table} (submission_id, dataset_id, metric_id, fold, value) "
        "FROM STDIN (FORMAT BINARY)"
    ) as copy:
        copy.write(score_copy_buffer(sub, ds, metric, fold, value))


SCORE = "leaderboard_score"
REFERENCES = (
    ("submission_id", "leaderboard_submission"),
    ("dataset_id", "leaderboard_dataset"),
    ("metric_id", "leaderboard_metric"),
)
TRIGGERS = ("leaderboard_score_references_insert", "leaderboard_score_references_update")


def _schema(cursor, *, row_fks: tuple[str, ...], indexes: bool, triggers: bool) -> None:
    """Put the score table in one option's shape (migration 0005 is the shipped one)."""
    for column, parent in REFERENCES:
        name = f"bench_fk_{column}"
        cursor.execute(f"ALTER TABLE {SCORE} DROP CONSTRAINT IF EXISTS {name}")
        if column in row_fks:  # what Django creates for a ForeignKey
            cursor.execute(
                f"ALTER TABLE {SCORE} ADD CONSTRAINT {name} FOREIGN KEY ({column}) "
                f"REFERENCES {parent} (id) DEFERRABLE INITIALLY DEFERRED"
            )
        cursor.execute(f"DROP INDEX IF EXISTS bench_index_{column}")
        if indexes and column != "dataset_id":  # migration 0005 keeps the dataset index
            cursor.execute(f"CREATE INDEX bench_index_{column} ON {SCORE} ({column})")
    for trigger in TRIGGERS:
        state = "ENABLE" if triggers else "DISABLE"
        cursor.execute(f"ALTER TABLE {SCORE} {state} TRIGGER {trigger}")


PACKED = "packed (candidate): a row per submission x metric, numpy bytes, checked per block"
RAW = "raw binary COPY of the same rows into a bare table (the ceiling)"
PACK_TABLE = "bench_score_pack"


def _store_packed(cursor, cols) -> None:
    """A row per submission (one metric here): dataset keys, folds and values as bytes;
    the dataset references locked and counted once for the whole write."""
    sub, ds, metric, fold, value = cols
    cursor.execute(
        f"CREATE TABLE IF NOT EXISTS {PACK_TABLE} ("
        "id bigserial PRIMARY KEY, "
        "submission_id bigint NOT NULL REFERENCES leaderboard_submission (id) "
        "DEFERRABLE INITIALLY DEFERRED, "
        "metric_id bigint NOT NULL REFERENCES leaderboard_metric (id) "
        "DEFERRABLE INITIALLY DEFERRED, "
        "datasets bytea NOT NULL, folds bytea NOT NULL, scores bytea NOT NULL, "
        "UNIQUE (submission_id, metric_id))"
    )
    wanted = np.unique(ds)
    cursor.execute(
        "SELECT count(*) FROM (SELECT 1 FROM leaderboard_dataset WHERE id = ANY(%s) "
        "AND benchmark_id = (SELECT benchmark_id FROM leaderboard_submission WHERE id = %s) "
        "FOR KEY SHARE) locked",
        (wanted.tolist(), int(sub[0])),
    )
    if cursor.fetchone()[0] != len(wanted):
        raise AssertionError("a dataset key is not the benchmark's")
    bounds = np.flatnonzero(np.diff(sub)) + 1
    starts = np.r_[0, bounds]
    stops = np.r_[bounds, len(sub)]
    with cursor.copy(
        f"COPY {PACK_TABLE} (submission_id, metric_id, datasets, folds, scores) FROM STDIN"
    ) as copy:
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
            copy.write_row(
                (
                    int(sub[start]),
                    int(metric[start]),
                    ds[start:stop].astype("<i8").tobytes(),
                    fold[start:stop].astype("<i4").tobytes(),
                    value[start:stop].astype("<f8").tobytes(),
                )
            )


def _packed_check(cols) -> None:
    """Every packed score read back as it was written, then the table dropped."""
    from django.db import connection

    sub, ds, _, fold, value = cols
    with connection.cursor() as c:
        c.execute(
            f"SELECT submission_id, datasets, folds, scores FROM {PACK_TABLE} "
            "ORDER BY submission_id"
        )
        rows = c.fetchall()
        c.execute(f"DROP TABLE {PACK_TABLE}")
    back = [np.frombuffer(bytes(r[3]), dtype="<f8") for r in rows]
    assert np.array_equal(np.concatenate(back), value), "packed scores differ"
    assert np.array_equal(
        np.concatenate([np.frombuffer(bytes(r[1]), dtype="<i8") for r in rows]), ds
    )
    assert np.array_equal(
        np.concatenate([np.frombuffer(bytes(r[2]), dtype="<i4") for r in rows]), fold
    )
    assert np.array_equal(np.repeat([r[0] for r in rows], [len(b) for b in back]), sub)


def run(options: Options, scratch) -> str:
    from django.db import connection, transaction

    from leaderboard.models import Score
    from leaderboard.services.scores import ScoreColumns, scores_insert

    table = Score._meta.db_table
    m, n, folds = QUICK_SIZE if options.quick else SIZE
    rows_total = m * n * folds
    all_fks = tuple(c for c, _ in REFERENCES)
    before = dict(row_fks=all_fks, indexes=True, triggers=False)

    def today(cursor, cols):
        _copy_write_row(cursor, table, cols)

    def immediate(cursor, cols):
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        _copy_write_row(cursor, table, cols)

    def staging(cursor, cols):
        cursor.execute(
            "CREATE TEMPORARY TABLE score_staging (submission_id bigint, dataset_id bigint, "
            "metric_id bigint, fold integer, value double precision) ON COMMIT DROP"
        )
        _copy_binary(cursor, "score_staging", cols)
        cursor.execute(
            f"INSERT INTO {table} (submission_id, dataset_id, metric_id, fold, value) "
            "SELECT submission_id, dataset_id, metric_id, fold, value FROM score_staging"
        )

    def binary(cursor, cols):
        _copy_binary(cursor, table, cols)

    def shipped(cursor, cols):
        scores_insert(ScoreColumns(*cols))

    def packed(cursor, cols):
        _store_packed(cursor, cols)

    def raw(cursor, cols):
        cursor.execute(
            "CREATE TEMPORARY TABLE bench_raw (submission_id bigint, dataset_id bigint, "
            "metric_id bigint, fold integer, value double precision) ON COMMIT DROP"
        )
        _copy_binary(cursor, "bench_raw", cols)

    variants = [
        ("today: write_row COPY, 3 deferred row FKs + 3 FK indexes", today, before),
        ("row FKs checked immediately (SET CONSTRAINTS ALL IMMEDIATE)", immediate, before),
        ("staging temp table + INSERT ... SELECT (row FKs)", staging, before),
        ("binary COPY from numpy (row FKs)", binary, before),
        (
            "binary COPY, row FK on submission only",
            binary,
            dict(row_fks=("submission_id",), indexes=True, triggers=False),
        ),
        (
            "binary COPY, no reference check at all (floor)",
            binary,
            dict(row_fks=(), indexes=False, triggers=False),
        ),
        (
            "**shipped**: binary COPY, set-based statement triggers, dataset index only",
            shipped,
            dict(row_fks=(), indexes=False, triggers=True),
        ),
        (PACKED, packed, dict(row_fks=(), indexes=False, triggers=True)),
        (RAW, raw, dict(row_fks=(), indexes=False, triggers=True)),
    ]
    results = []
    try:
        for index, (label, store, schema) in enumerate(variants):
            submissions, datasets, metric_id = _setup(f"options-{index}", m, n)
            cols = _columns(submissions, datasets, metric_id, folds, options.seed)
            with connection.cursor() as c:
                _schema(c.cursor, **schema)
            started = time.perf_counter()
            with transaction.atomic():
                with connection.cursor() as c:
                    store(c.cursor, cols)
                before_commit = time.perf_counter()
            seconds = time.perf_counter() - started
            commit = time.perf_counter() - before_commit
            if label == PACKED:
                _packed_check(cols)
            elif label != RAW:
                stored = Score.objects.filter(submission_id__in=submissions.tolist()).count()
                assert stored == rows_total, (label, stored)
            results.append((label, seconds, commit))
            with connection.cursor() as c:
                c.execute(f"TRUNCATE {table}")
    finally:
        with connection.cursor() as c:
            _schema(c.cursor, row_fks=(), indexes=False, triggers=True)
    base = results[0][1]
    ceiling = results[-1][1]
    body = [
        [label, fmt_seconds(s), fmt_seconds(commit), f"{base / s:.2f}x", f"{s / ceiling:.1f}x"]
        for label, s, commit in results
    ]
    return "\n\n".join(
        [
            f"### ingest_options ({rows_total:,} score rows, COPY through commit, timed once)",
            markdown_table(
                ["option", "store + commit", "of which commit", "speed-up vs today", "vs raw COPY"],
                body,
            ),
        ]
    )
