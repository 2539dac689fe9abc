import hashlib
from unittest.mock import ANY

import pytest
from rest_framework.test import APIClient

from leaderboard.models import ApiToken, Submission
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def with_token(raw: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


def create_token(user, name="laptop") -> dict:
    response = client_for(user).post("/api/tokens/create/", {"name": name}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_create_shows_the_token_once_and_stores_only_its_hash(researcher):
    response = client_for(researcher).post("/api/tokens/create/", {"name": "laptop"}, format="json")
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    raw = body["token"]
    assert body == {
        "id": ANY,
        "name": "laptop",
        "prefix": raw[:12],
        "created_at": ANY,
        "last_used_at": None,
        "expires_at": None,
        "token": raw,
    }
    assert raw.startswith("pod_") and len(raw) > 40
    stored = ApiToken.objects.get()
    assert stored.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in {stored.key_hash, stored.prefix, stored.name}

    listing = client_for(researcher).get("/api/tokens/")
    assert listing.status_code == 200
    assert listing.json() == [
        {
            "id": stored.pk,
            "name": "laptop",
            "prefix": raw[:12],
            "created_at": ANY,
            "last_used_at": None,
            "expires_at": None,
        }
    ]


def test_a_token_authenticates_scripts_and_records_its_use(researcher, benchmark):
    raw = create_token(researcher)["token"]
    response = with_token(raw).post(
        "/api/benchmarks/toy/submissions/create/",
        {"algorithm": "a", "scores": [{"dataset": "d", "value": 1}]},
        format="json",
    )
    assert response.status_code == 201
    assert Submission.objects.get().submitter == researcher
    assert ApiToken.objects.get().last_used_at is not None
    assert with_token(raw).get("/api/tokens/").json()[0]["last_used_at"] is not None


def test_revoked_token_is_refused(researcher):
    created = create_token(researcher)
    api = with_token(created["token"])
    response = api.post(f"/api/tokens/{created['id']}/revoke/")
    assert response.status_code == 204
    assert ApiToken.objects.get().revoked_at is not None

    response = api.get("/api/tokens/")
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid or revoked token."}
    assert client_for(researcher).get("/api/tokens/").json() == []
    response = client_for(researcher).post(f"/api/tokens/{created['id']}/revoke/")
    assert response.status_code == 404


def test_unknown_or_malformed_tokens_are_401(researcher):
    token = create_token(researcher)["token"]
    for header in (f"Token {token}x", "Token", f"Token {token} extra", "Token pod_short"):
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=header)
        response = api.get("/api/benchmarks/")
        assert response.status_code == 401, header
        assert response["WWW-Authenticate"] == "Token"


def test_only_the_owner_revokes(researcher, stranger):
    created = create_token(researcher)
    response = client_for(stranger).post(f"/api/tokens/{created['id']}/revoke/")
    assert response.status_code == 404
    assert response.json() == {"detail": f"You have no active token {created['id']}."}
    assert ApiToken.objects.get().revoked_at is None


def test_tokens_are_created_from_a_session_not_with_a_token(client, researcher):
    raw = create_token(researcher)["token"]
    response = with_token(raw).post("/api/tokens/create/", {"name": "more"}, format="json")
    assert response.status_code == 403
    assert response.json() == {
        "detail": "Create API tokens from a logged-in web session, not with another token."
    }
    assert client.post("/api/tokens/create/", {"name": "x"}, format="json").status_code == 401
    assert client.get("/api/tokens/").status_code == 401
    assert ApiToken.objects.count() == 1


def test_a_token_needs_a_name(researcher):
    response = client_for(researcher).post("/api/tokens/create/", {"name": "  "}, format="json")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": None, "field": "name", "message": "This field may not be blank."}
    ]
    assert not ApiToken.objects.exists()
