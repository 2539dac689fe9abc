"""Storing a submission costs a fixed number of statements, whatever its size.

A 1,000-row submission waited on each round trip to PostgreSQL (12 statements
plus the COPY under load: 138 ms). The names are read with their public flags (three
queries, not five) and the recompute request is one UPDATE once the benchmark has its
state row. The COPY of the scores goes through psycopg's copy, which Django's query log
does not see; the rows it wrote are checked instead.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from estimation.models import RecomputeState
from leaderboard.models import Submission
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    submissions_create,
)
from tests.factories import make_benchmark, make_user, stored_scores

pytestmark = pytest.mark.django_db

DATASETS, FOLDS = 100, 10


def one_algorithm(name: str, shift: float) -> SubmissionInput:
    return SubmissionInput(
        algorithm=name,
        scores=[
            ScoreInput(dataset=f"d{i:03d}", value=0.5 + shift + 0.001 * i + 0.0001 * f, fold=f)
            for i in range(DATASETS)
            for f in range(FOLDS)
        ],
    )


def store(benchmark, entry: SubmissionInput) -> tuple[list[Submission], list[str]]:
    with CaptureQueriesContext(connection) as queries:
        stored = submissions_create(
            benchmark=benchmark,
            submitter=None,
            entries=[entry],
            source=Submission.Source.IMPORT,
        )
    return stored, [q["sql"] for q in queries.captured_queries]


def test_a_thousand_row_resubmission_takes_a_fixed_set_of_statements():
    benchmark = make_benchmark(slug="round-trips", submission_policy="open")
    store(benchmark, one_algorithm("a", 0.0))
    store(benchmark, one_algorithm("b", 0.1))
    stored, statements = store(benchmark, one_algorithm("a", 0.2))
    selects = [s for s in statements if s.startswith("SELECT")]
    # metrics; datasets with their public flag; algorithms with theirs; the datasets the
    # scores name, locked (the packs' COPY itself is not in Django's log)
    assert len(selects) == 4, selects
    assert sum("EXISTS" in s for s in selects) == 2
    assert "FOR KEY SHARE" in selects[-1]
    inserts = [s for s in statements if s.startswith("INSERT")]
    assert len(inserts) == 1 and "leaderboard_submission" in inserts[0]
    updates = [s for s in statements if s.startswith("UPDATE")]
    assert len(updates) == 1 and "estimation_recomputestate" in updates[0]
    # the savepoints of the outer atomic block (the test's transaction) and nothing else
    others = [s for s in statements if not s.startswith(("SELECT", "INSERT", "UPDATE"))]
    assert len(others) <= 2 and all("SAVEPOINT" in s for s in others), others
    assert len(stored_scores(submission=stored[0])) == DATASETS * FOLDS
    state = RecomputeState.objects.get(pk=benchmark.pk)
    assert state.requested_revision == 3


def test_the_first_request_of_a_benchmark_creates_its_state_row():
    benchmark = make_benchmark(slug="first-request", submission_policy="open")
    RecomputeState.objects.filter(pk=benchmark.pk).delete()
    store(benchmark, one_algorithm("a", 0.0))
    assert RecomputeState.objects.get(pk=benchmark.pk).requested_revision == 1
    store(benchmark, one_algorithm("a", 0.1))
    assert RecomputeState.objects.get(pk=benchmark.pk).requested_revision == 2


def test_a_listed_only_benchmark_still_refuses_names_only_pending_submissions_brought():
    benchmark = make_benchmark(slug="listed-only", submission_policy="moderated")
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=[one_algorithm("a", 0.0)],
        source=Submission.Source.IMPORT,
    )
    user = make_user("pending-writer")
    pending = SubmissionInput(algorithm="b", scores=[ScoreInput(dataset="fresh", value=0.5)])
    submissions_create(
        benchmark=benchmark, submitter=user, entries=[pending], new_datasets_confirmed=True
    )
    benchmark.allow_new_datasets = False
    benchmark.save()
    again = SubmissionInput(algorithm="c", scores=[ScoreInput(dataset="fresh", value=0.5)])
    with pytest.raises(ValidationFailed, match="unknown dataset 'fresh'"):
        submissions_create(benchmark=benchmark, submitter=user, entries=[again])
    listed = SubmissionInput(algorithm="c", scores=[ScoreInput(dataset="d000", value=0.5)])
    assert submissions_create(benchmark=benchmark, submitter=user, entries=[listed])
