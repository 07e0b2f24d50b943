"""API serializers: shared read shapes (ids, texts, members)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import display_name

#: Largest id the API accepts (18 digits: fits a PostgreSQL bigint and SQLite's INTEGER).
MAX_ID = 10**18 - 1

#: Choice sets named in the OpenAPI schema (``SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]``).
MEMBER_ROLES = [("gm", "GM"), ("cogm", "co-GM"), ("player", "player"), ("spectator", "spectator")]
ASSIGNABLE_ROLES = [("cogm", "co-GM"), ("player", "player"), ("spectator", "spectator")]
JOINING_ROLES = [("player", "player"), ("spectator", "spectator")]


class LocalizedTextSerializer(serializers.Serializer):
    fr = serializers.CharField()
    en = serializers.CharField()


class UserRefSerializer(serializers.Serializer):
    """A member as others see them."""

    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    display_name = serializers.SerializerMethodField()

    def get_display_name(self, user: Any) -> str:
        return display_name(user)


class CountSerializer(serializers.Serializer):
    count = serializers.IntegerField()
