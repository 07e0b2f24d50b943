"""API serializers: read shapes and input validation only.

Serializers never write: views pass ``validated_data`` to the owning app's
service function. Bilingual texts from the rules engine are objects
``{"fr": ..., "en": ...}`` (:class:`LocalizedTextSerializer`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import rules
from accounts.models import display_name
from campaigns import access


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


# ---------------------------------------------------------------------------
# Current user and tokens
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# Rule systems
# ---------------------------------------------------------------------------
class SystemSummarySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = LocalizedTextSerializer()
    diceless = serializers.BooleanField()
    schema_version = serializers.IntegerField()
    currencies = serializers.ListField(child=serializers.CharField())

    def to_representation(self, system: rules.base.RuleSystem) -> dict[str, Any]:
        return {
            "slug": system.slug,
            "name": system.name.to_dict(),
            "diceless": system.diceless,
            "schema_version": system.schema_version,
            "currencies": list(system.currencies),
        }


class FieldSpecSerializer(serializers.Serializer):
    """One declared field (``rules.base.Field.to_dict()``)."""

    path = serializers.CharField()
    kind = serializers.CharField()
    label = LocalizedTextSerializer()
    default = serializers.JSONField(allow_null=True)
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    choices = serializers.ListField(child=serializers.ListField(), help_text="[value, {fr, en}] pairs.")
    item_fields = serializers.ListField(child=serializers.DictField(), help_text="Fields of each item (same shape).")
    max_items = serializers.IntegerField(allow_null=True)
    max_length = serializers.IntegerField(allow_null=True)
    required = serializers.BooleanField()
    group = serializers.CharField(allow_blank=True)
    step = serializers.CharField(allow_blank=True)
    help = LocalizedTextSerializer(allow_null=True)
    secret = serializers.BooleanField()


class StepSpecSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = LocalizedTextSerializer()
    paths = serializers.ListField(child=serializers.CharField())
    help = LocalizedTextSerializer(allow_null=True)


class DerivedSpecSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = LocalizedTextSerializer()
    group = serializers.CharField(allow_blank=True)
    secret = serializers.BooleanField()


class SystemDescriptionSerializer(serializers.Serializer):
    """``RuleSystem.describe()``: the sheet schema and every declared request."""

    slug = serializers.CharField()
    name = LocalizedTextSerializer()
    schema_version = serializers.IntegerField()
    diceless = serializers.BooleanField()
    currencies = serializers.ListField(child=serializers.CharField())
    sheet_fields = FieldSpecSerializer(many=True)
    creation_steps = StepSpecSerializer(many=True)
    derived = DerivedSpecSerializer(many=True)
    campaign_settings = FieldSpecSerializer(many=True)
    test_kinds = serializers.DictField(child=FieldSpecSerializer(many=True))
    action_fields = FieldSpecSerializer(many=True)
    purchase_kinds = serializers.DictField(child=FieldSpecSerializer(many=True))

    def to_representation(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


class OddsRequestSerializer(serializers.Serializer):
    request = serializers.DictField(
        help_text='A test request as in `test_kinds`, e.g. {"kind": "action", ...}.', allow_empty=False
    )
    settings = serializers.DictField(required=False, help_text="Campaign options (defaults if omitted).")


@extend_schema_field({"type": "object", "nullable": True, "additionalProperties": True})
class NullableObjectField(serializers.JSONField):
    pass


class OddsSerializer(serializers.Serializer):
    system = serializers.CharField()
    kind = serializers.CharField()
    odds = NullableObjectField(help_text="Exact odds, or null when the system defines none for this test.")


# ---------------------------------------------------------------------------
# Campaigns
# ---------------------------------------------------------------------------
class CampaignSerializer(serializers.Serializer):
    """A campaign as the directory and detail show it."""

    id = serializers.IntegerField(read_only=True)
    slug = serializers.CharField(read_only=True)
    title = serializers.CharField(max_length=120)
    pitch = serializers.CharField(max_length=5000, allow_blank=True, required=False)
    system = serializers.ChoiceField(choices=list(rules.SYSTEM_MODULES))
    system_name = LocalizedTextSerializer(read_only=True)
    system_settings = serializers.DictField(required=False)
    is_public = serializers.BooleanField(required=False)
    recruiting = serializers.BooleanField(required=False)
    language = serializers.ChoiceField(choices=[code for code, _name in settings.LANGUAGES], required=False)
    locked = serializers.BooleanField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    gm = UserRefSerializer(read_only=True, allow_null=True)
    member_count = serializers.IntegerField(read_only=True)
    my_role = serializers.CharField(read_only=True, allow_null=True, help_text="gm, cogm, player, spectator or null.")

    def to_representation(self, campaign: Any) -> dict[str, Any]:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        gm = getattr(campaign, "_gm", None)
        if gm is None:
            membership = campaign.memberships.filter(role="gm").select_related("user__profile").first()
            gm = membership.user if membership else None
        try:
            system_name = rules.get_system(campaign.system).name.to_dict()
        except rules.UnknownSystem:
            system_name = {"fr": campaign.system, "en": campaign.system}
        return {
            "id": campaign.pk,
            "slug": campaign.slug,
            "title": campaign.title,
            "pitch": campaign.pitch,
            "system": campaign.system,
            "system_name": system_name,
            "system_settings": campaign.system_settings or {},
            "is_public": campaign.is_public,
            "recruiting": campaign.recruiting,
            "language": campaign.language,
            "locked": campaign.locked,
            "created": serializers.DateTimeField().to_representation(campaign.created),
            "gm": UserRefSerializer(gm).data if gm is not None else None,
            "member_count": getattr(campaign, "member_count", None) or campaign.memberships.count(),
            "my_role": access.role_of(user, campaign) if user is not None else None,
        }


class MembershipSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    user = UserRefSerializer(read_only=True)
    role = serializers.ChoiceField(choices=["gm", "cogm", "player", "spectator"])
    joined = serializers.DateTimeField(read_only=True)
