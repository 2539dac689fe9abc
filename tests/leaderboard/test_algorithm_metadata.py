"""An algorithm's metadata (family, parameter count, licence, URL, revision): given on
the form, as CSV columns, in the API and by importers; shown on the algorithm page once
a submission of it is accepted."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text
from leaderboard.models import Algorithm
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    benchmark_create,
    submission_create,
    submission_entries_from_csv,
    submissions_create,
)
from tests.api.conftest import client_for
from tests.factories import make_user

pytestmark = pytest.mark.django_db

CSV = b"""dataset,algorithm,score,family,parameters,licence,url,revision
d1,xgb,0.81,gradient boosting,,Apache-2.0,https://xgboost.ai,2.0.3
d2,xgb,0.78,,,,,
d1,mlp,0.75,neural network,120000,MIT,,
d2,mlp,0.74,,,,,
"""


@pytest.fixture
def board():
    return benchmark_create(
        slug="tab", title="Tabular", metrics=[("accuracy", "higher")], submission_policy="open"
    )


def test_csv_columns_describe_each_algorithm_once():
    parsed = parse_results_csv_text(CSV)
    assert parsed.algorithm_metadata == {
        "xgb": {
            "family": "gradient boosting",
            "licence": "Apache-2.0",
            "url": "https://xgboost.ai",
            "revision": "2.0.3",
        },
        "mlp": {"family": "neural network", "parameters": 120000, "licence": "MIT"},
    }


def test_csv_rows_of_one_algorithm_may_not_disagree():
    with pytest.raises(ResultsCsvError) as caught:
        parse_results_csv_text(b"dataset,algorithm,score,licence\nd1,a,0.5,MIT\nd2,a,0.6,GPL\n")
    (error,) = caught.value.errors
    assert (error.line, error.column) == (3, "licence")
    with pytest.raises(ResultsCsvError, match="not a parameter count"):
        parse_results_csv_text(b"dataset,algorithm,score,parameters\nd1,a,0.5,1.5e9\n")


def test_a_csv_import_sets_the_algorithms_metadata(board):
    entries = submission_entries_from_csv(benchmark=board, parsed=parse_results_csv_text(CSV))
    submissions_create(
        benchmark=board, submitter=make_user(), entries=entries, new_datasets_confirmed=True
    )
    xgb = Algorithm.objects.get(name="xgb")
    assert (xgb.family, xgb.licence, xgb.url, xgb.revision) == (
        "gradient boosting",
        "Apache-2.0",
        "https://xgboost.ai",
        "2.0.3",
    )
    assert Algorithm.objects.get(name="mlp").parameters == 120000
    listed = client_for(make_user("reader")).get("/api/benchmarks/tab/algorithms/").json()
    mlp = next(a for a in listed["results"] if a["name"] == "mlp")
    assert (mlp["family"], mlp["parameters"], mlp["licence"]) == ("neural network", 120000, "MIT")


def test_the_service_refuses_bad_metadata_naming_the_field(board):
    entry = SubmissionInput(
        algorithm="a",
        scores=[ScoreInput("d1", 0.5)],
        algorithm_metadata={"parameters": -3, "colour": "red"},
    )
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=board, submitter=make_user(), entry=entry, new_datasets_confirmed=True
        )
    assert {p.field for p in caught.value.problems} == {"parameters", "colour"}


def test_the_api_takes_metadata_and_a_pending_submission_does_not_show_it():
    moderated = benchmark_create(slug="mod", title="Moderated", metrics=[("accuracy", "higher")])
    api = client_for(make_user("scripted"))
    response = api.post(
        "/api/benchmarks/mod/submissions/create/",
        json.dumps(
            {
                "algorithm": "llm",
                "algorithm_metadata": {
                    "family": "transformer",
                    "parameters": 7_000_000_000,
                    "licence": "llama2",
                },
                "scores": [{"dataset": "d1", "value": 0.5}],
                "allow_new_datasets": True,
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 201, response.json()
    llm = Algorithm.objects.get(benchmark=moderated, name="llm")
    assert llm.family == ""  # public only once accepted
    assert llm.submissions.get().algorithm_metadata["parameters"] == 7_000_000_000
    refused = api.post(
        "/api/benchmarks/mod/submissions/create/",
        json.dumps(
            {
                "algorithm": "x",
                "algorithm_metadata": {"size": 3},
                "scores": [{"dataset": "d1", "value": 0.5}],
            }
        ),
        content_type="application/json",
    )
    assert refused.status_code == 400


def test_the_form_takes_metadata_and_the_algorithm_page_shows_it(client, board):
    user = make_user("researcher")
    client.force_login(user)
    page = client.get("/b/tab/submit/").content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    response = client.post(
        "/b/tab/submit/",
        {
            "idempotency_key": key,
            "algorithm": "forest",
            "algorithm_url": "https://example.org/forest",
            "family": "random forest",
            "parameters": "2500000",
            "licence": "BSD-3-Clause",
            "revision": "abc123",
            "note": "",
            "metric": "accuracy",
            "folds": "1",
            "grid-rows": "1",
            "grid-folds": "1",
            "grid-0-dataset": "d1",
            "grid-0-new": "1",
            "grid-0-0": "0.7",
            "action": "submit",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    body = client.get("/b/tab/algorithms/forest/").content.decode()
    assert 'data-testid="algorithm-family">random forest<' in body
    assert 'data-testid="algorithm-parameters">2.5M<' in body
    assert 'data-testid="algorithm-licence">BSD-3-Clause<' in body
    assert "abc123" in body


def test_the_web_csv_upload_carries_metadata_columns(client, board):
    client.force_login(make_user("uploader"))
    preview = client.post("/b/tab/submit/csv/", {"file": SimpleUploadedFile("r.csv", CSV)})
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview.content.decode()).group(1)
    client.post("/b/tab/submit/csv/confirm/", {"token": token, "confirm_new_datasets": "1"})
    assert Algorithm.objects.get(benchmark=board, name="xgb").revision == "2.0.3"


def test_precision_and_open_weights_through_the_api_reach_the_algorithm_once_accepted(
    client, board
):
    """open_weights false is a value (closed weights), not an absence."""
    api = client_for(make_user("scripted"))
    response = api.post(
        "/api/benchmarks/tab/submissions/create/",
        json.dumps(
            {
                "algorithm": "llm",
                "algorithm_metadata": {"precision": "bfloat16", "open_weights": False},
                "scores": [{"dataset": "d1", "value": 0.5}],
                "allow_new_datasets": True,
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 201, response.json()
    llm = Algorithm.objects.get(benchmark=board, name="llm")
    assert (llm.precision, llm.open_weights) == ("bfloat16", False)
    listed = api.get("/api/benchmarks/tab/algorithms/").json()["results"]
    assert (listed[0]["precision"], listed[0]["open_weights"]) == ("bfloat16", False)
    body = client.get("/b/tab/algorithms/llm/").content.decode()
    assert 'data-testid="algorithm-precision">bfloat16<' in body
    assert 'data-testid="algorithm-open-weights">no<' in body


def test_the_service_refuses_open_weights_that_is_not_true_or_false(board):
    entry = SubmissionInput(
        algorithm="a",
        scores=[ScoreInput("d1", 0.5)],
        algorithm_metadata={"open_weights": "yes", "precision": "x" * 31},
    )
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=board, submitter=make_user(), entry=entry, new_datasets_confirmed=True
        )
    assert {p.message for p in caught.value.problems} == {
        "open_weights must be true or false, got 'yes'",
        "precision is 31 characters long; the limit is 30",
    }
