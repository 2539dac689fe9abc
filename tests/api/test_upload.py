from unittest.mock import ANY

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Benchmark, Dataset, Submission
from tests import csv_messages
from tests.api.conftest import client_for
from tests.factories import make_benchmark, stored_scores

pytestmark = pytest.mark.django_db

UPLOAD = "/api/benchmarks/toy/submissions/upload/"


def upload(api, content: bytes, path: str = UPLOAD, **fields):
    headers = {k: v for k, v in fields.items() if k.startswith("HTTP_")}
    data = {k: v for k, v in fields.items() if not k.startswith("HTTP_")}
    data["file"] = SimpleUploadedFile("results.csv", content, content_type="text/csv")
    return api.post(path, data, format="multipart", **headers)


GOOD_LONG = b"""dataset,algorithm,score
d1,alg-a,0.9
d2,alg-a,0.8
d1,alg-b,0.5
d2,alg-b,0.6
"""


def test_good_long_csv_creates_one_submission_per_algorithm(researcher, benchmark):
    response = upload(client_for(researcher), GOOD_LONG, note="from my paper")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["n_scores"] == 4
    assert [
        (s["algorithm"], s["status"], s["source"], s["note"], s["n_scores"])
        for s in body["submissions"]
    ] == [
        ("alg-a", "pending", "csv", "from my paper", 2),
        ("alg-b", "pending", "csv", "from my paper", 2),
    ]
    assert body["submissions"][0] == {
        "id": ANY,
        "benchmark": "toy",
        "algorithm": "alg-a",
        "status": "pending",
        "source": "csv",
        "note": "from my paper",
        "submitter": "researcher",
        "created_at": ANY,
        "decided_at": None,
        "decided_by": None,
        "decision_note": "",
        "n_scores": 2,
    }
    assert sorted((r.algorithm, r.dataset, r.value) for r in stored_scores()) == [
        ("alg-a", "d1", 0.9),
        ("alg-a", "d2", 0.8),
        ("alg-b", "d1", 0.5),
        ("alg-b", "d2", 0.6),
    ]


def test_wide_csv_with_a_missing_cell(researcher, benchmark):
    response = upload(client_for(researcher), b"dataset,alg-a,alg-b\nd1,0.9,0.5\nd2,0.8,\n")
    assert response.status_code == 201, response.json()
    assert [(s["algorithm"], s["n_scores"]) for s in response.json()["submissions"]] == [
        ("alg-a", 2),
        ("alg-b", 1),
    ]


def test_ranking_csv_to_a_ranking_benchmark(researcher):
    make_benchmark("toy", direction="lower", ranking_only=True)
    response = upload(
        client_for(researcher),
        b"dataset,algorithm,rank\nd1,a,1\nd1,b,2\nd2,a,1.5\nd2,b,1.5\n",
        format="ranking",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["n_scores"] == 4


def test_ranks_are_refused_by_a_benchmark_of_scores(researcher, benchmark):
    response = upload(client_for(researcher), b"dataset,algorithm,rank\nd1,a,1\nd1,b,2\n")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": 1,
            "field": "rank",
            "message": "this benchmark takes scores, but the file holds ranks "
            "(dataset,algorithm,rank); send scores, or ask a maintainer to make the "
            "benchmark ranking-only",
        }
    ]
    assert not Submission.objects.exists()


def test_a_bad_file_lists_every_bad_row_and_nothing_is_written(researcher, benchmark):
    content = b"""dataset,algorithm,score
d1,alg-a,0.9
d2,alg-a,nan
d3,alg-a,high
,alg-b,0.5
d1,alg-a,0.1
"""
    response = upload(client_for(researcher), content)
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The input was refused; nothing was written. 4 problems found.",
        "problems": [
            {"line": 3, "field": "score", "message": "'nan' is not a finite number"},
            {
                "line": 4,
                "field": "score",
                "message": "'high' is not a number",
            },
            {"line": 5, "field": "dataset", "message": "empty dataset name"},
            {
                "line": 6,
                "field": None,
                "message": 'duplicate result for dataset "d1", algorithm "alg-a": first given on line 2',
            },
        ],
        "problems_total": 4,
    }
    assert not Submission.objects.exists() and not Dataset.objects.exists()


def test_problems_the_services_find_name_the_line(researcher):
    benchmark = make_benchmark("toy", allow_new_datasets=False)
    benchmark.datasets.create(name="d1", declared=True)
    content = b"dataset,algorithm,score,metric\nd1,a,0.5,score\nd9,a,0.5,score\nd1,b,0.5,auc\n"
    # The benchmark's metrics are known while the file is read (line 4), and its other
    # rules are checked on the rows that did read (line 3): one answer, in line order.
    response = upload(client_for(researcher), content)
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": 3,
            "field": "dataset",
            "message": "unknown dataset 'd9'; this benchmark only takes listed datasets",
        },
        {
            "line": 4,
            "field": "metric",
            "message": "unknown metric 'auc'; this benchmark has ['score']",
        },
    ]
    response = upload(client_for(researcher), content.replace(b"auc", b"score"))
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": 3,
            "field": "dataset",
            "message": "unknown dataset 'd9'; this benchmark only takes listed datasets",
        },
    ]
    assert not Submission.objects.exists()


def test_same_idempotency_key_twice_is_one_upload(researcher, benchmark):
    api = client_for(researcher)
    first = upload(api, GOOD_LONG, HTTP_IDEMPOTENCY_KEY="paper-v1")
    again = upload(api, GOOD_LONG, HTTP_IDEMPOTENCY_KEY="paper-v1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert Submission.objects.count() == 2 and len(stored_scores()) == 4


def test_a_too_large_upload_is_413_and_reads_nothing(researcher, benchmark, settings):
    settings.PODIUM_MAX_UPLOAD_BYTES = 1000
    content = b"dataset,algorithm,score\n" + b"".join(
        f"d{i},alg,0.5\n".encode() for i in range(200)
    )
    response = upload(client_for(researcher), content)
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert detail.startswith("The request is ") and detail.endswith(
        "bytes; the limit is 1000 bytes (0.0 MiB). Split the results into smaller files."
    )
    assert not Submission.objects.exists()


def test_a_too_large_json_body_is_413(researcher, benchmark, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    scores = [{"dataset": f"d{i}", "value": 0.5} for i in range(20)]
    response = client_for(researcher).post(
        "/api/benchmarks/toy/submissions/create/",
        {"algorithm": "a", "scores": scores},
        format="json",
    )
    assert response.status_code == 413
    assert not Submission.objects.exists()


def test_too_many_rows(researcher, benchmark, settings):
    settings.PODIUM_MAX_UPLOAD_ROWS = 3
    response = upload(client_for(researcher), GOOD_LONG)
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": 5, "field": None, "message": "too many rows: at most 3 data rows allowed"}
    ]
    assert not Submission.objects.exists()


def test_upload_needs_a_file_and_a_login(client, researcher, benchmark):
    assert upload(client, GOOD_LONG).status_code == 401
    response = client_for(researcher).post(UPLOAD, {"format": "long"}, format="multipart")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": None, "field": "file", "message": "No file was submitted."}
    ]


def test_private_benchmark_upload_is_404_for_strangers(stranger, private_benchmark):
    response = upload(
        client_for(stranger), GOOD_LONG, path="/api/benchmarks/secret/submissions/upload/"
    )
    assert response.status_code == 404
    assert not Submission.objects.exists()
    assert Benchmark.objects.get(slug="secret").datasets.count() == 0


@pytest.mark.parametrize("text", ["True", "TRUE", "False", "1", "0", "yes", "on", " true"])
def test_allow_new_datasets_is_exactly_true_or_false(researcher, benchmark, text):
    response = upload(client_for(researcher), GOOD_LONG, allow_new_datasets=text)
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": None,
            "field": "allow_new_datasets",
            "message": f"Must be a valid boolean: true or false, in lower case (got {text!r}).",
        }
    ]
    assert not Submission.objects.exists()


@pytest.mark.parametrize("text", ["true", "false"])
def test_allow_new_datasets_takes_true_and_false(researcher, benchmark, text):
    response = upload(client_for(researcher), GOOD_LONG, allow_new_datasets=text)
    assert response.status_code == 201, response.json()


def test_a_boolean_query_parameter_is_exactly_true_or_false():
    """Every view's query serializer (none has a boolean yet) holds the same rule."""
    from rest_framework import serializers

    from common.rest import QuerySerializer

    class Query(QuerySerializer):
        flag = serializers.BooleanField(required=False)

    for text in ("true", "false"):
        query = Query(data={"flag": text})
        assert query.is_valid(), query.errors
        assert query.validated_data["flag"] is (text == "true")
    for text in ("True", "TRUE", "1", "yes"):
        query = Query(data={"flag": text})
        assert not query.is_valid()
        assert "true or false" in str(query.errors["flag"][0])


@pytest.mark.parametrize(
    ("content", "problems"),
    list(csv_messages.REFUSED.values()),
    ids=list(csv_messages.REFUSED),
)
def test_newcomers_mistakes_get_the_parsers_exact_messages(
    researcher, benchmark, content, problems
):
    response = upload(client_for(researcher), content)
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The input was refused; nothing was written. 1 problem found.",
        "problems": [problem._asdict() for problem in problems],
        "problems_total": 1,
    }
    assert not Submission.objects.exists()


def test_an_empty_file_in_another_tools_format_is_refused_as_empty(researcher, benchmark):
    response = upload(client_for(researcher), b"", format="eee")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": None, "field": "file", "message": "The submitted file is empty."}
    ]


def test_a_semicolon_file_with_decimal_commas_is_stored(researcher, benchmark):
    response = upload(client_for(researcher), csv_messages.SEMICOLON, allow_new_datasets="true")
    assert response.status_code == 201, response.json()
    assert sorted((r.algorithm, r.dataset, r.value) for r in stored_scores()) == sorted(
        csv_messages.SEMICOLON_SCORES
    )
