"""API serializers: the current user, notifications and api tokens."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from api.serializers.common import MAX_ID
from campaigns import access


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(read_only=True)
    display_name = serializers.CharField(max_length=60, allow_blank=True, required=False)
    language = serializers.ChoiceField(choices=[code for code, _name in settings.LANGUAGES], required=False)
    bio = serializers.CharField(max_length=2000, allow_blank=True, required=False)
    is_moderator = serializers.BooleanField(read_only=True)

    def to_representation(self, user: Any) -> dict[str, Any]:
        profile = getattr(user, "profile", None)
        return {
            "id": user.pk,
            "username": user.get_username(),
            "email": user.email,
            "display_name": getattr(profile, "display_name", ""),
            "language": getattr(profile, "language", settings.LANGUAGE_CODE),
            "bio": getattr(profile, "bio", ""),
            "is_moderator": access.is_moderator(user),
        }


class ApiTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(max_length=80)
    prefix = serializers.CharField(read_only=True, help_text="First characters of the key, to tell tokens apart.")
    created = serializers.DateTimeField(read_only=True)
    last_used_at = serializers.DateTimeField(read_only=True, allow_null=True)
    revoked_at = serializers.DateTimeField(read_only=True, allow_null=True)

    def validate_name(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError(_("Give the token a name."), code="required")
        return value.strip()


class NewApiTokenSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="The secret key: shown once, store it now.")


class NotificationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    campaign = serializers.IntegerField(source="campaign_id")
    thread = serializers.IntegerField(source="thread_id", allow_null=True)
    post = serializers.IntegerField(source="post_id", allow_null=True)
    actor = serializers.IntegerField(source="actor_id", allow_null=True)
    text = serializers.CharField()
    created = serializers.DateTimeField()
    read_at = serializers.DateTimeField(allow_null=True)


class NotificationReadSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        allow_null=True,
        max_length=500,
        help_text="Notification ids; omit to mark them all read.",
    )
