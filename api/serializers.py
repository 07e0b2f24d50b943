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
    user_id = serializers.IntegerField(min_value=1)


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


# ---------------------------------------------------------------------------
# Forum: boards, threads, posts, rolls
# ---------------------------------------------------------------------------
class BoardSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    name = serializers.CharField(max_length=80)
    kind = serializers.ChoiceField(choices=["ic", "ooc", "meta", "other"], default="other")
    position = serializers.IntegerField(read_only=True)


class BoardRenameSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)


class ThreadSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    board = serializers.IntegerField(source="board_id", read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    title = serializers.CharField(read_only=True)
    created_by = UserRefSerializer(read_only=True, allow_null=True)
    created = serializers.DateTimeField(read_only=True)
    sticky = serializers.BooleanField(read_only=True)
    locked = serializers.BooleanField(read_only=True)
    post_count = serializers.IntegerField(read_only=True)
    last_post_at = serializers.DateTimeField(read_only=True, allow_null=True)


class ThreadUpdateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=160, required=False)
    sticky = serializers.BooleanField(required=False)
    locked = serializers.BooleanField(required=False)
    board = serializers.IntegerField(min_value=1, required=False, help_text="Move to this board of the campaign.")


class RollRequestSerializer(serializers.Serializer):
    """One roll to make with the post: a dice expression or a system test."""

    expression = serializers.CharField(max_length=200, required=False, help_text='Generic dice, e.g. "2d6+3".')
    system_test = serializers.DictField(
        required=False, help_text="A test of the campaign's system, as in its `test_kinds` (`kind` + fields)."
    )
    label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    secret = serializers.BooleanField(required=False, default=False, help_text="Seen by you and the GMs only.")
    character_id = serializers.IntegerField(min_value=1, required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if bool(attrs.get("expression")) == bool(attrs.get("system_test")):
            raise serializers.ValidationError(
                _("Give either a dice expression or a system test."), code="expression_or_test"
            )
        return attrs


class PostCreateSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=settings.TABLEE_MAX_POST_LENGTH, trim_whitespace=False)
    character = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, help_text="Speak as this character."
    )
    visibility = serializers.ChoiceField(choices=["public", "gm", "whisper"], default="public")
    recipients = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=list,
        max_length=50,
        help_text="User ids a whisper is for.",
    )
    roll_requests = RollRequestSerializer(many=True, required=False, default=list, max_length=10)
    reply_to = serializers.IntegerField(min_value=1, required=False, allow_null=True)


class ThreadCreateSerializer(PostCreateSerializer):
    title = serializers.CharField(max_length=160)
    sticky = serializers.BooleanField(required=False, default=False)
    locked = serializers.BooleanField(required=False, default=False)


class PostEditSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=settings.TABLEE_MAX_POST_LENGTH, trim_whitespace=False)


class PostHideSerializer(serializers.Serializer):
    hidden = serializers.BooleanField(default=True)
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class RollSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    sequence = serializers.IntegerField(read_only=True)
    post = serializers.IntegerField(source="post_id", read_only=True, allow_null=True)
    session = serializers.IntegerField(source="session_id", read_only=True, allow_null=True)
    roller = UserRefSerializer(read_only=True, allow_null=True)
    character = serializers.IntegerField(source="character_id", read_only=True, allow_null=True)
    kind = serializers.CharField(read_only=True)
    system = serializers.CharField(read_only=True)
    label = serializers.CharField(read_only=True)
    request = serializers.DictField(read_only=True)
    resolution = serializers.DictField(read_only=True)
    secret = serializers.BooleanField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    prev_hash = serializers.CharField(read_only=True)
    hash = serializers.CharField(read_only=True)


class CharacterRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PostSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    thread = serializers.IntegerField(source="thread_id", read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    number = serializers.IntegerField(read_only=True)
    author = UserRefSerializer(read_only=True, allow_null=True)
    character = CharacterRefSerializer(read_only=True, allow_null=True)
    visibility = serializers.CharField(read_only=True)
    recipients = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    body = serializers.CharField(read_only=True)
    body_html = serializers.CharField(read_only=True, help_text="Sanitised HTML rendering of the Markdown body.")
    reply_to = serializers.IntegerField(source="reply_to_id", read_only=True, allow_null=True)
    session = serializers.IntegerField(source="session_id", read_only=True, allow_null=True)
    created = serializers.DateTimeField(read_only=True)
    edited = serializers.DateTimeField(read_only=True, allow_null=True)
    hidden = serializers.BooleanField(read_only=True)
    is_system = serializers.BooleanField(read_only=True)
    rolls = RollSerializer(many=True, read_only=True, help_text="The rolls of the post you may see.")

    def to_representation(self, post: Any) -> dict[str, Any]:
        user = self.context["request"].user
        # The post itself is visible to ``user``: so are its non-secret rolls.
        visible = [r for r in post.rolls.all() if not r.secret or access.can_see_roll(user, r)]
        dt = serializers.DateTimeField()
        return {
            "id": post.pk,
            "thread": post.thread_id,
            "campaign": post.campaign_id,
            "number": post.number,
            "author": UserRefSerializer(post.author).data if post.author else None,
            "character": {"id": post.character.pk, "name": post.character.name} if post.character else None,
            "visibility": post.visibility,
            "recipients": sorted(u.pk for u in post.recipients.all()),
            "body": post.body,
            "body_html": post.body_html,
            "reply_to": post.reply_to_id,
            "session": post.session_id,
            "created": dt.to_representation(post.created),
            "edited": dt.to_representation(post.edited) if post.edited else None,
            "hidden": post.hidden,
            "is_system": post.is_system,
            "rolls": RollSerializer(visible, many=True).data,
        }
