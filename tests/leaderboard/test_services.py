import math

import pytest
from django.db import IntegrityError, transaction

from leaderboard.models import Score, Submission
from leaderboard.services import ScoreInput, submission_accept, submission_create
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


def test_submission_create_stores_scores_and_creates_names():
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg-a", {"d1": 0.5, "d2": 0.75})
    assert submission.status == Submission.Status.PENDING
    assert sorted(benchmark.datasets.values_list("name", flat=True)) == ["d1", "d2"]
    assert sorted(submission.scores.values_list("value", flat=True)) == [0.5, 0.75]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_submission_create_rejects_non_finite_and_writes_nothing(bad):
    benchmark = make_benchmark()
    with pytest.raises(ValueError, match="not finite"):
        submission_create(
            benchmark=benchmark,
            algorithm_name="alg",
            scores=[ScoreInput(dataset="d1", value=1.0), ScoreInput(dataset="d2", value=bad)],
        )
    assert Submission.objects.count() == 0
    assert Score.objects.count() == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_database_refuses_non_finite_scores(bad):
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    dataset = benchmark.datasets.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Score.objects.create(
            submission=submission, dataset=dataset, metric=benchmark.metrics.get(), value=bad
        )


def test_database_refuses_duplicate_scores_with_and_without_folds():
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": [1.0]}, folds=1)
    existing = submission.scores.get()
    for fold in (0, None):
        with pytest.raises(IntegrityError), transaction.atomic():
            for _ in range(2):
                Score.objects.create(
                    submission=submission,
                    dataset=existing.dataset,
                    metric=existing.metric,
                    fold=fold,
                    value=2.0,
                )


def test_accept_enqueues_one_recompute_after_commit(
    django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("estimation.tasks.recompute_benchmark.delay", sent.append)
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission_accept(submission=submission)
    assert sent == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    assert sent == [benchmark.pk]
    submission.refresh_from_db()
    assert submission.status == Submission.Status.ACCEPTED
