"""The API's edges: unknown fields are named, a POST to a collection names the endpoint
that creates, problem positions count from 1, and the public reference documents every
property and path parameter in its readers' words."""

import json
import re

import pytest

from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db

CREATE = "/api/benchmarks/toy/submissions/create/"


def post_json(api, path, body):
    return api.post(path, json.dumps(body), content_type="application/json")


def problems(response) -> dict[str, str]:
    return {p["field"]: p["message"] for p in response.json()["problems"]}


def test_a_misnamed_score_field_is_refused_naming_the_right_one(researcher, benchmark):
    response = post_json(
        client_for(researcher),
        CREATE,
        {
            "algorithm": "alg-a",
            "colour": "red",
            "scores": [{"dataset": "d1", "value": 0.5}, {"dataset": "d2", "score": 0.7}],
        },
    )
    assert response.status_code == 400
    found = problems(response)
    assert "did you mean 'value'?" in found["scores[2].score"]
    assert found["scores[2].value"] == "This field is required."
    assert found["colour"].startswith("unknown field: The fields are algorithm,")
    assert "scores[1].value" not in found  # the first score is fine; positions count from 1


def test_a_misspelt_top_level_field_is_named_with_every_other_problem(researcher, benchmark):
    response = post_json(
        client_for(researcher),
        CREATE,
        {"algorithm": "", "notes": "x", "scores": [{"dataset": "d1", "value": 0.5}]},
    )
    assert response.status_code == 400
    found = problems(response)
    assert "did you mean 'note'?" in found["notes"]
    assert "algorithm" in found  # the blank name in the same answer


def test_unknown_fields_in_a_form_upload_are_named(researcher, benchmark):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("r.csv", b"dataset,algorithm,score\nd1,a,0.5\n")
    response = client_for(researcher).post(
        "/api/benchmarks/toy/submissions/upload/",
        {"file": upload, "fromat": "long"},
        format="multipart",
    )
    assert response.status_code == 400
    assert "did you mean 'format'?" in problems(response)["fromat"]


@pytest.mark.parametrize(
    ("path", "names"),
    [
        (
            "/api/benchmarks/toy/submissions/",
            ["/api/benchmarks/toy/submissions/create/", "/api/benchmarks/toy/submissions/upload/"],
        ),
        ("/api/benchmarks/", ["/api/benchmarks/create/"]),
        ("/api/tokens/", ["/api/tokens/create/"]),
    ],
)
def test_a_post_to_a_collection_names_the_create_endpoint(researcher, benchmark, path, names):
    response = post_json(client_for(researcher), path, {})
    assert response.status_code == 405
    detail = response.json()["detail"]
    for name in names:
        assert f"POST to {name}" in detail


def test_other_methods_keep_the_plain_405(researcher, benchmark):
    response = client_for(researcher).delete("/api/benchmarks/toy/submissions/")
    assert response.status_code == 405
    assert response.json()["detail"] == 'Method "DELETE" not allowed.'


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def _properties(schema: dict, where: str):
    for name, prop in (schema.get("properties") or {}).items():
        yield f"{where}.{name}", prop
        yield from _properties(prop, f"{where}.{name}")
        if isinstance(prop.get("items"), dict):
            yield from _properties(prop["items"], f"{where}.{name}[]")


def test_every_schema_property_has_a_description(schema):
    properties = [
        item
        for name, component in schema["components"]["schemas"].items()
        for item in _properties(component, name)
    ]
    assert len(properties) > 250
    undocumented = [where for where, prop in properties if not prop.get("description")]
    assert undocumented == []


def test_every_parameter_has_a_description(schema):
    parameters = [
        (path, p["in"], p["name"], p.get("description"))
        for path, item in schema["paths"].items()
        for operation in item.values()
        if isinstance(operation, dict)
        for p in operation.get("parameters", [])
    ]
    assert any(where == "path" for _, where, _, _ in parameters)
    assert [p for p in parameters if not p[3]] == []


DEVELOPER_NOTES = re.compile(
    r"\bDRF\b|Schemathesis|docstring|drf-spectacular|``|\bST\d{3}\b|the schema said"
)


def test_the_public_reference_carries_no_developer_notes(schema):
    text = json.dumps(schema)
    assert DEVELOPER_NOTES.findall(text) == []
