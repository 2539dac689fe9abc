"""Computed results: the latest snapshot's board, a version, its sections, the history,
exports, and the JSON Schema of the snapshot contract (docs/snapshot-contract.md)."""

from __future__ import annotations

import hashlib
import json
import logging

from django.http import HttpResponse
from django.utils import timezone
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from common.pagination import LimitOffsetPagination, paginated_response
from common.rest import (
    ApiView,
    ErrorSerializer,
    GoneSerializer,
    MetricQuerySerializer,
    NameListField,
    PageQuerySerializer,
    QuerySerializer,
    metric_parameter,
)
from estimation.activity import recompute_activity
from estimation.api.bodies import (
    encoded_response,
    json_body_cached,
    not_modified_response,
    with_validators,
)
from estimation.api.export import estimator_column_keys, rows_as_csv, snapshot_rows
from estimation.api.latest import (
    LatestAnswer,
    latest_respond,
    latest_shared_response,
    shared_generation,
)
from estimation.api.serializers import (
    ALGORITHMS_MAX_LENGTH,
    FAILURE_HELP,
    GONE_HELP,
    LONG_LIST_HELP,
    BoardField,
    RecomputeActivitySerializer,
    RecomputeFailureSerializer,
    SnapshotSerializer,
    SnapshotSummarySerializer,
)
from estimation.core.contract import (
    SECTION_NAMES,
    UnknownAlgorithmsError,
    choose_algorithms,
    contract_markdown,
    json_schema,
    restrict,
    section_to_json,
)
from estimation.models import ResultSnapshot
from estimation.selectors import (
    SnapshotPruned,
    failure_reason,
    snapshot_board,
    snapshot_computing,
    snapshot_failure,
    snapshot_get,
    snapshot_history,
    snapshot_is_servable,
    snapshot_latest,
    snapshot_section,
    snapshot_section_etag,
    snapshot_section_stored,
    snapshot_status,
    snapshots_etag,
)
from estimation.services import snapshot_cite
from leaderboard.lookups import benchmark_or_404, metric_or_404
from leaderboard.models import Benchmark, Metric
from leaderboard.services import Problem, ValidationFailed, user_is_maintainer

MAX_TOP = 100_000
logger = logging.getLogger(__name__)


def snapshot_not_found(metric: Metric, version: int | None = None) -> NotFound:
    if version is None:
        return NotFound(f"No results have been computed yet for metric {metric.name!r}.")
    return NotFound(f"No version {version} of the results for metric {metric.name!r}.")


def combined_etag(etag: str, *parts: object) -> str:
    """A strong tag of ``etag`` and more of the answer's contents."""
    digest = hashlib.sha256("\x1f".join(map(str, (etag, *parts))).encode()).hexdigest()
    return f'"{digest[:32]}"'


def _cited(snapshot: ResultSnapshot) -> ResultSnapshot:
    """Retention keeps a version whose export or version URL anyone has asked for."""
    if snapshot.cited_at is None and snapshot.status == ResultSnapshot.Status.READY:
        snapshot_cite(
            benchmark_id=snapshot.benchmark_id,
            metric_id=snapshot.metric_id,
            version=snapshot.version,
        )
    return snapshot


def _snapshot(request: Request, slug: str, version: int | None) -> ResultSnapshot:
    """The latest ready snapshot (``version`` None) or the given version, of ``?metric=``."""
    benchmark = benchmark_or_404(slug=slug, user=request.user, counts=False)
    metric = metric_or_404(benchmark=benchmark, name=request.query_params.get("metric"))
    if version is None:
        snapshot = snapshot_latest(benchmark=benchmark, metric=metric)
        if snapshot is None:
            raise snapshot_not_found(metric)
        return snapshot
    try:
        return snapshot_get(
            benchmark=benchmark,
            metric=metric,
            version=version,
            include_failed=user_is_maintainer(user=request.user, benchmark=benchmark),
        )
    except SnapshotPruned:
        raise  # 410 Gone, with the latest version (leaderboard.api.errors)
    except ResultSnapshot.DoesNotExist:
        raise snapshot_not_found(metric, version) from None


class _MetricPageQuerySerializer(MetricQuerySerializer, PageQuerySerializer):
    pass


class SnapshotHistoryApi(ApiView):
    pagination_class = LimitOffsetPagination
    query_serializer_class = _MetricPageQuerySerializer

    @extend_schema(
        summary="Every version of a benchmark's results",
        description="Newest first, without sections; a computing version shows its stage "
        "and progress (0..1). Failed versions (with their error) are listed to the "
        "benchmark's maintainers only.",
        parameters=[metric_parameter],
        responses={200: SnapshotSummarySerializer(many=True), 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user, counts=False)
        metric = metric_or_404(benchmark=benchmark, name=request.query_params.get("metric"))
        return paginated_response(
            queryset=snapshot_history(
                benchmark=benchmark,
                metric=metric,
                include_failed=user_is_maintainer(user=request.user, benchmark=benchmark),
            ),
            serializer_class=SnapshotSummarySerializer,
            request=request,
            view=self,
        )


class SnapshotLatestApi(ApiView):
    query_serializer_class = MetricQuerySerializer

    class OutputSerializer(SnapshotSerializer):
        computing = serializers.SerializerMethodField(
            help_text="a newer version being computed, or null"
        )
        failure = serializers.SerializerMethodField(help_text=FAILURE_HELP)

        class Meta(SnapshotSerializer.Meta):
            fields = [*SnapshotSerializer.Meta.fields, "computing", "failure"]

        @extend_schema_field(RecomputeFailureSerializer(allow_null=True))
        def get_failure(self, snapshot) -> dict | None:
            failure = self.context.get("failure")
            return None if failure is None else RecomputeFailureSerializer(failure).data

        @extend_schema_field(SnapshotSummarySerializer(allow_null=True))
        def get_computing(self, snapshot) -> dict | None:
            # Decided once, by the view: the body must say what its ETag says.
            newer = self.context.get("computing")
            return None if newer is None else SnapshotSummarySerializer(newer).data

    @extend_schema(
        summary="The results being served: the board",
        description="The latest ready snapshot of a metric with its board (everything the "
        "leaderboard shows) and links to its other sections; `computing` tells whether a "
        "newer one is on its way, `failure` whether the newest input failed (then these "
        "results are older, and it says which submissions they still include that are no "
        "longer accepted and which they lack). Fields: docs/snapshot-contract.md, schema: "
        "/api/contract/snapshot.schema.json.",
        parameters=[metric_parameter],
        responses={200: OutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        fast = latest_shared_response(request, slug=slug)
        if fast is not None:
            return fast
        shared = shared_generation(request, slug=slug)  # read before the database
        benchmark = benchmark_or_404(slug=slug, user=request.user, counts=False)
        if benchmark.visibility != Benchmark.Visibility.PUBLIC:
            shared = None  # an unlisted one is read by its link: never shared
        metric = metric_or_404(benchmark=benchmark, name=request.query_params.get("metric"))
        status = snapshot_status(benchmark=benchmark, metric=metric)
        if status.ready is None:
            raise snapshot_not_found(metric)
        computing = snapshot_computing(
            benchmark=benchmark, metric=metric, shown_version=status.ready.version
        )
        failure = snapshot_failure(benchmark=benchmark, status=status)
        etag = snapshots_etag(status.ready, computing, status.newest if failure else None)

        def data():
            snapshot = _snapshot(request, slug, None)
            context = {"request": request, "failure": failure, "computing": computing}
            return self.OutputSerializer(snapshot, context=context).data

        answer = LatestAnswer(
            etag=etag,
            last_modified=status.ready.finished_at or status.ready.created_at,
            # While a newer version computes, its progress is in the body: built anew.
            cacheable=computing is None
            and getattr(request.accepted_renderer, "format", None) == "json",
            # The host: the body holds absolute URLs of the sections.
            body_key=f"api-latest:{request.get_host()}:{benchmark.pk}:{metric.pk}:{etag}",
            data=data,
        )
        return latest_respond(request, answer=answer, shared=shared)


class SnapshotStatusApi(ApiView):
    query_serializer_class = MetricQuerySerializer

    class OutputSerializer(serializers.Serializer):
        version = serializers.IntegerField(
            allow_null=True, help_text="the version being served (latest ready), or null"
        )
        finished_at = serializers.DateTimeField(allow_null=True)
        newest = SnapshotSummarySerializer(
            allow_null=True,
            help_text="the newest version, whatever its status: computing (stage and "
            "progress 0..1), failed (error: the raw error for the benchmark's maintainers, "
            "the plain reason for others) or the ready one",
        )
        failure = RecomputeFailureSerializer(allow_null=True, help_text=FAILURE_HELP)
        recompute = RecomputeActivitySerializer(
            help_text="whether a worker runs the recompute, and how long the oldest "
            "change not in the results served has waited"
        )

    @extend_schema(
        summary="Is there anything new? (for polling)",
        description="A few hundred bytes: the version being served and the newest "
        "version's status and progress (and `failure`, as in the latest snapshot), and "
        "`recompute`: whether a worker runs it (`computing` only then; `stalled` when "
        "nothing does) and the age of the oldest change the results lack. Poll it with "
        "`If-None-Match` (the `ETag` of the previous answer): 304 while nothing changed; "
        "fetch the results when `version` moves.",
        parameters=[metric_parameter],
        responses={200: OutputSerializer, 304: None, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        benchmark = benchmark_or_404(slug=slug, user=request.user, counts=False)
        metric = metric_or_404(benchmark=benchmark, name=request.query_params.get("metric"))
        status = snapshot_status(benchmark=benchmark, metric=metric)
        now = timezone.now()
        activity = recompute_activity(benchmark_id=benchmark.pk, now=now)
        unserved = activity.unserved_seconds(now)
        recompute = {
            "state": activity.state,
            "reason": activity.reason,
            "unserved_since": activity.unserved_since,
            "unserved_seconds": None if unserved is None else int(unserved),
        }
        # The tag moves with the activity (its state, and when the oldest unserved change
        # arrived), not with the clock: a wait's age follows from unserved_since, so two
        # polls of an unchanged state match however far apart they are.
        etag = combined_etag(
            status.etag, recompute["state"], recompute["reason"], recompute["unserved_since"]
        )
        not_modified = not_modified_response(request, etag, None)
        if not_modified is not None:
            return not_modified
        body = {
            "version": status.ready.version if status.ready else None,
            "finished_at": status.ready.finished_at if status.ready else None,
            "newest": status.newest,
            "failure": snapshot_failure(benchmark=benchmark, status=status),
            "recompute": recompute,
        }
        data = self.OutputSerializer(body).data
        newest = data["newest"]
        if (
            newest is not None
            and status.newest is not None
            and newest["status"] == ResultSnapshot.Status.FAILED
            and not user_is_maintainer(user=request.user, benchmark=benchmark)
        ):
            # A failed version's error is for maintainers (it may name internals);
            # others get the plain reason.
            newest["error"] = failure_reason(status.newest)
        return with_validators(Response(data), etag, None)


class SnapshotVersionApi(ApiView):
    query_serializer_class = MetricQuerySerializer

    @extend_schema(
        summary="One version of the results",
        description="A computing one has no board yet but a stage and progress; a failed "
        "one (maintainers only: 404 for others) has an error. " + GONE_HELP,
        parameters=[metric_parameter],
        responses={200: SnapshotSerializer, 404: ErrorSerializer, 410: GoneSerializer},
    )
    def get(self, request: Request, slug: str, version: int) -> Response:
        snapshot = _cited(_snapshot(request, slug, version))
        return Response(SnapshotSerializer(snapshot, context={"request": request}).data)


class SectionQuerySerializer(QuerySerializer):
    algorithms = NameListField(
        required=False,
        min_length=1,
        max_length=ALGORITHMS_MAX_LENGTH,
        help_text="comma-separated algorithm names: the section for these only (the URL's "
        "length limits the list: for many algorithms use top)",
    )
    top = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_TOP,
        help_text="the section for the N most probable winners (recommended estimator); "
        "with algorithms, for those and these together",
    )


SECTION_PARAMETERS: list[OpenApiParameter | type[serializers.Serializer]] = [
    metric_parameter,
    SectionQuerySerializer,
    OpenApiParameter("name", str, OpenApiParameter.PATH, enum=list(SECTION_NAMES)),
]
SECTION_RESPONSES = {
    200: OpenApiResponse(OpenApiTypes.OBJECT),
    304: OpenApiResponse(description="unchanged (If-None-Match)"),
    400: ErrorSerializer,
    404: ErrorSerializer,
}
VERSION_SECTION_RESPONSES = {**SECTION_RESPONSES, 410: GoneSerializer}


class _SectionMetricQuerySerializer(SectionQuerySerializer, MetricQuerySerializer):
    pass


class SnapshotSectionApi(ApiView):
    renderer_classes = [JSONRenderer]
    query_serializer_class = _SectionMetricQuerySerializer

    @extend_schema(
        operation_id="snapshot_section",
        summary="One section of a version of the results",
        description="A section of the snapshot contract (docs/snapshot-contract.md): "
        f"one of {', '.join(SECTION_NAMES)}. Whole, it is served as stored, with an "
        "ETag; `?algorithms=a,b,c` or `?top=N` give it for those algorithms only (the board "
        "and the advisor, O(m), always come whole). "
        'A section that does not apply is `{"not_applicable": reason}`. '
        f"{LONG_LIST_HELP} {GONE_HELP}",
        parameters=SECTION_PARAMETERS,
        responses=VERSION_SECTION_RESPONSES,
    )
    def get(self, request: Request, slug: str, name: str, version: int | None = None):
        snapshot = _snapshot(request, slug, version)
        if name not in SECTION_NAMES:
            raise ValidationFailed(
                [Problem(f"one of {', '.join(SECTION_NAMES)}; got {name[:50]!r}", "name")]
            )
        if not snapshot_is_servable(snapshot):
            raise snapshot_not_found(snapshot.metric, snapshot.version)
        chosen = {k: v for k, v in self.query.items() if k in ("algorithms", "top")}
        if not chosen:
            return _stored_section(request, snapshot, name)
        board = snapshot_board(snapshot=snapshot)
        section = snapshot_section(snapshot_id=snapshot.pk, name=name)
        if board is None or section is None:
            raise snapshot_not_found(snapshot.metric, snapshot.version)
        try:
            # Both: the named algorithms and the top N together (the schema cannot say
            # that two optional parameters exclude each other, so they do not).
            named = (
                choose_algorithms(board.algorithms, names=_names(chosen["algorithms"]))
                if "algorithms" in chosen
                else []
            )
            top = (
                choose_algorithms(board.algorithms, top=board.top(chosen["top"]))
                if "top" in chosen
                else []
            )
            keep = sorted({*named, *top})
        except UnknownAlgorithmsError as exc:
            # Like an unknown metric: what was asked for is not there (404), the query
            # itself is well formed.
            raise NotFound(f"Algorithms {str(exc).partition(': ')[2]}.") from None
        except ValueError as exc:
            field, _, message = str(exc).partition(": ")
            raise ValidationFailed([Problem(message, field)]) from None
        if name in ("board", "advisor"):
            body = section_to_json(name, section)  # O(m), about every algorithm: whole
        else:
            body = section_to_json(name, restrict(section, keep))
        return HttpResponse(
            json.dumps(body, separators=(",", ":"), allow_nan=False),
            content_type="application/json",
        )


class SnapshotLatestSectionApi(SnapshotSectionApi):
    """The same, of the latest ready version."""

    @extend_schema(
        operation_id="snapshot_latest_section",
        summary="One section of the results being served",
        description="As for one version's section, of the latest ready snapshot. " + LONG_LIST_HELP,
        parameters=SECTION_PARAMETERS,
        responses=SECTION_RESPONSES,
    )
    def get(self, request: Request, slug: str, name: str, version: int | None = None):
        return super().get(request, slug, name, None)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _stored_section(request: Request, snapshot: ResultSnapshot, name: str) -> HttpResponse:
    """The section as stored; 304 from its etag alone; gzip-ed once (cached by etag)."""
    digest = snapshot_section_etag(snapshot_id=snapshot.pk, name=name)
    if digest is None and name == "advisor":
        raise NotFound(
            f"The advisor of version {snapshot.version} is still being computed (it is "
            "stored after the other sections); ask again in a moment."
        )
    if digest is None:
        raise snapshot_not_found(snapshot.metric, snapshot.version)
    etag = f'"{digest}"'
    last_modified = snapshot.finished_at or snapshot.created_at
    not_modified = not_modified_response(request, etag, last_modified)
    if not_modified is not None:
        return not_modified

    def stored_body() -> bytes:
        stored = snapshot_section_stored(snapshot_id=snapshot.pk, name=name)
        if stored is None:  # deleted in between
            raise snapshot_not_found(snapshot.metric, snapshot.version)
        return stored.body.encode()

    body = json_body_cached(f"api-section:{digest}", stored_body)
    return with_validators(encoded_response(request, body), etag, last_modified)


class SnapshotSchemaApi(ApiView):
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]

    @extend_schema(
        summary="JSON Schema of the snapshot contract",
        description="The JSON Schema (2020-12) of a whole payload (`analyze --json`); each "
        "section is `#/$defs/sections/<name>`. Field meanings, units and when a field is "
        "null: docs/snapshot-contract.md.",
        responses={(200, "application/schema+json"): OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request: Request) -> HttpResponse:
        return HttpResponse(
            json.dumps(json_schema(), indent=2), content_type="application/schema+json"
        )


def _ready_board(snapshot: ResultSnapshot, version: int | None):
    board = snapshot_board(snapshot=snapshot)
    if board is None:
        raise snapshot_not_found(snapshot.metric, version)
    return board


def _filename(snapshot: ResultSnapshot, extension: str) -> str:
    name = f"{snapshot.benchmark.slug}-{slugify(snapshot.metric.name) or 'metric'}"
    return f"{name}-v{snapshot.version}.{extension}"


class SnapshotExportCsvApi(ApiView):
    query_serializer_class = MetricQuerySerializer

    @extend_schema(
        summary="Results as CSV",
        description="One row per algorithm in the board's order, one column per "
        "per-algorithm value of the board (e.g. `mean_rank`, `mle` for the win rate); "
        "`position_by` names the estimator the positions follow. Each estimator's columns "
        "(its point, `_low`, `_high`, `_interval`, `_p_best`) are keyed by its API key: "
        + estimator_column_keys()
        + ". Without a version: the latest ready one. "
        + GONE_HELP,
        parameters=[metric_parameter],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            404: ErrorSerializer,
            410: GoneSerializer,
        },
    )
    def get(self, request: Request, slug: str, version: int | None = None) -> HttpResponse:
        snapshot = _cited(_snapshot(request, slug, version))
        columns, rows = snapshot_rows(_ready_board(snapshot, version))
        response = HttpResponse(rows_as_csv(columns, rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{_filename(snapshot, "csv")}"'
        return response


class SnapshotExportJsonApi(ApiView):
    renderer_classes = [JSONRenderer]  # a download, also from a browser
    query_serializer_class = MetricQuerySerializer

    class OutputSerializer(serializers.Serializer):
        benchmark = serializers.CharField()
        metric = serializers.CharField()
        version = serializers.IntegerField()
        fingerprint = serializers.CharField()
        engine_version = serializers.CharField()
        finished_at = serializers.DateTimeField()
        columns = serializers.ListField(child=serializers.CharField())
        rows = serializers.ListField(child=serializers.DictField())
        board = BoardField()

    @extend_schema(
        summary="Results as JSON",
        description="The same rows as the CSV export, with the snapshot's identity and "
        "its board section (the other sections: the version's `sections` links). " + GONE_HELP,
        parameters=[metric_parameter],
        responses={200: OutputSerializer, 404: ErrorSerializer, 410: GoneSerializer},
    )
    def get(self, request: Request, slug: str, version: int | None = None) -> Response:
        snapshot = _cited(_snapshot(request, slug, version))
        board = _ready_board(snapshot, version)
        columns, rows = snapshot_rows(board)
        body = {
            "benchmark": snapshot.benchmark.slug,
            "metric": snapshot.metric.name,
            "version": snapshot.version,
            "fingerprint": snapshot.fingerprint,
            "engine_version": snapshot.engine_version,
            "finished_at": snapshot.finished_at,
            "columns": columns,
            "rows": rows,
            "board": section_to_json("board", board),
        }
        response = Response(self.OutputSerializer(body).data)
        response["Content-Disposition"] = f'attachment; filename="{_filename(snapshot, "json")}"'
        return response


class SnapshotContractApi(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The snapshot contract, field by field",
        description="What each field of each section means, its units, and when it is "
        "null (Markdown; generated from the contract's dataclasses, as the JSON Schema).",
        responses={(200, "text/markdown"): OpenApiResponse(OpenApiTypes.STR)},
    )
    def get(self, request: Request) -> HttpResponse:
        return HttpResponse(contract_markdown(), content_type="text/markdown; charset=utf-8")
