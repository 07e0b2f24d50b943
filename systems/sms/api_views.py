"""Race and archetype templates through the API (route in :mod:`systems.sms.api_urls`)."""

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
from systems.sms import services


class TemplateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["race", "archetype"])
    key = serializers.CharField(max_length=80)
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class TemplateView(APIView):
    permission_classes = [IsAuthenticated]
    extra_error_codes = (412, 428)

    @extend_schema(
        parameters=[CHARACTER, IF_MATCH],
        request=TemplateSerializer,
        responses=CharacterSerializer,
        operation_id="characters_apply_template",
        tags=["characters"],
        description="SMS: apply a race or an archetype template to a draft.",
    )
    def post(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        serializer = TemplateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = expected_version(request, character, data.get("version"))
        updated = services.apply_template(
            request.user, character, kind=data["kind"], key=data["key"], expected_version=version
        )
        return character_response(request, updated)
