"""OpenAPI generation: component names for nested serializers, and the token scheme."""

from __future__ import annotations

import re

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework import serializers

from common.rest import NameListField
from leaderboard.api.common import is_prose
from leaderboard.api.text_schema import text_pattern
from leaderboard.services import MAX_TEXT_LENGTH


class AutoSchema(SpectacularAutoSchema):
    def get_description(self) -> str:  # type: ignore[override]
        """Only what ``extend_schema(description=...)`` says.

        drf-spectacular falls back to the view's docstring, and docstrings are notes for
        developers (a base class's "Refuses a body over max_body_bytes()..." appeared on
        every GET), not documentation for the API's users.
        """
        return ""

    def get_examples(self) -> list:
        """A request and a response example per operation (leaderboard.api.examples)."""
        from leaderboard.api.examples import EXAMPLES

        return [*super().get_examples(), *EXAMPLES.get(self.get_operation_id(), [])]

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        """A text field's schema says what the services take: its characters (a pattern)
        and, for prose, its length."""
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if isinstance(field, serializers.ListSerializer) and schema.get("type") == "array":
            for key, name in (("minItems", "min_length"), ("maxItems", "max_length")):
                if (value := getattr(field, name, None)) is not None:
                    schema[key] = value
        if direction == "request" and isinstance(field, serializers.SlugField):
            schema["pattern"] = _SLUG["pattern"]  # its validators may be left out (a taken slug)
        elif (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and schema.get("type") == "string"
            and "enum" not in schema
            and "pattern" not in schema
        ):
            prose = is_prose(field)
            blank = field.allow_blank or not field.trim_whitespace
            separators = "," if isinstance(field, NameListField) else ""
            schema["pattern"] = text_pattern(prose=prose, blank=blank, separators=separators)
            if prose:
                schema.setdefault("maxLength", MAX_TEXT_LENGTH)
        return schema

    def _map_basic_serializer(self, serializer, direction):
        """``min_properties`` on an input serializer: how many fields a request must send.

        A component's description is its serializer's ``schema_description`` only: a
        docstring (its own or a base class's, such as StrictInput's) is for developers.
        """
        schema = super()._map_basic_serializer(serializer, direction)
        schema.pop("description", None)
        if text := getattr(serializer, "schema_description", ""):
            schema["description"] = text
        minimum = getattr(serializer, "min_properties", None)
        if direction == "request" and minimum:
            schema["minProperties"] = minimum
        return schema

    def get_serializer_name(self, serializer, direction) -> str:
        """``SubmissionCreateApi.InputSerializer`` -> ``SubmissionCreateInput``.

        Every view nests serializers called Input/Output; their qualified name keeps the
        components apart.
        """
        parts = type(serializer).__qualname__.split(".")
        if len(parts) == 1:
            return parts[0]
        return "".join(part.removesuffix("Api").removesuffix("Serializer") for part in parts)

    def get_operation_id(self) -> str:
        """``SubmissionCreateApi`` -> ``submission_create`` (``..._by_version`` for exports)."""
        name = type(self.view).__name__.removesuffix("Api")
        operation = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        if "{version}" in self.path and name.startswith("SnapshotExport"):
            operation += "_by_version"
        return operation


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "leaderboard.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A personal API token: `Authorization: Token <token>` "
            "(create one at POST /api/tokens/create/ while logged in).",
        }


_ERROR_REF = {"$ref": "#/components/schemas/Error"}
_RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "seconds to wait before retrying",
    }
}
# Answers any operation can give, whatever its view declares: they come from the
# authentication, throttling, body-limit and outage handling around every view.
_COMMON_RESPONSES = {
    "429": ("Too many requests (throttled); retry after Retry-After.", True),
    "503": (
        "The database is temporarily unavailable; retry after Retry-After (a write "
        "with the same Idempotency-Key is stored once).",
        True,
    ),
}
_WRITE_RESPONSES = {
    "400": "The input was refused; nothing was written (every problem is listed).",
    "401": "Not authenticated: send `Authorization: Token <token>` (or log in).",
    "403": "Authenticated, but not allowed to do this.",
    "413": "The request body is too large.",
    "415": "The body's Content-Type is not one this operation takes.",
}


def responses_complete(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: every status an operation can answer is
    documented, each with the one error body (leaderboard.api.errors).

    Writes (POST) and reads that need a login can answer 401 and 403; an operation with
    query parameters 400 (each parameter is checked); one with path parameters 404;
    any operation 429 and 503 (with Retry-After).
    """

    def error(description: str, retry_after: bool = False) -> dict:
        response: dict = {
            "description": description,
            "content": {"application/json": {"schema": _ERROR_REF}},
        }
        if retry_after:
            response["headers"] = _RETRY_AFTER
        return response

    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            parameters = operation.get("parameters", [])
            anonymous = {} in operation.get("security", [{}])
            wanted: dict[str, dict] = {}
            if method == "post":
                wanted.update({code: error(text) for code, text in _WRITE_RESPONSES.items()})
            elif not anonymous:
                wanted["401"] = error(_WRITE_RESPONSES["401"])
                wanted["403"] = error(_WRITE_RESPONSES["403"])
            if any(p.get("in") == "query" for p in parameters):
                wanted["400"] = error("A query parameter was refused (each problem is named).")
            if "{" in path:
                wanted["404"] = error("Not found, or not visible to you.")
            wanted.update({code: error(*args) for code, args in _COMMON_RESPONSES.items()})
            for code, response in wanted.items():
                if code not in responses:
                    responses[code] = response
                elif "headers" in response:
                    responses[code].setdefault("headers", {}).update(response["headers"])
    return result


# Django's slug path converter; the model's max_length (Benchmark.slug).
_SLUG = {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$", "maxLength": 80}


def parameters_complete(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: each parameter says what the API takes.

    A query text holds no control or invisible character (``QuerySerializer``) and, if
    it has a ``minLength``, not whitespace alone (DRF trims it); a benchmark's slug in a
    path is what the URL's slug converter matches.
    """
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if parameter["in"] == "path" and parameter["name"] == "slug":
                    parameter["schema"] = {**schema, **_SLUG}
                elif (
                    parameter["in"] == "query"
                    and schema.get("type") == "string"
                    and "enum" not in schema
                    and "pattern" not in schema
                ):
                    schema["pattern"] = text_pattern(blank=not schema.get("minLength"))
    return result
