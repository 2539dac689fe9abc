"""Pieces shared by the API views: body limits, 404s for what a user may not read."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.parsers import JSONParser
from rest_framework.views import APIView

from leaderboard.api.errors import PayloadTooLarge
from leaderboard.models import Benchmark, Metric, Submission
from leaderboard.selectors import (
    benchmark_get_visible,
    benchmark_metric_get,
    submission_get_visible,
)
from leaderboard.services import Problem, ValidationFailed, user_is_maintainer

IDEMPOTENCY_HEADER = "Idempotency-Key"
# Room for the "#<index>" the services append for a file's i-th algorithm (max_length 100).
IDEMPOTENCY_KEY_MAX = 80

idempotency_parameter = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="Retrying with the same key returns the submissions stored the first time "
    "(200 instead of 201) instead of storing them twice. At most 80 printable ASCII "
    "characters, without '#'.",
)
metric_parameter = OpenApiParameter(
    "metric",
    str,
    OpenApiParameter.QUERY,
    required=False,
    description="Metric name; the benchmark's primary metric when omitted.",
)


class ApiView(APIView):
    """Refuses a body over ``max_body_bytes()`` from its Content-Length, before reading it.

    DRF parses JSON straight from the request stream, so Django's
    DATA_UPLOAD_MAX_MEMORY_SIZE does not cover it; this does.
    """

    def max_body_bytes(self) -> int:
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    def initial(self, request, *args, **kwargs):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = self.max_body_bytes()
        if limit is not None and length > limit:
            raise PayloadTooLarge(too_large_message(length, limit))
        super().initial(request, *args, **kwargs)


def too_large_message(size: int, limit: int) -> str:
    return (
        f"The request is {size} bytes; the limit is {limit} bytes "
        f"({limit / 2**20:.1f} MiB). Split the results into smaller files."
    )


class NonFiniteJSONParser(JSONParser):
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
