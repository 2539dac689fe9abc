import json
import re

import pytest
import yaml
from drf_spectacular.validation import validate_schema

from leaderboard.api.text_schema import text_pattern
from leaderboard.ingest.results_csv import control_character_problem

pytestmark = pytest.mark.django_db

EXPECTED = {
    "/api/": {"get"},
    "/api/benchmarks/": {"get"},
    "/api/benchmarks/create/": {"post"},
    "/api/benchmarks/{slug}/": {"get"},
    "/api/benchmarks/{slug}/update/": {"post"},
    "/api/benchmarks/{slug}/metrics/": {"get"},
    "/api/benchmarks/{slug}/metrics/{metric}/rope/": {"post"},
    "/api/benchmarks/{slug}/datasets/": {"get"},
    "/api/benchmarks/{slug}/algorithms/": {"get"},
    "/api/benchmarks/{slug}/datasets/rename/": {"post"},
    "/api/benchmarks/{slug}/datasets/delete/": {"post"},
    "/api/benchmarks/{slug}/algorithms/rename/": {"post"},
    "/api/benchmarks/{slug}/algorithms/delete/": {"post"},
    "/api/benchmarks/{slug}/algorithms/owners/add/": {"post"},
    "/api/benchmarks/{slug}/algorithms/owners/transfer/": {"post"},
    "/api/benchmarks/{slug}/submissions/": {"get"},
    "/api/benchmarks/{slug}/submissions/create/": {"post"},
    "/api/benchmarks/{slug}/submissions/upload/": {"post"},
    "/api/benchmarks/{slug}/submissions/{submission_id}/": {"get"},
    "/api/benchmarks/{slug}/uploads/{job_id}/": {"get"},
    "/api/benchmarks/{slug}/submissions/{submission_id}/withdraw/": {"post"},
    "/api/benchmarks/{slug}/submissions/{submission_id}/accept/": {"post"},
    "/api/benchmarks/{slug}/submissions/{submission_id}/reject/": {"post"},
    "/api/benchmarks/{slug}/snapshots/": {"get"},
    "/api/benchmarks/{slug}/snapshots/latest/": {"get"},
    "/api/benchmarks/{slug}/snapshots/status/": {"get"},
    "/api/benchmarks/{slug}/snapshots/latest/export.csv": {"get"},
    "/api/benchmarks/{slug}/snapshots/latest/export.json": {"get"},
    "/api/benchmarks/{slug}/snapshots/{version}/": {"get"},
    "/api/benchmarks/{slug}/snapshots/{version}/export.csv": {"get"},
    "/api/benchmarks/{slug}/snapshots/{version}/export.json": {"get"},
    "/api/benchmarks/{slug}/snapshots/latest/sections/{name}/": {"get"},
    "/api/benchmarks/{slug}/snapshots/{version}/sections/{name}/": {"get"},
    "/api/contract/": {"get"},
    "/api/contract/snapshot.schema.json": {"get"},
    "/api/tokens/": {"get"},
    "/api/tokens/create/": {"post"},
    "/api/tokens/{token_id}/revoke/": {"post"},
}


def test_schema_is_a_valid_openapi_document_listing_every_endpoint(client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    validate_schema(schema)  # drf-spectacular's own check against the OpenAPI 3 JSON schema
    assert schema["openapi"].startswith("3.")
    paths = {
        path: {m for m in item if m in {"get", "post", "put", "patch", "delete"}}
        for path, item in schema["paths"].items()
    }
    assert paths == EXPECTED
    upload = schema["paths"]["/api/benchmarks/{slug}/submissions/upload/"]["post"]
    assert "multipart/form-data" in upload["requestBody"]["content"]
    assert {"201", "200", "400", "413", "429"} <= set(upload["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in upload["parameters"])
    assert schema["components"]["securitySchemes"]["tokenAuth"]["name"] == "Authorization"
    operation_ids = [
        op["operationId"]
        for item in schema["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    ]
    assert len(operation_ids) == len(set(operation_ids))


def test_operation_summaries_read_as_english(client):
    """The docs' headings: "Delete an algorithm", never "Delete a algorithm"."""
    schema = json.loads(client.get("/api/schema/?format=json").content)
    summaries = {
        (path, method): op["summary"]
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "summary" in op
    }
    assert summaries[("/api/benchmarks/{slug}/algorithms/delete/", "post")] == (
        "Delete an algorithm"
    )
    assert summaries[("/api/benchmarks/{slug}/algorithms/rename/", "post")] == (
        "Rename an algorithm"
    )
    assert summaries[("/api/benchmarks/{slug}/datasets/rename/", "post")] == "Rename a dataset"
    wrong = {key: text for key, text in summaries.items() if re.search(r"\ba [aeiou]", text)}
    assert wrong == {}


def test_schema_as_yaml(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert set(schema["paths"]) == set(EXPECTED)


def test_docs_page_works_offline(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script" not in html and "cdn" not in html.lower()
    assert "/api/benchmarks/{slug}/submissions/upload/" in html
    assert 'href="/api/schema/"' in html


def test_section_docs_say_long_algorithm_lists_are_limited_by_the_url(client):
    schema = json.loads(client.get("/api/schema/?format=json").content)
    for path in (
        "/api/benchmarks/{slug}/snapshots/{version}/sections/{name}/",
        "/api/benchmarks/{slug}/snapshots/latest/sections/{name}/",
    ):
        description = schema["paths"][path]["get"]["description"]
        assert "8190 bytes" in description and "`?top=N`" in description


def _parameters(schema: dict, path: str, method: str = "get") -> dict[str, dict]:
    operation = schema["paths"][path][method]
    return {p["name"]: p["schema"] for p in operation["parameters"]}


def _request_body(schema: dict, path: str) -> dict:
    ref = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]


def test_the_schema_says_which_texts_the_api_takes(client):
    """Constraints Schemathesis (positive_data_acceptance) found missing: each is a rule
    the API enforces, so a value the schema allows is one the API takes."""
    schema = json.loads(client.get("/api/schema/?format=json").content)
    listing = _parameters(schema, "/api/benchmarks/")
    assert re.fullmatch(listing["q"]["pattern"], "forest 森林 a\u00a0b")
    assert not re.fullmatch(listing["q"]["pattern"], "a\x18b")
    section = _parameters(schema, "/api/benchmarks/{slug}/snapshots/{version}/sections/{name}/")
    assert section["algorithms"]["maxLength"] == 500  # 12 bytes each fit in the request line
    assert not re.fullmatch(section["algorithms"]["pattern"], " , ,")
    assert not re.fullmatch(section["metric"]["pattern"], "   ")
    assert section["slug"]["pattern"] == "^[-a-zA-Z0-9_]+$"
    for path in ("/api/benchmarks/{slug}/algorithms/", "/api/benchmarks/{slug}/snapshots/"):
        assert _parameters(schema, path)["limit"]["minimum"] == 1
    submission = _request_body(schema, "/api/benchmarks/{slug}/submissions/create/")
    assert submission["properties"]["scores"]["minItems"] == 1
    assert submission["properties"]["note"]["maxLength"] == 20_000
    assert re.fullmatch(submission["properties"]["note"]["pattern"], "line one\nline\ttwo")
    create = schema["paths"]["/api/benchmarks/create/"]["post"]["requestBody"]["content"]
    assert set(create) == {"application/json"}  # a form cannot carry the metrics
    metrics = _request_body(schema, "/api/benchmarks/create/")["properties"]["metrics"]
    assert (metrics["minItems"], metrics["maxItems"]) == (1, 50)
    assert _request_body(schema, "/api/benchmarks/{slug}/update/")["minProperties"] == 1


def test_the_text_pattern_is_the_name_rule_in_ascii():
    """The ASCII part of the rule (leaderboard.api.text_schema says why only that part)."""
    pattern = re.compile(text_pattern())
    names = [f"a{chr(code)}b" for code in range(128)]
    assert [
        n for n in names if bool(pattern.fullmatch(n)) != (control_character_problem(n) is None)
    ] == []
