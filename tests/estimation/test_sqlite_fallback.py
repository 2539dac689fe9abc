"""The embedded default (SQLite) stores and reads back scores through the ORM fallbacks.

PostgreSQL takes the binary COPY paths; this runs the whole write -> read-back cycle in
a child interpreter on a fresh SQLite file with the embedded settings.
"""

import subprocess
import sys

from tests.processes import ROOT, embedded_env

SCRIPT = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
import numpy as np
from django.db import connection
from estimation.services import result_table_build
from leaderboard.models import Submission
from leaderboard.services import (
    ScoreInput, SubmissionInput, benchmark_create, submissions_create,
)
assert connection.vendor == "sqlite", connection.vendor
benchmark = benchmark_create(slug="s", title="S", metrics=[("score", "higher")])
def store(algorithm, scores):
    submissions_create(
        benchmark=benchmark, submitter=None, source=Submission.Source.IMPORT,
        entries=[SubmissionInput(algorithm=algorithm, scores=scores)],
    )
store("a", [ScoreInput("d1", 1.0, fold=0), ScoreInput("d1", 3.0, fold=1),
            ScoreInput("d2", 5.0)])
store("b", [ScoreInput("d1", 2.0, fold=0), ScoreInput("d1", 2.0, fold=1)])
store("a", [ScoreInput("d1", 7.0, fold=0)])  # newer: supersedes fold 0 of d1 only
table = result_table_build(benchmark=benchmark, metric=benchmark.metrics.get())
print(table.datasets, table.algorithms)
print(table.values.tolist())
print(table.fold_values[0].tolist())
"""


def test_sqlite_write_and_read_back(tmp_path):
    env = embedded_env(tmp_path / "podium.sqlite3")
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()[-3:]
    assert lines[0] == "('d1', 'd2') ('a', 'b')"
    assert lines[1] == "[[5.0, 2.0], [5.0, nan]]"
    assert lines[2] == "[[7.0, 2.0], [3.0, 2.0]]"
