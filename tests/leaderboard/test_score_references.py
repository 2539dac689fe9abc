"""Score references are checked by PostgreSQL once per statement (migration 0005).

Row-level foreign keys were replaced by statement-level triggers; these tests attack
them: a missing reference through INSERT and through the bulk COPY path, deleting a
referenced parent with raw SQL, deleting a parent while an upload that references it
is still open, and a fold number that does not fit the column.
"""

import numpy as np
import psycopg
import pytest
from django.db import IntegrityError, connection, transaction

from leaderboard.models import Dataset, Metric, Score, Submission
from leaderboard.services import (
    ScoreColumns,
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    submissions_create,
)
from leaderboard.services.scores import scores_insert
from tests.factories import make_benchmark

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


def test_insert_with_a_missing_reference_fails():
    benchmark, submission = stored_benchmark()
    metric = benchmark.metrics.get()
    missing = Dataset.objects.order_by("-pk").first().pk + 1000
    with pytest.raises(IntegrityError, match="missing leaderboard_dataset"):
        with transaction.atomic():
            Score.objects.create(submission=submission, dataset_id=missing, metric=metric, value=1)
    with pytest.raises(IntegrityError, match="missing leaderboard_submission"):
        with transaction.atomic():
            Score.objects.create(
                submission_id=submission.pk + 1000,
                dataset=Dataset.objects.first(),
                metric=metric,
                value=1,
            )


def test_bulk_copy_with_a_missing_reference_fails():
    benchmark, submission = stored_benchmark()
    dataset = Dataset.objects.filter(benchmark=benchmark).first()
    missing_metric = Metric.objects.order_by("-pk").first().pk + 1000
    with pytest.raises(IntegrityError, match="missing leaderboard_metric"):
        with transaction.atomic():
            scores_insert(columns(submission, dataset.pk, missing_metric))
    assert Score.objects.count() == 2
    with transaction.atomic():  # the same rows with valid references go in
        scores_insert(columns(submission, dataset.pk, benchmark.metrics.get().pk))
    assert Score.objects.count() == 5


def test_deleting_a_referenced_parent_with_raw_sql_fails():
    benchmark, submission = stored_benchmark()
    for table, pk in (
        ("leaderboard_dataset", Dataset.objects.filter(benchmark=benchmark).first().pk),
        ("leaderboard_metric", benchmark.metrics.get().pk),
        ("leaderboard_submission", submission.pk),
    ):
        with pytest.raises(IntegrityError, match="still referenced"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {table} WHERE id = %s", [pk])
    submission.delete()  # Django's CASCADE removes the scores first
    assert not Score.objects.exists()


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
    submission = Submission.objects.get()
    dataset = Dataset.objects.create(benchmark=benchmark, name="d-new")
    params = connection.get_connection_params()
    with transaction.atomic():
        scores_insert(columns(submission, dataset.pk, benchmark.metrics.get().pk, count=1))
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
    assert not Score.objects.exists()
