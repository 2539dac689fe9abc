"""OpenAPI generation: component names for nested serializers, and the token scheme."""

from __future__ import annotations

import re

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


class AutoSchema(SpectacularAutoSchema):
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
