"""The typo guard: near-miss names are refused with "did you mean", at every entry point."""

from __future__ import annotations

import io

import pytest

from leaderboard import typo_guard
from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text
from leaderboard.models import Dataset, Metric, Submission
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    benchmark_metric_check,
    submission_accept,
    submission_create,
)
from leaderboard.typo_guard import NameIndex
from tests.api.conftest import client_for
from tests.factories import entry, make_benchmark, make_submission, make_user, stored_scores

KNOWN = ["iris", "task3", "task-01", "d1", "KNN", "accuracy", "wine-quality", "C4.5"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("irs", "iris"),  # a deletion
        ("Iris", "iris"),  # case
        ("iirs", "iris"),  # a swap of neighbours
        ("task-3", "task3"),  # punctuation
        ("wine_quality", "wine-quality"),
        ("c45", "C4.5"),
        ("accuarcy", "accuracy"),
        ("wine-qualitz", "wine-quality"),  # a substitution in a long name
        ("knn", "KNN"),
        # Different things, not typos:
        ("task-02", None),  # other numbers
        ("d2", None),
        ("C4.6", None),
        ("acc", None),  # too far
        ("new-one", None),
        ("svr", None),  # one substitution in a short name (svm/svr, lda/qda)
        ("iris", None),  # known
    ],
)
def test_suggestions(name, expected):
    assert NameIndex.of([*KNOWN, "svm"]).suggest(name) == expected


def test_algorithms_are_matched_up_to_case_and_punctuation_only():
    index = NameIndex.of(["gpt4", "ResNet"])
    assert index.suggest("GPT-4", edits=False) == "gpt4"
    assert index.suggest("gpt4o", edits=False) is None
    assert index.suggest("resnext", edits=False) is None


def test_many_names_are_checked_in_linear_time(monkeypatch):
    """10,000 new names against 10,000 known ones: hashing, not 10^8 comparisons. Counted
    as the pairs compared name by name (each comparison still runs), not as seconds."""
    known = NameIndex.of(f"dataset-{i:05d}-of-the-study" for i in range(10_000))
    compared = 0
    one_edit = typo_guard._one_edit

    def counted(a: str, b: str) -> bool:
        nonlocal compared
        compared += 1
        return one_edit(a, b)

    monkeypatch.setattr(typo_guard, "_one_edit", counted)
    hits = [known.suggest(f"Dataset_{i:05d}_of_the_studdy") for i in range(10_000)]
    assert hits[123] == "dataset-00123-of-the-study"
    assert all(hit is not None for hit in hits)
    assert compared <= 2 * 10_000, compared  # a few candidates a name, not 10,000


# --- the services, for every entry point --------------------------------------------------


@pytest.fixture
def iris_benchmark(db):
    maintainer = make_user("maintainer")
    benchmark = make_benchmark()
    benchmark.maintainers.add(maintainer)
    accepted = make_submission(benchmark, "KNN", {"iris": 0.9, "task3": 0.8, "wine": 0.7})
    submission_accept(submission=accepted, user=maintainer)
    return benchmark


def _messages(exc_info) -> list[str]:
    return [str(p) for p in exc_info.value.problems]


@pytest.mark.django_db
def test_a_typo_is_refused_with_did_you_mean_and_nothing_is_stored(iris_benchmark):
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=iris_benchmark,
            submitter=make_user("alice"),
            entry=entry("SVM", {"irs": 0.5, "task-3": 0.6, "wine": 0.7}),
            new_datasets_confirmed=True,  # confirming does not let a typo through
        )
    assert _messages(caught) == [
        "dataset: scores[1]: dataset 'irs' is not in this benchmark; did you mean 'iris'?",
        "dataset: scores[2]: dataset 'task-3' is not in this benchmark; did you mean 'task3'?",
    ]
    assert not Dataset.objects.filter(name__in=["irs", "task-3"]).exists()


@pytest.mark.django_db
def test_an_algorithm_differing_only_in_case_is_refused(iris_benchmark):
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=iris_benchmark,
            submitter=make_user("alice"),
            entry=entry("knn", {"iris": 0.5}),
        )
    assert "did you mean 'KNN'?" in _messages(caught)[0]


@pytest.mark.django_db
def test_a_new_dataset_needs_a_confirmation(iris_benchmark):
    alice = make_user("alice")
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=iris_benchmark, submitter=alice, entry=entry("SVM", {"mnist": 0.5})
        )
    (message,) = _messages(caught)
    assert "dataset 'mnist' is new to this benchmark" in message
    assert '"allow_new_datasets": true' in message
    submission = submission_create(
        benchmark=iris_benchmark,
        submitter=alice,
        entry=entry("SVM", {"mnist": 0.5}),
        new_datasets_confirmed=True,
    )
    assert [r.dataset for r in stored_scores(submission=submission)] == ["mnist"]


@pytest.mark.django_db
def test_the_first_submission_to_an_empty_benchmark_needs_no_confirmation():
    benchmark = make_benchmark()
    submission = submission_create(
        benchmark=benchmark, submitter=make_user("alice"), entry=entry("a", {"d1": 0.5})
    )
    assert len(stored_scores(submission=submission)) == 1


@pytest.mark.django_db
def test_pending_names_are_never_suggested(iris_benchmark):
    """Another researcher's pending dataset is not public: no hint that it exists."""
    make_submission(iris_benchmark, "Secret", {"hidden-dataset": 0.5})
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=iris_benchmark,
            submitter=make_user("alice"),
            entry=entry("SVM", {"hidden_dataset": 0.5}),
        )
    assert "hidden-dataset" not in " ".join(_messages(caught))


@pytest.mark.django_db
def test_one_problem_per_name_with_its_first_line(iris_benchmark):
    scores = [ScoreInput(dataset="irs", value=0.5, fold=f, line=10 + f) for f in range(5)]
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=iris_benchmark,
            submitter=make_user("alice"),
            entry=SubmissionInput(algorithm="SVM", scores=scores),
        )
    (problem,) = caught.value.problems
    assert problem.line == 10 and problem.field == "dataset"
    assert problem.message.endswith("did you mean 'iris'? (5 scores name it)")


@pytest.mark.django_db
def test_an_unknown_metric_in_a_file_is_reported_at_its_own_lines(iris_benchmark):
    """Nine rows with a misspelt metric: nine errors at their lines, not a fold error."""
    Metric.objects.create(benchmark=iris_benchmark, name="accuracy", direction="higher")
    rows = ["dataset,algorithm,fold,metric,score"]
    rows += [f"iris,SVM,{f},score,0.5" for f in range(3)]
    rows += [f"iris,SVM,{f},acuracy,0.5" for f in range(3)]
    rows += [f"iris,KNN,{f},score,0.5" for f in range(3)]
    rows += [f"iris,KNN,{f},acuracy,0.5" for f in range(3)]
    rows += [f"iris,LR,{f},acuracy,0.5" for f in range(3)]
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(
            "\n".join(rows), metric_check=benchmark_metric_check(benchmark=iris_benchmark)
        )
    errors = caught.value.errors
    assert [e.line for e in errors] == [5, 6, 7, 11, 12, 13, 14, 15, 16]
    assert all(e.column == "metric" for e in errors)
    assert errors[0].message == (
        "unknown metric 'acuracy'; this benchmark has ['accuracy', 'score']; "
        "did you mean 'accuracy'?"
    )


# --- the API ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_api_refuses_a_typo_and_takes_a_new_dataset_only_with_the_flag(iris_benchmark):
    api = client_for(make_user("alice"))
    url = f"/api/benchmarks/{iris_benchmark.slug}/submissions/create/"
    typo = api.post(
        url, {"algorithm": "SVM", "scores": [{"dataset": "irs", "value": 0.5}]}, format="json"
    )
    assert typo.status_code == 400
    assert "did you mean 'iris'?" in typo.json()["problems"][0]["message"]

    new = {"algorithm": "SVM", "scores": [{"dataset": "mnist", "value": 0.5}]}
    refused = api.post(url, new, format="json")
    assert refused.status_code == 400
    assert "new to this benchmark" in refused.json()["problems"][0]["message"]
    stored = api.post(url, {**new, "allow_new_datasets": True}, format="json")
    assert stored.status_code == 201


@pytest.mark.django_db
def test_api_upload_reports_the_unknown_metric_and_the_typo_by_line(iris_benchmark):
    api = client_for(make_user("alice"))
    url = f"/api/benchmarks/{iris_benchmark.slug}/submissions/upload/"
    bad_metric = io.BytesIO(b"dataset,algorithm,metric,score\niris,SVM,scor,0.5\n")
    bad_metric.name = "m.csv"
    response = api.post(url, {"file": bad_metric}, format="multipart")
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["line"] == 2 and problem["field"] == "metric"
    assert "did you mean 'score'?" in problem["message"]

    typo = io.BytesIO(b"dataset,algorithm,score\niris,SVM,0.5\nTask3,SVM,0.6\n")
    typo.name = "t.csv"
    response = api.post(url, {"file": typo, "allow_new_datasets": "true"}, format="multipart")
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["line"] == 3 and "did you mean 'task3'?" in problem["message"]
    assert not Submission.objects.filter(algorithm__name="SVM").exists()
