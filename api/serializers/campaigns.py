"""API serializers: campaigns, members, invitations, sessions."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

import rules
from api.serializers.common import (
    ASSIGNABLE_ROLES,
    JOINING_ROLES,
    MAX_ID,
    MEMBER_ROLES,
    LocalizedTextSerializer,
    UserRefSerializer,
)
from campaigns.reads import campaign_view


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
        """The campaign's read model (:func:`campaigns.reads.campaign_view`), as JSON."""
        request = self.context.get("request")
        view = campaign_view(getattr(request, "user", None), campaign)
        return {
            "id": campaign.pk,
            "slug": campaign.slug,
            "title": campaign.title,
            "pitch": campaign.pitch,
            "system": campaign.system,
            "system_name": view.system_name,
            "system_settings": campaign.system_settings or {},
            "is_public": campaign.is_public,
            "recruiting": campaign.recruiting,
            "language": campaign.language,
            "locked": campaign.locked,
            "created": serializers.DateTimeField().to_representation(campaign.created),
            "gm": UserRefSerializer(view.gm).data if view.gm is not None else None,
            "member_count": view.member_count,
            "my_role": view.role,
        }


class MembershipSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    user = UserRefSerializer(read_only=True)
    role = serializers.ChoiceField(choices=MEMBER_ROLES)
    joined = serializers.DateTimeField(read_only=True)


class CampaignWriteSerializer(serializers.Serializer):
    """Create (POST: title and system required) or change (PATCH: any subset) a campaign."""

    title = serializers.CharField(max_length=120)
    pitch = serializers.CharField(max_length=5000, allow_blank=True, required=False)
    system = serializers.ChoiceField(choices=list(rules.SYSTEM_MODULES), help_text="Fixed once created.")
    system_settings = serializers.DictField(required=False, help_text="Options declared by the system.")
    is_public = serializers.BooleanField(required=False)
    recruiting = serializers.BooleanField(required=False)
    language = serializers.ChoiceField(choices=[code for code, _name in settings.LANGUAGES], required=False)


class MemberRoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=ASSIGNABLE_ROLES)


class HandOverSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class InvitationSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    campaign_title = serializers.CharField(source="campaign.title", read_only=True)
    user = UserRefSerializer(read_only=True)
    role = serializers.CharField(read_only=True)
    invited_by = UserRefSerializer(read_only=True, allow_null=True)
    status = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)


class InvitationCreateSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=ASSIGNABLE_ROLES, default="player")


class JoinRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    user = UserRefSerializer(read_only=True)
    message = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    decided_at = serializers.DateTimeField(read_only=True, allow_null=True)


class JoinRequestCreateSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")


class JoinDecisionSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=JOINING_ROLES, default="player")


class PlaySessionSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    number = serializers.IntegerField(read_only=True)
    title = serializers.CharField(max_length=120, allow_blank=True, required=False, default="")
    status = serializers.CharField(read_only=True)
    opened_at = serializers.DateTimeField(read_only=True)
    closed_at = serializers.DateTimeField(read_only=True, allow_null=True)


class InviteLinkSerializer(serializers.Serializer):
    token = serializers.RegexField(r"^[A-Za-z0-9_-]+$", max_length=100, help_text="The link's token (URL-safe).")
