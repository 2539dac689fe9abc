"""Every problem of one input in one answer: a results file's unreadable cells together
with the benchmark's rules on the rows that did read (misspelt datasets, values out of
range), a percentage file told once, two spellings of one new name named."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    benchmark_create,
    benchmark_datasets_add,
    submission_create,
)
from tests.api.conftest import client_for
from tests.factories import make_user

pytestmark = pytest.mark.django_db
SHARE = {"min_value": 0.0, "max_value": 1.0, "unit": ""}


@pytest.fixture
def maintainer():
    return make_user("maintainer")


@pytest.fixture
def board(maintainer):
    """Accuracies in [0, 1] on three declared datasets."""
    board = benchmark_create(
        slug="acc",
        title="Accuracy",
        metrics=[("accuracy", "higher", SHARE)],
        submission_policy="open",
    )
    board.maintainers.add(maintainer)
    benchmark_datasets_add(benchmark=board, user=maintainer, names=["iris", "wine", "glass"])
    return board


def upload(user, content: str, **fields):
    return client_for(user).post(
        "/api/benchmarks/acc/submissions/upload/",
        {"file": SimpleUploadedFile("r.csv", content.encode()), **fields},
        format="multipart",
    )


def located(response) -> set[tuple]:
    return {(p["line"], p["field"]) for p in response.json()["problems"]}


def test_a_file_with_a_bad_cell_also_names_its_misspelt_dataset_and_its_range(board):
    response = upload(
        make_user("researcher"),
        "dataset,algorithm,score\niris,a,0.5\nirsi,a,0.6\nwine,a,abc\nglass,a,1.7\n",
    )
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert located(response) == {(3, "dataset"), (4, "score"), (5, "score")}
    by_line = {p["line"]: p["message"] for p in problems}
    assert "did you mean 'iris'?" in by_line[3]
    assert "'abc' is not a number" in by_line[4]
    assert "outside the valid range" in by_line[5]
    assert response.json()["problems_total"] == 3


def test_the_web_form_shows_every_problem_of_the_file_at_once(board, client):
    user = make_user("researcher")
    client.force_login(user)
    response = client.post(
        "/b/acc/submit/csv/",
        {
            "file": SimpleUploadedFile(
                "r.csv", b"dataset,algorithm,score\nirsi,a,0.6\nwine,a,abc\nglass,a,1.7\n"
            )
        },
    )
    text = response.content.decode()
    assert "The file has 3 problems" in text
    assert "did you mean" in text and "iris" in text
    assert "is not a number" in text
    assert "outside the valid range" in text


def test_a_percentage_file_is_told_once(board):
    rows = "".join(
        f"{d},alg-{i},{80 + i / 10:.2f}\n" for i in range(14) for d in ("iris", "wine", "glass")
    )
    response = upload(make_user("researcher"), "dataset,algorithm,score\n" + rows)
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert "these look like percentages" in problem["message"]
    assert "42 values of metric 'accuracy'" in problem["message"]
    assert (problem["line"], problem["field"]) == (2, "score")


def test_values_far_above_100_are_each_out_of_range_not_percentages(board):
    response = upload(make_user("researcher"), "dataset,algorithm,score\niris,a,80\nwine,a,250\n")
    assert response.status_code == 400
    messages = [p["message"] for p in response.json()["problems"]]
    assert len(messages) == 2
    assert not any("percentages" in m for m in messages)


def test_a_json_submission_in_percent_is_told_once(board):
    response = client_for(make_user("researcher")).post(
        "/api/benchmarks/acc/submissions/create/",
        json.dumps(
            {
                "algorithm": "a",
                "scores": [{"dataset": d, "value": 91.5} for d in ("iris", "wine", "glass")],
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["message"].startswith("scores[1]: 3 values of metric 'accuracy' are above 1")


def test_two_spellings_of_one_new_name_are_named(board):
    response = upload(
        make_user("researcher"),
        "dataset,algorithm,score\nux-bad,a,0.5\nUX-Bad,b,0.6\niris,UX-Bad,0.1\n",
        allow_new_datasets="true",
    )
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["message"] == (
        "dataset 'ux-bad' is also spelt 'UX-Bad' (line 3): these would be 2 different "
        "datasets; use one spelling"
    )
    assert (problem["line"], problem["field"]) == (2, "dataset")


def test_two_spellings_of_a_new_algorithm_in_one_file_are_named(board):
    user = make_user("researcher")
    entries = [
        SubmissionInput("my-model", [ScoreInput("iris", 0.5, line=2)]),
        SubmissionInput("My_Model", [ScoreInput("iris", 0.6, line=3)]),
    ]
    from leaderboard.services import submissions_create

    with pytest.raises(ValidationFailed) as caught:
        submissions_create(benchmark=board, submitter=user, entries=entries)
    (problem,) = caught.value.problems
    assert "algorithm 'my-model' is also spelt 'My_Model'" in problem.message


def test_a_clean_file_is_stored(board):
    response = upload(make_user("researcher"), "dataset,algorithm,score\niris,a,0.5\nwine,a,0.6\n")
    assert response.status_code == 201, response.json()


def test_submission_create_keeps_refusing_one_value_out_of_range(board):
    entry = SubmissionInput("a", [ScoreInput("iris", 1.7, line=2)])
    with pytest.raises(ValidationFailed) as caught:
        submission_create(benchmark=board, submitter=make_user("r2"), entry=entry)
    assert "outside the valid range" in caught.value.problems[0].message
