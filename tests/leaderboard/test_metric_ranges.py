"""A metric's valid range: set by maintainers (form, API, admin, command) and by
importers; a value outside it is refused with its line and field on every way in; a
"perfect" score is one at the range's better end."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from leaderboard.models import Metric, Submission
from leaderboard.moderation import evidence_for
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    benchmark_create,
    metric_add,
    metric_range_set,
    submission_create,
)
from tests.api.conftest import client_for
from tests.factories import make_user, stored_scores

pytestmark = pytest.mark.django_db
AUC = {"min_value": 0.0, "max_value": 1.0, "unit": ""}


@pytest.fixture
def auc_board():
    """An open board of AUCs in [0, 1] (the Demšar board as a new user met it)."""
    return benchmark_create(
        slug="auc", title="AUC", metrics=[("auc", "higher", AUC)], submission_policy="open"
    )


@pytest.fixture
def user(client):
    researcher = make_user("researcher")
    client.force_login(researcher)
    return researcher


def test_the_service_refuses_a_value_beyond_the_range_naming_its_line_and_field(auc_board, user):
    entry = SubmissionInput(
        algorithm="too-good",
        scores=[ScoreInput("d1", 0.9, line=2), ScoreInput("d2", 1.7, line=3)],
    )
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=auc_board, submitter=user, entry=entry, new_datasets_confirmed=True
        )
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (3, "value")
    assert problem.message == "1.7 is outside the valid range of metric 'auc', [0, 1]"
    assert len(stored_scores()) == 0


def test_the_web_form_refuses_it_at_its_cell(client, auc_board, user):
    page = client.get("/b/auc/submit/").content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    response = client.post(
        "/b/auc/submit/",
        {
            "idempotency_key": key,
            "algorithm": "too-good",
            "note": "",
            "metric": "auc",
            "folds": "1",
            "grid-rows": "1",
            "grid-folds": "1",
            "grid-0-dataset": "d1",
            "grid-0-new": "1",
            "grid-0-0": "1.7",
            "action": "submit",
        },
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "1.7 is outside the valid range of metric &#x27;auc&#x27;, [0, 1]" in body
    assert 'id="grid-0-0-error"' in body
    assert Submission.objects.count() == 0


def test_the_csv_web_upload_refuses_it_at_its_line(client, auc_board, user):
    response = client.post(
        "/b/auc/submit/csv/",
        {"file": SimpleUploadedFile("r.csv", b"dataset,algorithm,score\nd1,x,0.5\nd2,x,1.7\n")},
    )
    body = response.content.decode()
    assert 'data-testid="upload-problem" data-line="3"' in body
    assert "outside the valid range" in body
    assert 'data-testid="upload-confirm"' not in body
    # Located as the CLI locates it: the file's column, not the API's "value".
    assert [error.text for error in response.context["errors"]] == [
        "line 3, column \"score\": 1.7 is outside the valid range of metric 'auc', [0, 1]"
    ]


def test_the_api_refuses_it_with_line_and_field(auc_board):
    api = client_for(make_user("scripted"))
    response = api.post(
        "/api/benchmarks/auc/submissions/create/",
        json.dumps({"algorithm": "x", "scores": [{"dataset": "d1", "value": 1.7}]}),
        content_type="application/json",
    )
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["field"] == "value" and "outside the valid range" in problem["message"]
    upload = api.post(
        "/api/benchmarks/auc/submissions/upload/",
        {"file": SimpleUploadedFile("r.csv", b"dataset,algorithm,score\nd1,x,0.5\nd2,x,-0.2\n")},
        format="multipart",
    )
    assert upload.status_code == 400
    (problem,) = upload.json()["problems"]
    assert (problem["line"], problem["field"]) == (3, "score")  # the file's column
    wide = api.post(
        "/api/benchmarks/auc/submissions/upload/",
        {"file": SimpleUploadedFile("w.csv", b"dataset,x,y\nd1,0.5,0.6\nd2,0.7,1.2\n")},
        format="multipart",
    )
    assert wide.status_code == 400
    assert wide.json()["problems"] == [
        {
            "line": 3,
            "field": "y",
            "message": "1.2 is outside the valid range of metric 'auc', [0, 1]",
        }
    ]


def test_the_import_command_takes_a_range_and_refuses_values_beyond_it(tmp_path):
    path = tmp_path / "acc.csv"
    path.write_text("dataset,algorithm,score\nd1,a,0.5\nd1,b,33.4\n")
    with pytest.raises(
        CommandError, match=r'line 3, column "score": 33.4 is outside the valid range'
    ):
        call_command(
            "import_benchmark",
            str(path),
            "--slug",
            "acc",
            "--metric",
            "accuracy",
            "--min-value",
            "0",
            "--max-value",
            "1",
            stdout=StringIO(),
        )
    assert not Metric.objects.filter(benchmark__slug="acc").exists()  # all or nothing


def test_maintainers_set_the_range_by_api_and_it_is_shown():
    maintainer = make_user("maintainer")
    api = client_for(maintainer)
    response = api.post(
        "/api/benchmarks/create/",
        json.dumps(
            {
                "slug": "acc",
                "title": "Accuracy",
                "metrics": [
                    {
                        "name": "accuracy",
                        "direction": "higher",
                        "min_value": 0,
                        "max_value": 100,
                        "unit": "%",
                    }
                ],
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 201, response.json()
    metrics = api.get("/api/benchmarks/acc/metrics/").json()
    rows = metrics["results"] if isinstance(metrics, dict) else metrics
    assert (rows[0]["min_value"], rows[0]["max_value"], rows[0]["unit"]) == (0.0, 100.0, "%")


def test_a_range_must_be_ordered_and_finite(auc_board):
    maintainer = make_user("maintainer")
    auc_board.maintainers.add(maintainer)
    with pytest.raises(
        ValidationFailed, match=r"the lowest valid value \(min_value\) must be below the highest"
    ):
        metric_add(
            benchmark=auc_board,
            user=maintainer,
            name="f1",
            direction="higher",
            min_value=1,
            max_value=0,
        )
    with pytest.raises(ValidationFailed, match="max_value must be a finite number"):
        metric_add(
            benchmark=auc_board,
            user=maintainer,
            name="f1",
            direction="higher",
            max_value=float("inf"),
        )
    metric = auc_board.metrics.get()
    metric_range_set(
        benchmark=auc_board, user=maintainer, metric=metric, min_value=0.5, max_value=1.0
    )
    assert Metric.objects.get(pk=metric.pk).min_value == 0.5


def test_the_catalogue_form_adds_a_metric_with_its_range(client, auc_board):
    maintainer = make_user("maintainer")
    auc_board.maintainers.add(maintainer)
    client.force_login(maintainer)
    response = client.post(
        "/b/auc/maintain/catalogue/",
        {
            "action": "metric",
            "name": "accuracy",
            "direction": "higher",
            "min_value": "0",
            "max_value": "100",
            "unit": "%",
        },
    )
    assert response.status_code in (200, 302)
    metric = Metric.objects.get(benchmark=auc_board, name="accuracy")
    assert (metric.min_value, metric.max_value, metric.unit) == (0.0, 100.0, "%")


# --- "perfect" is the range's end ----------------------------------------------------------


def test_a_percentage_on_an_empty_board_is_not_called_perfect():
    evidence = evidence_for(
        metric="accuracy", higher_is_better=True, submission={"d1": 33.4, "d2": 40.0}, accepted={}
    )
    assert "perfect score on every dataset" not in evidence.flags


def test_perfect_means_the_better_end_of_the_range():
    on_the_end = evidence_for(
        metric="accuracy",
        higher_is_better=True,
        submission={"d1": 100.0, "d2": 100.0},
        accepted={},
        best_possible=100.0,
    )
    assert "perfect score on every dataset" in on_the_end.flags
    below = evidence_for(
        metric="accuracy",
        higher_is_better=True,
        submission={"d1": 1.0, "d2": 1.0},
        accepted={},
        best_possible=100.0,
    )
    assert "perfect score on every dataset" not in below.flags
    error = evidence_for(
        metric="error",
        higher_is_better=False,
        submission={"d1": 0.0},
        accepted={},
        best_possible=0.0,
    )
    assert "perfect score on every dataset" in error.flags


def test_the_metric_knows_its_best_possible_value(auc_board):
    assert auc_board.metrics.get().best_possible == 1.0
    lower = Metric(direction="lower", min_value=0.0, max_value=None)
    assert lower.best_possible == 0.0


def test_the_catalogue_sets_the_range_of_an_existing_metric(client, auc_board):
    maintainer = make_user("maintainer")
    auc_board.maintainers.add(maintainer)
    client.force_login(maintainer)
    response = client.post(
        "/b/auc/maintain/catalogue/",
        {
            "action": "metric_range",
            "metric": "auc",
            "min_value": "0.5",
            "max_value": "1",
            "unit": "",
        },
    )
    assert response.status_code == 302
    assert Metric.objects.get(benchmark=auc_board, name="auc").min_value == 0.5
    refused = client.post(
        "/b/auc/maintain/catalogue/",
        {"action": "metric_range", "metric": "auc", "min_value": "2", "max_value": "1"},
    )
    assert refused.status_code == 200
    assert (
        "the lowest valid value (min_value) must be below the highest" in refused.content.decode()
    )
    assert "valid range [0.5, 1.0]" in client.get("/b/auc/maintain/catalogue/").content.decode()
