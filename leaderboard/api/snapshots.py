"""Computed results: the latest snapshot, a version, the history, and exports."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from estimation.models import ResultSnapshot
from estimation.selectors import snapshot_computing, snapshot_get, snapshot_history, snapshot_latest
from leaderboard.api.common import (
    ApiView,
    benchmark_or_404,
    metric_or_404,
    metric_parameter,
    snapshot_not_found,
)
from leaderboard.api.errors import ErrorSerializer
from leaderboard.api.export import rows_as_csv, snapshot_rows
from leaderboard.api.pagination import LimitOffsetPagination, paginated_response


class SnapshotSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = ResultSnapshot
        fields = [
            "version",
            "status",
            "stage",
            "progress",
            "error",
            "fingerprint",
            "engine_version",
            "created_at",
            "finished_at",
        ]


class SnapshotSerializer(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    metric = serializers.CharField(source="metric.name")

    class Meta:
        model = ResultSnapshot
        fields = [
            "benchmark",
            "metric",
            *SnapshotSummarySerializer.Meta.fields,
            "timings",
            "payload",
        ]


def _snapshot(request: Request, slug: str, version: int | None) -> ResultSnapshot:
    """The latest ready snapshot (``version`` None) or the given version, of ``?metric=``."""
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    metric = metric_or_404(benchmark=benchmark, name=request.query_params.get("metric"))
    if version is None:
        snapshot = snapshot_latest(benchmark=benchmark, metric=metric)
        if snapshot is None:
            raise snapshot_not_found(metric)
        return snapshot
    try:
        return snapshot_get(benchmark=benchmark, metric=metric, version=version)
    except ResultSnapshot.DoesNotExist:
        raise snapshot_not_found(metric, version) from None


class SnapshotHistoryApi(ApiView):
    pagination_class = LimitOffsetPagination

    @extend_schema(
        summary="Every version of a benchmark's results",
        description="Newest first, without payloads; a computing version shows its stage "
        "and progress (0..1).",
        parameters=[metric_parameter],
        responses={200: SnapshotSummarySerializer(many=True), 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        metric = metric_or_404(benchmark=benchmark, name=request.query_params.get("metric"))
        return paginated_response(
            queryset=snapshot_history(benchmark=benchmark, metric=metric),
            serializer_class=SnapshotSummarySerializer,
            request=request,
            view=self,
        )


class SnapshotLatestApi(ApiView):
    class OutputSerializer(SnapshotSerializer):
        computing = serializers.SerializerMethodField(
            help_text="a newer version being computed, or null"
        )

        class Meta(SnapshotSerializer.Meta):
            fields = [*SnapshotSerializer.Meta.fields, "computing"]

        @extend_schema_field(SnapshotSummarySerializer(allow_null=True))
        def get_computing(self, snapshot) -> dict | None:
            newer = snapshot_computing(benchmark=snapshot.benchmark, metric=snapshot.metric)
            if newer is None or newer.version < snapshot.version:
                return None
            return SnapshotSummarySerializer(newer).data

    @extend_schema(
        summary="The results being served",
        description="The latest ready snapshot of a metric; `computing` tells whether a "
        "newer one is on its way.",
        parameters=[metric_parameter],
        responses={200: OutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(self.OutputSerializer(_snapshot(request, slug, None)).data)


class SnapshotVersionApi(ApiView):
    @extend_schema(
        summary="One version of the results",
        description="Any status: a computing one has no payload yet but a stage and "
        "progress; a failed one has an error.",
        parameters=[metric_parameter],
        responses={200: SnapshotSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, version: int) -> Response:
        return Response(SnapshotSerializer(_snapshot(request, slug, version)).data)


def _filename(snapshot: ResultSnapshot, extension: str) -> str:
    name = f"{snapshot.benchmark.slug}-{slugify(snapshot.metric.name) or 'metric'}"
    return f"{name}-v{snapshot.version}.{extension}"


class SnapshotExportCsvApi(ApiView):
    @extend_schema(
        summary="Results as CSV",
        description="One row per algorithm, one column per per-algorithm value in the "
        "payload (e.g. `win_rate`, `mean_rank`). Without a version: the latest ready one.",
        parameters=[metric_parameter],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            404: ErrorSerializer,
        },
    )
    def get(self, request: Request, slug: str, version: int | None = None) -> HttpResponse:
        snapshot = _snapshot(request, slug, version)
        if snapshot.status != ResultSnapshot.Status.READY:
            raise snapshot_not_found(snapshot.metric, version)
        columns, rows = snapshot_rows(snapshot.payload)
        response = HttpResponse(rows_as_csv(columns, rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{_filename(snapshot, "csv")}"'
        return response


class SnapshotExportJsonApi(ApiView):
    renderer_classes = [JSONRenderer]  # a download, also from a browser

    class OutputSerializer(serializers.Serializer):
        benchmark = serializers.CharField()
        metric = serializers.CharField()
        version = serializers.IntegerField()
        fingerprint = serializers.CharField()
        engine_version = serializers.CharField()
        finished_at = serializers.DateTimeField()
        columns = serializers.ListField(child=serializers.CharField())
        rows = serializers.ListField(child=serializers.DictField())
        payload = serializers.JSONField()

    @extend_schema(
        summary="Results as JSON",
        description="The same rows as the CSV export, with the snapshot's identity and "
        "its full payload.",
        parameters=[metric_parameter],
        responses={200: OutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, version: int | None = None) -> Response:
        snapshot = _snapshot(request, slug, version)
        if snapshot.status != ResultSnapshot.Status.READY:
            raise snapshot_not_found(snapshot.metric, version)
        columns, rows = snapshot_rows(snapshot.payload)
        body = {
            "benchmark": snapshot.benchmark.slug,
            "metric": snapshot.metric.name,
            "version": snapshot.version,
            "fingerprint": snapshot.fingerprint,
            "engine_version": snapshot.engine_version,
            "finished_at": snapshot.finished_at,
            "columns": columns,
            "rows": rows,
            "payload": snapshot.payload,
        }
        response = Response(self.OutputSerializer(body).data)
        response["Content-Disposition"] = f'attachment; filename="{_filename(snapshot, "json")}"'
        return response
