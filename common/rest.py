"""REST plumbing every app's API uses: the base view (body limits, the query checked),
query parameters, the error bodies' serializers. Shared plumbing: imports nothing of the
project."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, serializers, status
from rest_framework.exceptions import MethodNotAllowed, ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.views import APIView

from common.text import control_character_problem

metric_parameter = OpenApiParameter(
    "metric",
    {"type": "string", "minLength": 1, "maxLength": 100},
    OpenApiParameter.QUERY,
    required=False,
    description="Metric name; the benchmark's primary metric when omitted.",
)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


class UnsupportedContentEncoding(exceptions.APIException):
    """A compressed request body: refused before reading, since a few kilobytes of gzip
    can inflate to gigabytes that no size limit on the wire would see."""

    status_code = status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    default_detail = "Compressed request bodies are not accepted."
    default_code = "unsupported_content_encoding"


def length_problem(field: serializers.Field, value) -> str | None:
    """A text longer than the field's ``max_length`` as sent, before DRF trims it."""
    limit = getattr(field, "max_length", None)
    if isinstance(field, serializers.CharField) and isinstance(value, str) and limit is not None:
        if len(value) > limit:
            return f"Ensure this field has no more than {limit} characters."
    return None


BOOLEAN_TEXTS = ("true", "false")


def boolean_text_problem(field: serializers.Field, value) -> str | None:
    """A boolean sent as text (form, multipart, query) is exactly ``true`` or ``false``,
    as the schema documents; DRF alone also takes True, TRUE, yes, on, 1..."""
    if isinstance(field, serializers.BooleanField) and value not in BOOLEAN_TEXTS:
        return f"Must be a valid boolean: true or false, in lower case (got {str(value)[:20]!r})."
    return None


class QuerySerializer(serializers.Serializer):
    """The base of every view's query parameters (``ApiView.query_serializer_class``).

    Whatever the view declares, no parameter may be given twice or hold a control
    character (a NUL reached PostgreSQL as a 500 before); a declared parameter may not
    be empty (``?status=`` used to mean "no filter", silently) nor longer than its
    ``max_length`` as sent (before DRF trims its whitespace). Each refusal names the
    parameter. Parameters a view does not declare are otherwise ignored.
    """

    def to_internal_value(self, data):
        errors: dict[str, list[str]] = {}
        flat: dict[str, str] = {}
        for name in data:
            values = data.getlist(name) if hasattr(data, "getlist") else [data[name]]
            label = name[:50]
            problem = control_character_problem(name) or next(
                filter(None, (control_character_problem(v) for v in values)), None
            )
            if problem:
                errors.setdefault(label, []).append(
                    problem.replace("names may not hold", "parameters may not hold")
                )
            elif len(values) > 1:
                errors.setdefault(label, []).append(f"given {len(values)} times; give it once")
            elif name in self.fields and values[0] == "" and not _allows_blank(self.fields[name]):
                errors.setdefault(label, []).append(
                    "is empty: give a value, or leave the parameter out"
                )
            elif name in self.fields and (
                wrong := length_problem(self.fields[name], values[0])
                or boolean_text_problem(self.fields[name], values[0])
            ):
                errors.setdefault(label, []).append(wrong)
            else:
                flat[name] = values[0]
        if errors:
            raise serializers.ValidationError(errors)
        return super().to_internal_value(flat)


def _allows_blank(field: serializers.Field) -> bool:
    return bool(getattr(field, "allow_blank", False))


class NameListField(serializers.CharField):
    """Comma-separated names (``?algorithms=a,b``): at least one besides commas and spaces."""


class PageQuerySerializer(QuerySerializer):
    """``?limit=&offset=`` of a paginated list (LimitOffsetPagination), checked."""

    limit = serializers.IntegerField(required=False, min_value=1)
    offset = serializers.IntegerField(required=False, min_value=0)


class MetricQuerySerializer(QuerySerializer):
    metric = serializers.CharField(
        required=False,
        min_length=1,
        max_length=100,
        help_text="Metric name; the benchmark's primary metric when omitted.",
    )


class BoundedJSONParser(JSONParser):
    """JSON nested deeper than Python's recursion allows (``[[[[...`` a megabyte deep)
    is a 400 that says so; DRF catches only ``ValueError`` and answered 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply") from None


class ApiView(APIView):
    """Checks the query (``query_serializer_class``; the result is ``self.query``) and
    refuses a body over ``max_body_bytes()`` from its Content-Length, before reading it.

    DRF parses JSON straight from the request stream, so Django's
    DATA_UPLOAD_MAX_MEMORY_SIZE does not cover it; this does.
    """

    query_serializer_class: type[QuerySerializer] | None = None
    query: dict = {}
    parser_classes = [BoundedJSONParser, FormParser, MultiPartParser]
    # (what, URL name) of the endpoints that create a collection's items, named when
    # the collection is sent a POST.
    create_endpoints: tuple[tuple[str, str], ...] = ()

    def not_allowed_message(self, request) -> str | None:
        """A POST to a collection names the endpoints that create (``create_endpoints``)."""
        if request.method != "POST" or not self.create_endpoints:
            return None
        ways = "; ".join(
            f"to create {what}, POST to {reverse(name, kwargs=self.kwargs)}"
            for what, name in self.create_endpoints
        )
        return f'Method "POST" not allowed here: {ways}.'

    def get_query_serializer_class(self) -> type[QuerySerializer]:
        if self.query_serializer_class is not None:
            return self.query_serializer_class
        paginated = getattr(self, "pagination_class", None) is not None
        return PageQuerySerializer if paginated else QuerySerializer

    def max_body_bytes(self) -> int:
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    def too_large_message(self, size: int, limit: int) -> str:
        return too_large_message(size, limit)

    def initial(self, request, *args, **kwargs):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = self.max_body_bytes()
        if limit is not None and length > limit:
            raise PayloadTooLarge(self.too_large_message(length, limit))
        encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
        if encoding not in ("", "identity"):
            raise UnsupportedContentEncoding(
                f"Content-Encoding {encoding[:40]!r} is not accepted: send the body "
                "uncompressed (it is bounded by its size on the wire)."
            )
        super().initial(request, *args, **kwargs)
        method = request.method.lower()
        if method not in self.http_method_names or not hasattr(self, method):
            # 405 before the query is checked: a TRACE with a bad query is no 400.
            raise MethodNotAllowed(request.method, detail=self.not_allowed_message(request))
        query = self.get_query_serializer_class()(data=request.query_params)
        query.is_valid(raise_exception=True)
        self.query = dict(query.validated_data)


def too_large_message(size: int, limit: int) -> str:
    return (
        f"The request is {size} bytes; the limit is {limit} bytes "
        f"({limit / 2**20:.1f} MiB). Split the results into smaller files."
    )


class ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(
        allow_null=True,
        help_text="the line of the file, counted from 1 (the header is line 1); null for "
        "a JSON body",
    )
    field = serializers.CharField(
        allow_null=True,
        help_text="the CSV column, or the field of the JSON body; a position in a list "
        "counts from 1 (scores[1] is the first score, as in a message's 'scores[1]: ')",
    )
    message = serializers.CharField(help_text="what is wrong and how to put it right")


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = ProblemSerializer(many=True, required=False)
    problems_total = serializers.IntegerField(required=False)


class GoneSerializer(serializers.Serializer):
    detail = serializers.CharField(
        help_text="e.g. Version 4 of this benchmark's results was removed (older uncited "
        "versions are pruned); the latest is version 6."
    )
    latest_version = serializers.IntegerField(
        allow_null=True, help_text="the latest ready version, or null when there is none"
    )
    latest = serializers.URLField(
        allow_null=True, help_text="the same request for the latest version, or null"
    )
