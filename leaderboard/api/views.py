"""Read-only API of benchmarks and their latest results. Views only parse and serialise."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from estimation.selectors import snapshot_latest
from leaderboard.models import Benchmark
from leaderboard.selectors import benchmark_list


class BenchmarkListApi(ListAPIView):
    class OutputSerializer(serializers.ModelSerializer):
        n_algorithms = serializers.IntegerField()
        n_datasets = serializers.IntegerField()

        class Meta:
            model = Benchmark
            fields = ["slug", "title", "description", "n_algorithms", "n_datasets", "updated_at"]

    serializer_class = OutputSerializer

    def get_queryset(self):
        return benchmark_list()


class SnapshotSerializer(serializers.Serializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    metric = serializers.CharField(source="metric.name")
    version = serializers.IntegerField()
    status = serializers.CharField()
    fingerprint = serializers.CharField()
    engine_version = serializers.CharField()
    finished_at = serializers.DateTimeField()
    timings = serializers.JSONField()
    payload = serializers.JSONField()


class LatestSnapshotApi(APIView):
    def get(self, request: Request, slug: str) -> Response:
        benchmark = get_object_or_404(Benchmark, slug=slug)
        snapshot = snapshot_latest(benchmark=benchmark)
        if snapshot is None:
            return Response({"detail": "No results have been computed yet."}, status=404)
        return Response(SnapshotSerializer(snapshot).data)
