"""Benchmarks and their metrics, datasets and algorithms."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.pagination import LimitOffsetPagination, paginated_response
from common.rest import ApiView, BoundedJSONParser, ErrorSerializer, PageQuerySerializer
from leaderboard.api.common import StrictInput
from leaderboard.lookups import benchmark_or_404, metric_or_404
from leaderboard.metric_rope import metric_rope_set
from leaderboard.models import Algorithm, Benchmark, Dataset, Metric
from leaderboard.selectors import (
    benchmark_algorithm_list,
    benchmark_dataset_list,
    benchmark_get_visible,
    benchmark_list_visible,
    benchmark_maintainer_names,
    benchmark_metric_list,
)
from leaderboard.services import (
    EDITABLE_FIELDS,
    MAX_METRICS,
    RESERVED_SLUGS,
    benchmark_create,
    benchmark_update,
    catalogue_entry_delete,
    catalogue_entry_rename,
    user_is_maintainer,
)

ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}


class OptionalUrlField(serializers.URLField):
    """A stored link, or null where none was given (never "", which is no URI)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value):
        return value or None


class MetricOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Metric
        fields = [
            "name",
            "direction",
            "is_primary",
            "description",
            "min_value",
            "max_value",
            "unit",
            "rope",
        ]


class BenchmarkDetailOutputSerializer(serializers.ModelSerializer):
    metrics = MetricOutputSerializer(many=True, read_only=True)
    maintainers = serializers.SerializerMethodField()
    is_maintainer = serializers.SerializerMethodField()
    n_algorithms = serializers.IntegerField(help_text="algorithms with an accepted submission")
    n_datasets = serializers.IntegerField(
        help_text="datasets with an accepted score or declared by a maintainer"
    )
    n_accepted = serializers.IntegerField(help_text="accepted submissions")
    n_pending = serializers.IntegerField(help_text="submissions awaiting moderation")

    class Meta:
        model = Benchmark
        fields = [
            "slug",
            *EDITABLE_FIELDS,
            "metrics",
            "maintainers",
            "is_maintainer",
            "n_algorithms",
            "n_datasets",
            "n_accepted",
            "n_pending",
            "created_at",
            "updated_at",
        ]

    def get_maintainers(self, benchmark) -> list[str]:
        return benchmark_maintainer_names(benchmark=benchmark)

    def get_is_maintainer(self, benchmark) -> bool:
        return user_is_maintainer(user=self.context["request"].user, benchmark=benchmark)


def _detail(request: Request, slug: str, status_code: int = status.HTTP_200_OK) -> Response:
    benchmark = benchmark_get_visible(slug=slug, user=request.user)
    data = BenchmarkDetailOutputSerializer(benchmark, context={"request": request}).data
    return Response(data, status=status_code)


class BenchmarkListApi(ApiView):
    pagination_class = LimitOffsetPagination
    create_endpoints = (("a benchmark", "api-benchmark-create"),)

    class FilterSerializer(PageQuerySerializer):
        q = serializers.CharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=200,
            help_text="search title, slug, text",
        )

    query_serializer_class = FilterSerializer

    class OutputSerializer(serializers.ModelSerializer):
        n_algorithms = serializers.IntegerField(help_text="algorithms with an accepted submission")
        n_datasets = serializers.IntegerField(
            help_text="datasets with an accepted score or declared by a maintainer"
        )
        n_metrics = serializers.IntegerField()
        n_accepted = serializers.IntegerField(help_text="accepted submissions")

        class Meta:
            model = Benchmark
            fields = [
                "slug",
                "title",
                "description",
                "visibility",
                "submission_policy",
                "ranking_only",
                "n_algorithms",
                "n_datasets",
                "n_metrics",
                "n_accepted",
                "updated_at",
            ]

    @extend_schema(
        summary="List benchmarks",
        description="Public benchmarks and those you maintain (unlisted and private ones "
        "are not listed).",
        parameters=[FilterSerializer],
        responses={200: OutputSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        benchmarks = benchmark_list_visible(user=request.user, query=self.query["q"])
        return paginated_response(
            queryset=benchmarks, serializer_class=self.OutputSerializer, request=request, view=self
        )


class BenchmarkCreateApi(ApiView):
    permission_classes = [IsAuthenticated]
    # JSON only: a form cannot carry the list of metrics (objects).
    parser_classes = [BoundedJSONParser]

    class InputSerializer(StrictInput, serializers.ModelSerializer):
        class MetricSerializer(StrictInput, serializers.Serializer):
            name = serializers.CharField(max_length=100)
            direction = serializers.ChoiceField(choices=Metric.Direction.choices)
            min_value = serializers.FloatField(
                required=False, allow_null=True, default=None, help_text="lowest valid value"
            )
            max_value = serializers.FloatField(
                required=False, allow_null=True, default=None, help_text="highest valid value"
            )
            unit = serializers.CharField(
                required=False, allow_blank=True, default="", max_length=20
            )
            rope = serializers.FloatField(
                required=False,
                allow_null=True,
                default=None,
                help_text="half-width of the region of practical equivalence, metric units "
                "(>= 0; none by default)",
            )

        # DRF takes min_length and max_length with many=True (ListSerializer); its stubs
        # do not say so.
        metrics = MetricSerializer(  # type: ignore[call-arg]
            many=True,
            min_length=1,
            max_length=MAX_METRICS,
            help_text="The first metric is the primary one (ranked by default).",
        )

        class Meta:
            model = Benchmark
            fields = ["slug", "title", "metrics", *EDITABLE_FIELDS]
            # The service reports a taken slug as one of its problems.
            extra_kwargs: dict[str, dict[str, object]] = {"slug": {"validators": []}}

        def validate_slug(self, slug: str) -> str:
            if slug in RESERVED_SLUGS:
                raise serializers.ValidationError(f"{slug!r} is reserved by the API")
            return slug

    @extend_schema(
        summary="Create a benchmark",
        description="Any logged-in user may create a benchmark and becomes its maintainer "
        "(409 when the slug is taken).",
        request=InputSerializer,
        responses={201: BenchmarkDetailOutputSerializer, **ERRORS, 409: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        metrics = [
            (
                m["name"],
                m["direction"],
                {
                    "min_value": m["min_value"],
                    "max_value": m["max_value"],
                    "unit": m["unit"],
                    "rope": m["rope"],
                },
            )
            for m in data.pop("metrics")
        ]
        benchmark = benchmark_create(
            slug=data.pop("slug"),
            title=data.pop("title"),
            metrics=metrics,
            creator=request.user,
            **data,
        )
        return _detail(request, benchmark.slug, status.HTTP_201_CREATED)


class BenchmarkDetailApi(ApiView):
    @extend_schema(
        summary="A benchmark",
        description="Public and unlisted benchmarks are readable by anyone; a private one "
        "only by its maintainers (404 for everyone else).",
        responses={200: BenchmarkDetailOutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        benchmark_or_404(slug=slug, user=request.user)
        return _detail(request, slug)


class BenchmarkUpdateApi(ApiView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(StrictInput, serializers.ModelSerializer):
        """Only the fields to change, at least one: every field is optional (the schema
        said ``title`` was required, and a request without a body changed nothing and
        answered 200; Schemathesis ST201)."""

        min_properties = 1  # the schema's minProperties (leaderboard.api.schema)

        class Meta:
            model = Benchmark
            fields = list(EDITABLE_FIELDS)

        def get_fields(self):
            fields = super().get_fields()
            for field in fields.values():
                field.required = False
            return fields

        def validate(self, attrs):
            if not attrs:
                raise serializers.ValidationError(
                    f"send at least one field to change: {', '.join(EDITABLE_FIELDS)}"
                )
            return attrs

    @extend_schema(
        summary="Change a benchmark",
        description="Maintainers only. Send the fields to change (at least one; each is "
        "optional); a change of an analysis setting recomputes the results.",
        request=InputSerializer,
        responses={200: BenchmarkDetailOutputSerializer, **ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        serializer = self.InputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        benchmark_update(benchmark=benchmark, user=request.user, **serializer.validated_data)
        return _detail(request, slug)


class MetricListApi(ApiView):
    pagination_class = LimitOffsetPagination

    @extend_schema(
        summary="A benchmark's metrics", responses={200: MetricOutputSerializer(many=True)}
    )
    def get(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        return paginated_response(
            queryset=benchmark_metric_list(benchmark=benchmark),
            serializer_class=MetricOutputSerializer,
            request=request,
            view=self,
        )


class MetricRopeApi(ApiView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(StrictInput, serializers.Serializer):
        rope = serializers.FloatField(
            allow_null=True,
            min_value=0.0,
            help_text="region of practical equivalence, metric units (null: none)",
        )

    @extend_schema(
        summary="Set a metric's region of practical equivalence",
        description="Maintainers only. Differences within ±rope (metric units) count as "
        "practically equivalent (Bayesian signed-rank test, METHODS 6.1); null removes "
        "it. A change recomputes the results.",
        request=InputSerializer,
        responses={200: MetricOutputSerializer, **ERRORS},
    )
    def post(self, request: Request, slug: str, metric: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        chosen = metric_or_404(benchmark=benchmark, name=metric)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        updated = metric_rope_set(
            metric=chosen, user=request.user, rope=serializer.validated_data["rope"]
        )
        return Response(MetricOutputSerializer(updated).data)


class DatasetListApi(ApiView):
    pagination_class = LimitOffsetPagination

    class OutputSerializer(serializers.ModelSerializer):
        n_scores = serializers.IntegerField(help_text="accepted scores on this dataset")
        url = OptionalUrlField(
            help_text="where the data or its paper is (http or https, set by a maintainer); "
            "null when none"
        )
        domain = serializers.CharField(help_text="e.g. medicine; empty when none")

        class Meta:
            model = Dataset
            fields = ["name", "description", "url", "domain", "n_scores"]

    @extend_schema(summary="A benchmark's datasets", responses={200: OutputSerializer(many=True)})
    def get(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        return paginated_response(
            queryset=benchmark_dataset_list(benchmark=benchmark),
            serializer_class=self.OutputSerializer,
            request=request,
            view=self,
        )


class AlgorithmListApi(ApiView):
    pagination_class = LimitOffsetPagination

    class OutputSerializer(serializers.ModelSerializer):
        n_accepted = serializers.IntegerField(help_text="accepted submissions")
        url = OptionalUrlField(help_text="paper or code (http or https); null when none")

        owners = serializers.SlugRelatedField[Algorithm](
            many=True, read_only=True, slug_field="username", help_text="usernames"
        )

        class Meta:
            model = Algorithm
            fields = [
                "name",
                "description",
                "url",
                "version",
                "family",
                "parameters",
                "licence",
                "revision",
                "precision",
                "open_weights",
                "n_accepted",
                "owners",
            ]

    @extend_schema(summary="A benchmark's algorithms", responses={200: OutputSerializer(many=True)})
    def get(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        return paginated_response(
            queryset=benchmark_algorithm_list(benchmark=benchmark),
            serializer_class=self.OutputSerializer,
            request=request,
            view=self,
        )


class _CatalogueEntryApi(ApiView):
    """Maintainers rename or delete a dataset or algorithm that no accepted result uses."""

    permission_classes = [IsAuthenticated]
    kind = ""


class _RenameInputSerializer(StrictInput, serializers.Serializer):
    name = serializers.CharField(trim_whitespace=False)
    new_name = serializers.CharField()


class _DeleteInputSerializer(StrictInput, serializers.Serializer):
    name = serializers.CharField(trim_whitespace=False)


class _CatalogueOutputSerializer(serializers.Serializer):
    name = serializers.CharField()


def _catalogue_schema(action: str, kind: str, request):
    return extend_schema(
        summary=f"{action.capitalize()} {'an' if kind[0] in 'aeiou' else 'a'} {kind}",
        description=f"Maintainers only; 404 for a name the benchmark does not have, 409 while "
        f"accepted results use the {kind}"
        + (" or pending submissions do" if action == "delete" else " or the new name is taken")
        + ". Rejected or withdrawn results go with a deleted name.",
        request=request,
        responses={
            200: _CatalogueOutputSerializer,
            **{code: ErrorSerializer for code in (400, 403, 404, 409)},
        },
    )


class _CatalogueRenameApi(_CatalogueEntryApi):
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        serializer = _RenameInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = catalogue_entry_rename(
            benchmark=benchmark, user=request.user, kind=self.kind, **serializer.validated_data
        )
        return Response(_CatalogueOutputSerializer(entry).data)


class _CatalogueDeleteApi(_CatalogueEntryApi):
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        serializer = _DeleteInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        catalogue_entry_delete(
            benchmark=benchmark, user=request.user, kind=self.kind, **serializer.validated_data
        )
        return Response(serializer.validated_data)


class DatasetRenameApi(_CatalogueRenameApi):
    kind = "dataset"

    @_catalogue_schema("rename", "dataset", _RenameInputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)


class DatasetDeleteApi(_CatalogueDeleteApi):
    kind = "dataset"

    @_catalogue_schema("delete", "dataset", _DeleteInputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)


class AlgorithmRenameApi(_CatalogueRenameApi):
    kind = "algorithm"

    @_catalogue_schema("rename", "algorithm", _RenameInputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)


class AlgorithmDeleteApi(_CatalogueDeleteApi):
    kind = "algorithm"

    @_catalogue_schema("delete", "algorithm", _DeleteInputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)
