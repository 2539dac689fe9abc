import math

import pytest
from django.db import IntegrityError, transaction

from estimation.models import RecomputeState
from leaderboard.models import Benchmark, Submission
from leaderboard.services import (
    PermissionDenied,
    ScoreInput,
    StateConflict,
    SubmissionInput,
    ValidationFailed,
    benchmark_create,
    benchmark_update,
    metric_add,
    submission_accept,
    submission_create,
    submission_reject,
    submission_withdraw,
)
from tests.factories import (
    entry,
    make_benchmark,
    make_submission,
    make_user,
    store_scores,
    stored_scores,
)

pytestmark = pytest.mark.django_db


def requested_revision(benchmark) -> int:
    state = RecomputeState.objects.filter(pk=benchmark.pk).first()
    return state.requested_revision if state else 0


def test_submission_create_stores_scores_and_creates_names():
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg-a", {"d1": 0.5, "d2": 0.75})
    assert submission.status == Submission.Status.PENDING  # moderated by default
    assert sorted(benchmark.datasets.values_list("name", flat=True)) == ["d1", "d2"]
    assert sorted(r.value for r in stored_scores(submission=submission)) == [0.5, 0.75]
    assert requested_revision(benchmark) == 0  # pending scores change nothing


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "0.5"])
def test_non_finite_or_non_numeric_scores_are_refused_and_nothing_is_written(bad):
    benchmark = make_benchmark()
    scores = [ScoreInput(dataset="d1", value=1.0), ScoreInput(dataset="d2", value=bad)]
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=benchmark,
            submitter=make_user(),
            entry=SubmissionInput(algorithm="alg", scores=scores),
        )
    assert [str(p) for p in caught.value.problems] == [
        f"value: scores[2]: score must be a finite number, got {bad!r}"
    ]
    assert Submission.objects.count() == 0 and len(stored_scores()) == 0


def test_every_problem_is_reported_with_its_line():
    benchmark = make_benchmark(allow_new_datasets=False)
    benchmark.datasets.create(name="known", declared=True)
    scores = [
        ScoreInput(dataset="known", value=0.1, line=2),
        ScoreInput(dataset="unknown", value=0.2, line=3),
        ScoreInput(dataset="known", value=0.3, line=4),
        ScoreInput(dataset="known", value=0.3, metric="nope", line=5),
    ]
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=benchmark,
            submitter=make_user(),
            entry=SubmissionInput(algorithm="alg", scores=scores),
        )
    messages = [str(p) for p in caught.value.problems]
    assert messages == [
        "line 3, column \"dataset\": unknown dataset 'unknown'; this benchmark only takes listed datasets",
        "line 4, column \"dataset\": duplicate score for dataset 'known' (first given on line 2)",
        "line 5, column \"metric\": unknown metric 'nope'; this benchmark has ['score']",
    ]


def test_open_benchmark_accepts_on_arrival_and_requests_a_recompute():
    benchmark = make_benchmark(submission_policy=Benchmark.SubmissionPolicy.OPEN)
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    assert submission.status == Submission.Status.ACCEPTED
    assert requested_revision(benchmark) == 1


def test_closed_benchmark_refuses_researchers_but_not_maintainers():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark(submission_policy=Benchmark.SubmissionPolicy.CLOSED)
    benchmark.maintainers.add(maintainer)
    with pytest.raises(PermissionDenied):
        make_submission(benchmark, "alg", {"d1": 1.0})
    own = make_submission(benchmark, "alg", {"d1": 1.0}, submitter=maintainer)
    assert own.status == Submission.Status.ACCEPTED


def test_anonymous_users_cannot_submit():
    from django.contrib.auth.models import AnonymousUser

    benchmark = make_benchmark(submission_policy=Benchmark.SubmissionPolicy.OPEN)
    with pytest.raises(PermissionDenied):
        submission_create(
            benchmark=benchmark, submitter=AnonymousUser(), entry=entry("a", {"d": 1})
        )


def test_idempotency_key_makes_a_retry_a_no_op_and_refuses_other_content():
    benchmark = make_benchmark()
    user = make_user()
    first = submission_create(
        benchmark=benchmark, submitter=user, entry=entry("a", {"d": 1.0}), idempotency_key="k1"
    )
    again = submission_create(
        benchmark=benchmark, submitter=user, entry=entry("a", {"d": 1.0}), idempotency_key="k1"
    )
    assert again.pk == first.pk and Submission.objects.count() == 1
    with pytest.raises(ValidationFailed, match="already used for different content"):
        submission_create(
            benchmark=benchmark, submitter=user, entry=entry("a", {"d": 2.0}), idempotency_key="k1"
        )


def test_moderation_is_for_maintainers_only():
    maintainer, stranger = make_user("maintainer"), make_user("stranger")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    with pytest.raises(PermissionDenied):
        submission_accept(submission=submission, user=stranger)
    with pytest.raises(PermissionDenied):
        submission_reject(submission=submission, user=stranger)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.PENDING
    submission_accept(submission=submission, user=maintainer, note="looks right")
    submission.refresh_from_db()
    assert submission.status == Submission.Status.ACCEPTED
    assert submission.decided_by == maintainer and submission.decision_note == "looks right"
    assert requested_revision(benchmark) == 1


def test_withdrawing_an_accepted_submission_requests_a_recompute():
    benchmark = make_benchmark(submission_policy=Benchmark.SubmissionPolicy.OPEN)
    user = make_user()
    submission = make_submission(benchmark, "alg", {"d1": 1.0}, submitter=user)
    with pytest.raises(PermissionDenied):
        submission_withdraw(submission=submission, user=make_user("other"))
    submission_withdraw(submission=submission, user=user)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.WITHDRAWN
    assert requested_revision(benchmark) == 2


def test_changing_analysis_settings_requests_a_recompute_but_a_title_does_not():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    benchmark_update(benchmark=benchmark, user=maintainer, title="New title")
    assert requested_revision(benchmark) == 0
    benchmark_update(benchmark=benchmark, user=maintainer, top_k=2)
    assert requested_revision(benchmark) == 1
    with pytest.raises(PermissionDenied):
        benchmark_update(benchmark=benchmark, user=make_user("x"), top_k=4)
    with pytest.raises(ValidationFailed):
        benchmark_update(benchmark=benchmark, user=maintainer, slug="renamed")


def test_benchmark_create_validates_metrics_and_slug():
    make_benchmark("taken")
    with pytest.raises(ValidationFailed) as caught:
        benchmark_create(slug="taken", title="t", metrics=[("acc", "up"), ("acc", "higher")])
    assert [p.message for p in caught.value.problems] == [
        "metric 'acc': direction must be one of ['higher', 'lower'], got 'up'",
        "metric 'acc' is listed twice",
        "a benchmark with slug 'taken' already exists",
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_score_store_refuses_non_finite_scores(bad):
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    submission.score_packs.all().delete()
    dataset, metric = benchmark.datasets.get(), benchmark.metrics.get()
    with pytest.raises(IntegrityError, match="not a finite number"), transaction.atomic():
        store_scores(
            [(submission, dataset, metric, None, 1.0), (submission, dataset, metric, 0, bad)]
        )
    assert not stored_scores()


def test_the_score_store_refuses_duplicate_scores_with_and_without_folds():
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": [1.0]}, folds=True)
    dataset, metric = benchmark.datasets.get(), benchmark.metrics.get()
    for fold in (0, None):
        # a second pack for the same submission and metric (the database's constraint)
        with pytest.raises(IntegrityError), transaction.atomic():
            store_scores([(submission, dataset, metric, fold, 2.0)])
    submission.score_packs.all().delete()
    for fold in (0, None):
        with pytest.raises(IntegrityError, match="same dataset and fold"), transaction.atomic():
            store_scores([(submission, dataset, metric, fold, 2.0)] * 2)
    store_scores([(submission, dataset, metric, None, 2.0), (submission, dataset, metric, 0, 3.0)])
    assert [(r.fold, r.value) for r in stored_scores()] == [(None, 2.0), (0, 3.0)]


def test_accept_enqueues_after_commit(django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr(
        "estimation.tasks.recompute_benchmark.apply_async",
        lambda args, kwargs=None, **options: sent.append(args[0]),
    )
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission_accept(submission=submission)
    assert sent == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    assert sent == [benchmark.pk]


def test_booleans_and_overlong_names_are_refused():
    benchmark = make_benchmark()
    scores = [ScoreInput(dataset="d1", value=True), ScoreInput(dataset="x" * 201, value=0.5)]
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=benchmark,
            submitter=make_user(),
            entry=SubmissionInput(algorithm="a" * 201, scores=scores),
        )
    assert [str(p) for p in caught.value.problems] == [
        "algorithm: algorithm name is longer than 200 characters",
        "value: scores[1]: score must be a finite number, got True",
        "dataset: scores[2]: dataset name is longer than 200 characters",
    ]


def test_invalid_settings_are_reported_as_problems_not_crashes():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    with pytest.raises(ValidationFailed) as caught:
        benchmark_update(benchmark=benchmark, user=maintainer, alpha=2.0, correction="sidak")
    fields = sorted(p.field for p in caught.value.problems)
    assert fields == ["alpha", "correction"]


def test_the_default_control_names_one_of_the_benchmarks_algorithms():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    make_submission(benchmark, "alpha", {"d1": 0.5, "d2": 0.6})
    benchmark_update(benchmark=benchmark, user=maintainer, control_algorithm=" alpha ")
    benchmark.refresh_from_db()
    assert benchmark.control_algorithm == "alpha"
    assert requested_revision(benchmark) >= 1  # an analysis setting: recompute
    from estimation.services import analysis_settings_for

    assert analysis_settings_for(benchmark=benchmark).control == "alpha"
    benchmark_update(benchmark=benchmark, user=maintainer, control_algorithm="")
    benchmark.refresh_from_db()
    assert analysis_settings_for(benchmark=benchmark).control is None
    for bad in ("nobody", "x" * 500, 3):
        with pytest.raises(ValidationFailed) as caught:
            benchmark_update(benchmark=benchmark, user=maintainer, control_algorithm=bad)
        assert caught.value.problems[0].field == "control_algorithm"
    with pytest.raises(ValidationFailed) as caught:
        make_benchmark("fresh", control_algorithm="alpha")  # no algorithms yet
    assert "no algorithm named 'alpha'" in caught.value.problems[0].message


def test_no_op_and_impossible_state_changes_are_conflicts_decided_in_the_service():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    submission = make_submission(benchmark, "alg", {"d1": 1.0})
    submission_withdraw(submission=submission, user=maintainer)
    revision = requested_revision(benchmark)
    for change in (submission_accept, submission_reject, submission_withdraw):
        with pytest.raises(StateConflict, match=r"(is|already) withdrawn"):
            change(submission=submission, user=maintainer)
    assert requested_revision(benchmark) == revision  # nothing recomputed
    accepted = make_submission(benchmark, "other", {"d1": 2.0})
    submission_accept(submission=accepted)  # the system itself (user=None)
    with pytest.raises(StateConflict, match="already accepted"):
        submission_accept(submission=accepted)


def test_a_ranking_only_benchmark_keeps_one_metric_on_every_path():
    # A second metric made its scores.csv and template files that no upload reads.
    with pytest.raises(ValidationFailed) as created:
        benchmark_create(
            slug="two-ranks",
            title="t",
            metrics=[("rank", "lower"), ("b", "lower")],
            ranking_only=True,
        )
    assert [str(p) for p in created.value.problems] == [
        "metrics: a ranking-only benchmark has one metric, the rank"
    ]
    maintainer = make_user("keeper")
    ranked = make_benchmark("ranked", direction="lower", ranking_only=True)
    ranked.maintainers.add(maintainer)
    with pytest.raises(ValidationFailed) as added:
        metric_add(benchmark=ranked, user=maintainer, name="time", direction="lower")
    assert [p.message for p in added.value.problems] == [
        "a ranking-only benchmark has one metric, the rank"
    ]
    scored = benchmark_create(slug="scored", title="s", metrics=[("a", "higher"), ("b", "lower")])
    scored.maintainers.add(maintainer)
    with pytest.raises(ValidationFailed) as switched:
        benchmark_update(benchmark=scored, user=maintainer, ranking_only=True)
    assert [p.field for p in switched.value.problems] == ["ranking_only"]
    assert not Benchmark.objects.get(slug="scored").ranking_only
