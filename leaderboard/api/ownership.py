"""/api/benchmarks/<slug>/algorithms/owners/...: who may submit under an algorithm's name.

Owners (or maintainers) add an account to an algorithm's owners; maintainers transfer
an algorithm to other accounts. The rules live in ``leaderboard.ownership``.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.rest import ApiView, ErrorSerializer
from leaderboard.api.common import StrictInput
from leaderboard.lookups import benchmark_or_404
from leaderboard.ownership import algorithm_owner_add, algorithm_owners_transfer

_ERRORS = {code: ErrorSerializer for code in (400, 401, 403, 404)}


class _OwnersOutputSerializer(serializers.Serializer):
    algorithm = serializers.CharField()
    owners = serializers.ListField(child=serializers.CharField(), help_text="usernames")


class AlgorithmOwnerAddApi(ApiView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(StrictInput, serializers.Serializer):
        algorithm = serializers.CharField(trim_whitespace=False, max_length=200)
        username = serializers.CharField(max_length=150)

    @extend_schema(
        summary="Add an owner to an algorithm",
        description="An owner of the algorithm, or a maintainer, adds an account to its "
        "owners; only owners may submit under an algorithm's name.",
        request=InputSerializer,
        responses={200: _OwnersOutputSerializer, **_ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        owners = algorithm_owner_add(
            benchmark=benchmark,
            user=request.user,
            algorithm=data["algorithm"],
            username=data["username"],
        )
        return Response({"algorithm": data["algorithm"], "owners": owners})


class AlgorithmOwnersTransferApi(ApiView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(StrictInput, serializers.Serializer):
        algorithm = serializers.CharField(trim_whitespace=False, max_length=200)
        usernames = serializers.ListField(
            child=serializers.CharField(max_length=150), min_length=1, max_length=50
        )

    @extend_schema(
        summary="Transfer an algorithm to other accounts",
        description="Maintainers only: the accounts named become the algorithm's owners, "
        "replacing the current ones.",
        request=InputSerializer,
        responses={200: _OwnersOutputSerializer, **_ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        benchmark = benchmark_or_404(slug=slug, user=request.user)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        owners = algorithm_owners_transfer(
            benchmark=benchmark,
            user=request.user,
            algorithm=data["algorithm"],
            usernames=data["usernames"],
        )
        return Response({"algorithm": data["algorithm"], "owners": owners})
