"""Pieces shared by the API views: body limits, query parameters, 404s for what a user
may not read."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from django.conf import settings
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import MethodNotAllowed, NotFound, ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.utils import html
from rest_framework.views import APIView

from leaderboard.api.errors import PayloadTooLarge, UnsupportedContentEncoding
from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.models import Benchmark, Metric, Submission
from leaderboard.selectors import (
    benchmark_get_visible,
    benchmark_metric_get,
    submission_get_visible,
)
from leaderboard.services import Problem, ValidationFailed, text_problem, user_is_maintainer

IDEMPOTENCY_HEADER = "Idempotency-Key"
# Room for the "#<index>" the services append for a file's i-th algorithm (max_length 100).
IDEMPOTENCY_KEY_MAX = 80

idempotency_parameter = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    # Printable ASCII (space to tilde) but "#".
    {"type": "string", "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": '^[ -"$-~]*$'},
    OpenApiParameter.HEADER,
    required=False,
    description="Send one with every script's submission. Retrying with the same key "
    "(after a dropped connection, or a 503 with Retry-After) returns the submissions "
    "stored the first time (200 instead of 201) instead of storing them twice. At most "
    "80 printable ASCII characters, without '#'.",
)
metric_parameter = OpenApiParameter(
    "metric",
    {"type": "string", "minLength": 1, "maxLength": 100},
    OpenApiParameter.QUERY,
    required=False,
    description="Metric name; the benchmark's primary metric when omitted.",
)


# JSON types each kind of input field takes (subclasses first: a URLField is a CharField).
_JSON_TYPES: tuple[tuple[type[serializers.Field], tuple[type, ...], str], ...] = (
    (serializers.BooleanField, (bool,), "Must be a valid boolean (true or false)."),
    (serializers.IntegerField, (int,), "A valid integer is required."),
    (serializers.FloatField, (int, float), "A valid number is required."),
    (serializers.CharField, (str,), "Not a valid string."),
    (serializers.ChoiceField, (str,), "Not a valid string."),
    (serializers.ListSerializer, (list,), "Expected a list."),
    (serializers.Serializer, (dict,), "Expected an object."),
)


# Sent by a browser's form beside the fields (the browsable API's forms).
FORM_EXTRAS = frozenset({"csrfmiddlewaretoken"})


def unknown_field_problem(name: str, known: list[str]) -> str:
    """The refusal of a field the input does not take, with the closest known name."""
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
    close = close or [k for k in known if name in _FIELD_SYNONYMS.get(k, ())]
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown field: {hint}The fields are {', '.join(known)}."


# Names sent for a field that are not spelt like it (``"score"`` for ``value``).
_FIELD_SYNONYMS: dict[str, tuple[str, ...]] = {
    "value": ("score", "result", "val"),
    "dataset": ("data", "task"),
    "algorithm": ("model", "method", "name"),
}


class StrictInput:
    """Input serializers take each field in the type their schema documents, and no
    field they do not know (a misspelt optional field was dropped silently).

    DRF coerces: ``0`` passes as the string "0" or as false, ``"5"`` as an integer, and
    in a form an empty value reads as "not given". What the OpenAPI schema says is what
    is accepted instead (Schemathesis checks both ways): in JSON each value must have
    the documented type; in a form, where every value is text, a boolean is exactly
    ``true`` or ``false`` (in a query too) and a field that takes no blank may not be
    sent empty. A text field's ``max_length`` (the schema's maxLength) holds for the value as sent: DRF trims the
    whitespace around it first, so 200 characters and a space passed a limit of 200.
    """

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            errors = {}
            form = html.is_html_input(data)
            known = [n for n, f in self.fields.items() if not f.read_only]  # type: ignore[attr-defined]
            for name in data:
                if name not in self.fields and not (form and name in FORM_EXTRAS):  # type: ignore[attr-defined]
                    errors[str(name)[:50]] = [unknown_field_problem(str(name), known)]
            for name, field in self.fields.items():  # type: ignore[attr-defined]
                if field.read_only or name not in data:
                    continue
                if problem := _type_problem(field, data[name], form=form):
                    errors[name] = [problem]
            if errors:
                raise serializers.ValidationError(self._with_other_errors(data, errors))
        return super().to_internal_value(data)  # type: ignore[misc]

    def _with_other_errors(self, data, errors: dict) -> dict:
        """Type errors beside every other problem of the input, in field order."""
        fields = self.fields  # type: ignore[attr-defined]
        if hasattr(data, "copy") and hasattr(data, "pop"):
            rest = data.copy()
            for name in list(rest):
                if name in errors or name not in fields:
                    rest.pop(name, None)
        else:
            rest = {k: v for k, v in data.items() if k not in errors and k in fields}
        others: dict = {}
        try:
            super().to_internal_value(rest)  # type: ignore[misc]
        except serializers.ValidationError as exc:
            if isinstance(exc.detail, dict):
                others = dict(exc.detail)
        merged = {
            name: errors.get(name, others.get(name))
            for name in self.fields  # type: ignore[attr-defined]
            if name in errors or name in others
        }
        merged.update({k: v for k, v in others.items() if k not in merged})
        merged.update({k: v for k, v in errors.items() if k not in merged})
        return merged


def _length_problem(field: serializers.Field, value) -> str | None:
    """A text longer than the field's ``max_length`` as sent, before DRF trims it."""
    limit = getattr(field, "max_length", None)
    if isinstance(field, serializers.CharField) and isinstance(value, str) and limit is not None:
        if len(value) > limit:
            return f"Ensure this field has no more than {limit} characters."
    return None


BOOLEAN_TEXTS = ("true", "false")


def _boolean_text_problem(field: serializers.Field, value) -> str | None:
    """A boolean sent as text (form, multipart, query) is exactly ``true`` or ``false``,
    as the schema documents; DRF alone also takes True, TRUE, yes, on, 1..."""
    if isinstance(field, serializers.BooleanField) and value not in BOOLEAN_TEXTS:
        return f"Must be a valid boolean: true or false, in lower case (got {str(value)[:20]!r})."
    return None


# Texts that may span lines (leaderboard.services.text_problem with prose=True); every
# other text field is one line, without control or invisible characters.
PROSE_FIELDS = frozenset({"description", "citation", "note"})


def is_prose(field: serializers.Field) -> bool:
    return field.field_name in PROSE_FIELDS


def _text_problem(field: serializers.Field, value) -> str | None:
    """The services' rule on texts, for what DRF trims before they see it: a one-line
    name ending in a newline or a tab was stored. (The services name the field of any
    other control character themselves.)"""
    if not (isinstance(field, serializers.CharField) and isinstance(value, str)):
        return None
    trimmed = value.strip() if field.trim_whitespace else value
    if trimmed == value:
        return None
    prose = is_prose(field)
    problem = text_problem(value, prose=prose)
    return problem if problem and not text_problem(trimmed, prose=prose) else None


def _type_problem(field: serializers.Field, value, *, form: bool) -> str | None:
    if value is None:
        return None  # the field's own allow_null decides
    if problem := _length_problem(field, value) or _text_problem(field, value):
        return problem
    if form:
        if value == "" and not getattr(field, "allow_blank", False):
            return "may not be empty: give a value, or leave the field out"
        return _boolean_text_problem(field, value)
    for kind, types, message in _JSON_TYPES:
        if isinstance(field, kind):
            if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
                return None
            return message
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
                wrong := _length_problem(self.fields[name], values[0])
                or _boolean_text_problem(self.fields[name], values[0])
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


class NonFiniteJSONParser(BoundedJSONParser):
    """Reads NaN and Infinity as numbers, so that the services name the score at fault."""

    strict = False


@extend_schema_field(OpenApiTypes.NUMBER)
class ScoreValueField(serializers.Field):
    """Passes the value to the services unchanged: they decide what a valid score is."""

    default_error_messages = {"invalid": "A number is required, got a boolean."}

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


def benchmark_or_404(*, slug: str, user, counts: bool = True) -> Benchmark:
    try:
        return benchmark_get_visible(slug=slug, user=user, counts=counts)
    except Benchmark.DoesNotExist:
        raise NotFound(f"No benchmark {slug!r}.") from None


def submission_or_404(*, benchmark: Benchmark, user, submission_id: int) -> Submission:
    try:
        return submission_get_visible(
            benchmark=benchmark,
            user=user,
            is_maintainer=user_is_maintainer(user=user, benchmark=benchmark),
            submission_id=submission_id,
        )
    except Submission.DoesNotExist:
        raise NotFound(f"No submission {submission_id} in {benchmark.slug!r}.") from None


def metric_or_404(*, benchmark: Benchmark, name: str | None) -> Metric:
    metric = benchmark_metric_get(benchmark=benchmark, name=name)
    if metric is None:
        raise NotFound(
            f"No metric {name!r} in {benchmark.slug!r}." if name else "The benchmark has no metric."
        )
    return metric


def snapshot_not_found(metric: Metric, version: int | None = None) -> NotFound:
    if version is None:
        return NotFound(f"No results have been computed yet for metric {metric.name!r}.")
    return NotFound(f"No version {version} of the results for metric {metric.name!r}.")


def idempotency_key_from(request) -> str:
    key = request.headers.get(IDEMPOTENCY_HEADER, "").strip()
    # "#" is the services' separator for a file's i-th algorithm ("key#1"); a key holding
    # it could replay another upload's part.
    if len(key) > IDEMPOTENCY_KEY_MAX or "#" in key or not (key.isascii() and key.isprintable()):
        raise ValidationFailed(
            [
                Problem(
                    f"at most {IDEMPOTENCY_KEY_MAX} printable ASCII characters, without '#'",
                    IDEMPOTENCY_HEADER,
                )
            ]
        )
    return key
