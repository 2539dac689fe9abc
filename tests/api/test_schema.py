import json

import pytest
import yaml
from drf_spectacular.validation import validate_schema

pytestmark = pytest.mark.django_db

EXPECTED = {
    "/api/benchmarks/": {"get"},
    "/api/benchmarks/create/": {"post"},
    "/api/benchmarks/{slug}/": {"get"},
    "/api/benchmarks/{slug}/update/": {"post"},
    "/api/benchmarks/{slug}/metrics/": {"get"},
    "/api/benchmarks/{slug}/datasets/": {"get"},
    "/api/benchmarks/{slug}/algorithms/": {"get"},
    "/api/benchmarks/{slug}/datasets/rename/": {"post"},
    "/api/benchmarks/{slug}/datasets/delete/": {"post"},
    "/api/benchmarks/{slug}/algorithms/rename/": {"post"},
    "/api/benchmarks/{slug}/algorithms/delete/": {"post"},
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
