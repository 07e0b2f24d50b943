"""Current user and personal tokens."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services as account_services
from api import services
from api.pagination import PagePagination
from api.serializers import ApiTokenSerializer, MeSerializer, NewApiTokenSerializer
from api.views.common import id_param


class MeView(APIView):
    """The member making the request (*mon profil*)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeSerializer, operation_id="me_retrieve", tags=["me"])
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)

    @extend_schema(request=MeSerializer, responses=MeSerializer, operation_id="me_update", tags=["me"])
    def patch(self, request: Request) -> Response:
        serializer = MeSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        profile = request.user.profile
        values: dict[str, Any] = {
            "display_name": profile.display_name,
            "language": profile.language,
            "bio": profile.bio,
        }
        values.update(serializer.validated_data)
        account_services.update_profile(request.user, **values)
        request.user.refresh_from_db()
        return Response(MeSerializer(request.user).data)


class TokenListView(APIView):
    """Your personal API tokens (*jetons d'API*): list and create."""

    permission_classes = [IsAuthenticated]
    pagination_class = PagePagination

    @extend_schema(responses=ApiTokenSerializer(many=True), operation_id="tokens_list", tags=["me"])
    def get(self, request: Request) -> Response:
        paginator = PagePagination()
        page = paginator.paginate_queryset(request.user.api_tokens.all(), request, view=self)
        return paginator.get_paginated_response(ApiTokenSerializer(page, many=True).data)

    @extend_schema(
        request=ApiTokenSerializer,
        responses={201: NewApiTokenSerializer},
        operation_id="tokens_create",
        tags=["me"],
    )
    def post(self, request: Request) -> Response:
        serializer = ApiTokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, key = services.create_token(request.user, name=serializer.validated_data["name"])
        data = dict(ApiTokenSerializer(token).data)
        data["key"] = key
        return Response(data, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[id_param("token_id")], responses={204: None}, operation_id="tokens_revoke", tags=["me"])
    def delete(self, request: Request, token_id: int) -> Response:
        services.revoke_token(request.user, token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
