"""The creation roll through the API (route in :mod:`systems.clefs.api_urls`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.serializers.characters import CharacterSerializer
from api.serializers.common import MAX_ID
from api.views.characters import CHARACTER, IF_MATCH, character_response, expected_version
from characters import access
from systems.clefs import services


class ClefsRollSerializer(serializers.Serializer):
    aspect_method = serializers.CharField(max_length=40)
    means_method = serializers.CharField(max_length=40)
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class ClefsRollView(APIView):
    permission_classes = [IsAuthenticated]
    extra_error_codes = (412, 428)

    @extend_schema(
        parameters=[CHARACTER, IF_MATCH],
        request=ClefsRollSerializer,
        responses=CharacterSerializer,
        operation_id="characters_clefs_roll",
        tags=["characters"],
        description="Clefs de l'Aube: roll the creation dice on the server (once; a GM may roll again).",
    )
    def post(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        serializer = ClefsRollSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = expected_version(request, character, data.get("version"))
        updated = services.clefs_creation_roll(
            request.user,
            character,
            aspect_method=data["aspect_method"],
            means_method=data["means_method"],
            expected_version=version,
        )
        return character_response(request, updated)
