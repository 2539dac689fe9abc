"""Requests the OpenAPI schema forbids are refused (Schemathesis' negative_data_rejection).

A text's maxLength holds for the value as sent, whitespace included.

DRF trims the whitespace around a CharField's value before its ``max_length`` check, so
201 characters ending in a space passed a limit of 200 and the submission was stored.
The OpenAPI schema documents ``maxLength`` of the raw value, and Schemathesis (the
negative_data_rejection check, ST201 "Schema-violating request accepted", found in its
Coverage phase for POST /api/benchmarks/{slug}/submissions/create/) sent exactly such a
value. These are those requests, refused now with nothing written.

``algorithm_url`` is documented as ``format: uri`` (RFC 3986, which Schemathesis checks
with jsonschema_rs), but Django's URLValidator takes any printable character in the
path and DRF trimmed the spaces around it: ``https://0.com/{`` or ``" https://0.com"``
were stored.
"""

from __future__ import annotations

import json

import pytest

from leaderboard.models import Benchmark, Submission
from tests.api.conftest import client_for
from tests.factories import make_benchmark

pytestmark = pytest.mark.django_db

CREATE = "/api/benchmarks/open/submissions/create/"
VALID = {"algorithm": "alg", "scores": [{"dataset": "d", "value": 0.5}]}


@pytest.fixture
def open_benchmark(db) -> Benchmark:
    """Open: a submission is stored and accepted on arrival, so a wrong 201 shows."""
    return make_benchmark("open", submission_policy=Benchmark.SubmissionPolicy.OPEN)


def post(api, body: dict):
    return api.post(CREATE, json.dumps(body), content_type="application/json")


@pytest.mark.parametrize(
    ("change", "field", "limit"),
    [
        ({"algorithm": "a" * 200 + " "}, "algorithm", 200),
        ({"algorithm": " " + "a" * 200}, "algorithm", 200),
        ({"algorithm": "a" * 200 + "\u2028"}, "algorithm", 200),  # Unicode whitespace too
        ({"algorithm_version": "v" * 50 + " "}, "algorithm_version", 50),
        ({"algorithm_url": "https://example.org/" + "x" * 180 + "\t"}, "algorithm_url", 200),
        (
            {"scores": [{"dataset": "d" * 200 + " ", "value": 0.5}]},
            "scores[1].dataset",
            200,
        ),
    ],
    ids=["algorithm-trailing", "algorithm-leading", "algorithm-u2028", "version", "url", "dataset"],
)
def test_a_value_over_its_max_length_by_whitespace_is_refused(
    researcher, open_benchmark, change, field, limit
):
    response = post(client_for(researcher), {**VALID, **change})
    assert response.status_code == 400, response.content
    assert [(p["field"], p["message"]) for p in response.json()["problems"]] == [
        (field, f"Ensure this field has no more than {limit} characters.")
    ]
    assert not Submission.objects.exists()


def test_at_the_limit_with_whitespace_inside_it_is_stored_trimmed(researcher, open_benchmark):
    response = post(client_for(researcher), {**VALID, "algorithm": " " + "a" * 198 + " "})
    assert response.status_code == 201, response.content
    assert response.json()["algorithm"] == "a" * 198


def test_a_query_parameter_over_its_max_length_by_whitespace_is_refused(researcher, open_benchmark):
    api = client_for(researcher)
    path = "/api/benchmarks/open/submissions/"
    response = api.get(path, {"algorithm": "a" * 200 + " "})
    assert response.status_code == 400, response.content
    assert "no more than 200 characters" in json.dumps(response.json())
    assert api.get(path, {"algorithm": "a" * 199 + " "}).status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/{",
        "https://example.org/a|b",
        "https://example.org/a\\b",
        "https://example.org/^",
        "https://example.org/`",
        'https://example.org/"',
        "https://example.org/<a>",
        "https://example.org/100%",
        "https://example.org/%zz",
        " https://example.org",
        "https://example.org ",
    ],
)
def test_an_algorithm_url_that_is_no_rfc3986_uri_is_refused(researcher, open_benchmark, url):
    response = post(client_for(researcher), {**VALID, "algorithm_url": url})
    assert response.status_code == 400, response.content
    assert {p["field"] for p in response.json()["problems"]} == {"algorithm_url"}
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/a%20b?q=1&r=[2]#frag",
        "http://[2001:db8::1]:8080/x",
        "https://example.org/~user/(v2);p=1,2!*'$+@",
    ],
)
def test_an_rfc3986_uri_is_stored(researcher, open_benchmark, url):
    response = post(client_for(researcher), {**VALID, "algorithm_url": url})
    assert response.status_code == 201, response.content
    assert Submission.objects.get().algorithm_url == url


UPDATE = "/api/benchmarks/toy/update/"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        # The request Schemathesis' Coverage phase sent (ST201, "Missing request body"):
        # POST /api/benchmarks/my-study/update/ with no body, by the benchmark's maintainer.
        (None, None),
        ("{}", "application/json"),
        ("", "application/x-www-form-urlencoded"),
        ('{"unknown": 1}', "application/json"),
    ],
    ids=["no-body", "empty-object", "empty-form", "only-unknown-fields"],
)
def test_a_benchmark_update_that_changes_nothing_is_refused(
    maintainer, benchmark, body, content_type
):
    api = client_for(maintainer)
    if body is None:
        response = api.post(UPDATE)
    else:
        response = api.post(UPDATE, body, content_type=content_type)
    assert response.status_code == 400, response.content
    expected = "unknown field" if body and "unknown" in body else "send at least one field"
    assert expected in response.json()["problems"][0]["message"]


def test_a_benchmark_update_needs_no_title(maintainer, benchmark):
    """The schema said ``title`` was required; the update takes any one field."""
    response = client_for(maintainer).post(UPDATE, {"alpha": 0.01}, format="json")
    assert response.status_code == 200, response.content
    benchmark.refresh_from_db()
    assert benchmark.alpha == 0.01


def test_the_schema_of_the_update_requires_no_field():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    component = schema["components"]["schemas"]["BenchmarkUpdateInputRequest"]
    assert "required" not in component


# What the schema now forbids, or allows, found by Schemathesis with every check.


def test_a_name_ending_in_a_control_character_is_refused_not_trimmed(researcher, open_benchmark):
    """DRF trims whitespace, "\\n" and "\\x1f" among it, before the services check a name."""
    for algorithm in ("alg\n", "\x1falg"):
        response = post(client_for(researcher), {**VALID, "algorithm": algorithm})
        assert response.status_code == 400, response.content
        [problem] = response.json()["problems"]
        assert problem["field"] == "algorithm" and "control character" in problem["message"]
    assert not Submission.objects.exists()


def test_a_submission_without_scores_is_refused_by_its_schema_rule(researcher, open_benchmark):
    response = post(client_for(researcher), {**VALID, "scores": []})
    assert response.status_code == 400, response.content
    assert response.json()["problems"] == [
        {"line": None, "field": "scores", "message": "Ensure this field has at least 1 elements."}
    ]


def test_a_benchmark_is_created_from_json_only(researcher):
    response = client_for(researcher).post(
        "/api/benchmarks/create/", {"slug": "s", "title": "T", "metrics": "accuracy"}
    )
    assert response.status_code == 415, response.content
    assert not Benchmark.objects.exists()


def test_an_undeclared_method_is_a_405_before_the_query_is_read(researcher, benchmark):
    # After authentication (an anonymous TRACE is a 401, as DRF answers any unsafe method).
    api = client_for(researcher)
    response = api.generic("TRACE", "/api/benchmarks/toy/snapshots/status/?metric=")
    assert response.status_code == 405
    assert response.json()["detail"] == 'Method "TRACE" not allowed.'


def test_a_name_the_benchmark_lacks_is_not_found_and_a_taken_one_a_conflict(
    maintainer, benchmark, researcher
):
    api = client_for(maintainer)
    missing = api.post("/api/benchmarks/toy/datasets/rename/", {"name": "nope", "new_name": "x"})
    assert missing.status_code == 404, missing.content
    assert missing.json()["problems"][0]["field"] == "name"
    body = {"slug": "toy", "title": "Again", "metrics": [{"name": "m", "direction": "higher"}]}
    taken = client_for(researcher).post("/api/benchmarks/create/", body, format="json")
    assert taken.status_code == 409, taken.content
    assert taken.json()["problems"][0]["field"] == "slug"
