"""OpenAPI generation: component names for nested serializers, and the token scheme."""

from __future__ import annotations

import re

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


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
