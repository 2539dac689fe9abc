"""``?limit=&offset=`` pagination for list endpoints."""

from __future__ import annotations

from django.conf import settings
from rest_framework import pagination
from rest_framework.response import Response


class LimitOffsetPagination(pagination.LimitOffsetPagination):
    max_limit = 500

    @property
    def default_limit(self) -> int:  # type: ignore[override]
        return settings.REST_FRAMEWORK.get("PAGE_SIZE") or 50

    def get_paginated_response_schema(self, schema: dict) -> dict:
        """DRF's schema with the examples of a one-page answer.

        drf-spectacular wraps each list example (one item) in these examples; DRF's own
        say 123 items with links to api.example.org/accounts/.
        """
        paginated = super().get_paginated_response_schema(schema)
        properties = paginated["properties"]
        properties["count"]["example"] = 1
        properties["next"]["example"] = None
        properties["previous"]["example"] = None
        return paginated

    def get_schema_operation_parameters(self, view) -> list[dict]:
        """DRF's two parameters, with the bounds the views' PageQuerySerializer checks."""
        parameters = super().get_schema_operation_parameters(view)
        bounds = {self.limit_query_param: 1, self.offset_query_param: 0}
        for parameter in parameters:
            if parameter["name"] in bounds:
                parameter["schema"]["minimum"] = bounds[parameter["name"]]
        return parameters


def paginated_response(*, queryset, serializer_class, request, view, context=None) -> Response:
    paginator = LimitOffsetPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    data = serializer_class(page, many=True, context=context or {"request": request}).data
    return paginator.get_paginated_response(data)
