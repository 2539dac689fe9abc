"""Score packs' references (migration 0017): the submission and metric are foreign keys,
the datasets a list the write service checks and locks, and a deferred trigger keeps.

These tests attack them: a missing or another benchmark's dataset, a missing submission
or metric through the bulk COPY path, deleting a referenced parent with raw SQL,
deleting a parent while an upload that references it is still open, and a fold number
that does not fit the column.
"""

import numpy as np
import psycopg
import pytest
from django.db import IntegrityError, connection, transaction

from leaderboard.models import Dataset, Metric, Submission
from leaderboard.services import (
    ScoreColumns,
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    submissions_create,
)
from leaderboard.services.scores import scores_insert
from tests.factories import make_benchmark, stored_scores

pytestmark = pytest.mark.django_db


def stored_benchmark():
    benchmark = make_benchmark(slug="refs")
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        source=Submission.Source.IMPORT,
        entries=[SubmissionInput("a", [ScoreInput("d1", 1.0, fold=0), ScoreInput("d2", 2.0)])],
    )
    return benchmark, Submission.objects.get(benchmark=benchmark)


def columns(submission, dataset_id, metric_id, count=3):
    return ScoreColumns(
        submission=np.full(count, submission.pk, dtype=np.int64),
        dataset=np.full(count, dataset_id, dtype=np.int64),
        metric=np.full(count, metric_id, dtype=np.int64),
        fold=np.arange(10, 10 + count, dtype=np.int64),
        value=np.ones(count),
    )


def second_submission(benchmark) -> Submission:
    """A submission without scores yet, of the same benchmark."""
    first = Submission.objects.get(benchmark=benchmark)
    return Submission.objects.create(benchmark=benchmark, algorithm=first.algorithm)


def immediately(cursor) -> None:
    """Deferred checks (foreign keys, the datasets' trigger) fire now, not at commit."""
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_a_missing_or_foreign_dataset_or_submission_is_refused():
    benchmark, _ = stored_benchmark()
    fresh = second_submission(benchmark)
    metric = benchmark.metrics.get().pk
    missing = Dataset.objects.order_by("-pk").first().pk + 1000
    elsewhere = make_benchmark(slug="other").datasets.create(name="d1").pk
    for dataset in (missing, elsewhere):
        with pytest.raises(IntegrityError, match="dataset its benchmark does not have"):
            with transaction.atomic():
                scores_insert(columns(fresh, dataset, metric), benchmark_id=benchmark.pk)
    fresh.pk += 1000
    with pytest.raises(IntegrityError, match="leaderboard_submission"):
        with transaction.atomic(), connection.cursor() as cursor:
            scores_insert(
                columns(fresh, Dataset.objects.first().pk, metric), benchmark_id=benchmark.pk
            )
            immediately(cursor)
    assert len(stored_scores()) == 2


def test_bulk_copy_with_a_missing_metric_fails():
    benchmark, _ = stored_benchmark()
    fresh = second_submission(benchmark)
    dataset = Dataset.objects.filter(benchmark=benchmark).first()
    missing_metric = Metric.objects.order_by("-pk").first().pk + 1000
    with pytest.raises(IntegrityError, match="leaderboard_metric"):
        with transaction.atomic(), connection.cursor() as cursor:
            scores_insert(columns(fresh, dataset.pk, missing_metric), benchmark_id=benchmark.pk)
            immediately(cursor)
    assert len(stored_scores()) == 2
    with transaction.atomic():  # the same rows with valid references go in
        scores_insert(
            columns(fresh, dataset.pk, benchmark.metrics.get().pk), benchmark_id=benchmark.pk
        )
    assert len(stored_scores()) == 5


def test_deleting_a_referenced_parent_with_raw_sql_fails():
    benchmark, submission = stored_benchmark()
    for table, pk, message in (
        ("leaderboard_dataset", Dataset.objects.get(benchmark=benchmark, name="d2").pk, "pack"),
        ("leaderboard_metric", benchmark.metrics.get().pk, "leaderboard_scorepack"),
        ("leaderboard_submission", submission.pk, "leaderboard_scorepack"),
    ):
        with pytest.raises(IntegrityError, match=message):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {table} WHERE id = %s", [pk])
                immediately(cursor)
    with transaction.atomic(), connection.cursor() as cursor:  # a dataset no pack names
        unused = Dataset.objects.create(benchmark=benchmark, name="unused").pk
        cursor.execute("DELETE FROM leaderboard_dataset WHERE id = %s", [unused])
        immediately(cursor)
    submission.delete()  # Django's CASCADE removes the packs first
    assert not stored_scores()


@pytest.mark.django_db(transaction=True)
def test_a_benchmark_can_be_deleted_once_its_submissions_are():
    """The datasets' check waits for the commit, when the packs are gone too (the order
    the demo loader and the tests delete a benchmark in)."""
    benchmark, _ = stored_benchmark()
    with transaction.atomic():
        Submission.objects.filter(benchmark=benchmark).delete()
        benchmark.delete()
    assert not stored_scores() and not Dataset.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_parent_cannot_be_deleted_under_an_open_upload():
    """The upload locks what it references (FOR KEY SHARE), as a foreign key would."""
    benchmark = make_benchmark(slug="race")
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        source=Submission.Source.IMPORT,
        entries=[SubmissionInput("a", [ScoreInput("d1", 1.0)])],
    )
    fresh = second_submission(benchmark)
    dataset = Dataset.objects.create(benchmark=benchmark, name="d-new")
    params = connection.get_connection_params()
    with transaction.atomic():
        scores_insert(
            columns(fresh, dataset.pk, benchmark.metrics.get().pk, count=1),
            benchmark_id=benchmark.pk,
        )
        with psycopg.connect(**params, autocommit=True) as other:
            other.execute("SET lock_timeout = '300ms'")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("DELETE FROM leaderboard_dataset WHERE id = %s", [dataset.pk])
    with psycopg.connect(**params, autocommit=True) as other:
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            other.execute("DELETE FROM leaderboard_dataset WHERE id = %s", [dataset.pk])


@pytest.mark.parametrize("fold", [2**31, 2**40, -1, True])
def test_a_fold_outside_the_column_is_a_problem_not_a_wrapped_number(fold):
    benchmark = make_benchmark(slug="fold")
    with pytest.raises(ValidationFailed, match="fold must be an integer from 0 to 2147483647"):
        submissions_create(
            benchmark=benchmark,
            submitter=None,
            source=Submission.Source.IMPORT,
            entries=[SubmissionInput("a", [ScoreInput("d1", 1.0, fold=fold)])],
        )
    assert not stored_scores()
