"""Personal API tokens: create (the raw token is shown once), list, revoke."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.rest import ApiView, ErrorSerializer
from leaderboard.api.common import StrictInput
from leaderboard.models import ApiToken
from leaderboard.permissions import IsSessionAuthenticated
from leaderboard.selectors import api_token_list
from leaderboard.services import api_token_create, api_token_revoke


class ApiTokenOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "expires_at"]


class ApiTokenListApi(ApiView):
    permission_classes = [IsAuthenticated]
    create_endpoints = (("a token", "api-token-create"),)

    @extend_schema(
        summary="Your active API tokens",
        description="Only their prefix is shown; the full token was shown once, at creation.",
        responses={200: ApiTokenOutputSerializer(many=True), 401: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return Response(ApiTokenOutputSerializer(api_token_list(user=request.user), many=True).data)


class ApiTokenCreateApi(ApiView):
    permission_classes = [IsSessionAuthenticated]

    class InputSerializer(StrictInput, serializers.Serializer):
        name = serializers.CharField(max_length=100, help_text="what the token is for")
        expires_in_days = serializers.IntegerField(
            required=False,
            allow_null=True,
            default=None,
            min_value=1,
            help_text="the token stops working after this many days (default: the site's, "
            "usually never)",
        )

    class OutputSerializer(ApiTokenOutputSerializer):
        token = serializers.CharField(help_text="the token itself: shown this once only")

        class Meta(ApiTokenOutputSerializer.Meta):
            fields = [*ApiTokenOutputSerializer.Meta.fields, "token"]

    @extend_schema(
        summary="Create an API token",
        description="From a logged-in web session only (not with another token). Send it "
        "as `Authorization: Token <token>`; it is stored hashed and cannot be shown again.",
        request=InputSerializer,
        responses={201: OutputSerializer, 400: ErrorSerializer, 403: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, raw = api_token_create(
            user=request.user,
            name=serializer.validated_data["name"],
            expires_in_days=serializer.validated_data["expires_in_days"],
        )
        token.token = raw  # type: ignore[attr-defined]  # for OutputSerializer, never stored
        response = Response(self.OutputSerializer(token).data, status=status.HTTP_201_CREATED)
        response["Cache-Control"] = "no-store"
        return response


class ApiTokenRevokeApi(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Revoke an API token",
        description="For good; requests with it are refused from now on (401).",
        request=None,
        responses={204: None, 401: ErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, token_id: int) -> Response:
        token = api_token_list(user=request.user).filter(pk=token_id).first()
        if token is None:
            raise NotFound(f"You have no active token {token_id}.")
        api_token_revoke(token=token, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
