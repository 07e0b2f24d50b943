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
        if hasattr(campaign, "gm_memberships"):  # prefetched by the directory
            gm = campaign.gm_memberships[0].user if campaign.gm_memberships else None
        else:
            membership = campaign.memberships.filter(role="gm").select_related("user__profile").first()
            gm = membership.user if membership else None
        if hasattr(campaign, "viewer_role"):  # annotated by the directory
            my_role = campaign.viewer_role
        else:
            my_role = access.role_of(user, campaign) if user is not None else None
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
            "member_count": campaign.member_count
            if getattr(campaign, "member_count", None) is not None
            else campaign.memberships.count(),
            "my_role": my_role,
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
    board = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="Move to this board of the campaign."
    )


class SheetTestRequestSerializer(serializers.Serializer):
    """A test built by the rules from the character's sheet (see the character's `sheet-tests`)."""

    test = serializers.CharField(max_length=100, help_text="The key of one of the character's sheet tests.")
    declared = serializers.DictField(
        required=False,
        default=dict,
        help_text="Inputs the test declares (its `declared` fields); a GM-only one is refused from a player. "
        "Values read from the sheet cannot be sent.",
    )


class RollRequestSerializer(serializers.Serializer):
    """One roll to make with the post: a dice expression or a test built from the character's sheet."""

    expression = serializers.CharField(max_length=200, required=False, help_text='Generic dice, e.g. "2d6+3".')
    sheet_test = SheetTestRequestSerializer(
        required=False, help_text="A test from the sheet of `character_id` (required with it)."
    )
    system_test = serializers.DictField(
        required=False,
        help_text="GMs only: a test of the campaign's system typed in full, as in its `test_kinds` (`kind` + "
        "fields). A player's test is always built from the sheet (`sheet_test`).",
    )
    label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    secret = serializers.BooleanField(required=False, default=False, help_text="Seen by you and the GMs only.")
    character_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given = [bool(attrs.get(k)) for k in ("expression", "system_test", "sheet_test")]
        if sum(given) != 1:
            raise serializers.ValidationError(
                _("Give either a dice expression or a system test."), code="expression_or_test"
            )
        if attrs.get("sheet_test") and not attrs.get("character_id"):
            raise serializers.ValidationError(
                {"character_id": [_("Choose the character whose sheet is rolled.")]}, code="required"
            )
        return attrs


class PostCreateSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=settings.TABLEE_MAX_POST_LENGTH, trim_whitespace=False)
    character = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, help_text="Speak as this character."
    )
    visibility = serializers.ChoiceField(choices=["public", "gm", "whisper"], default="public")
    recipients = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        default=list,
        max_length=50,
        help_text="User ids a whisper is for.",
    )
    roll_requests = RollRequestSerializer(many=True, required=False, default=list, max_length=10)
    client_nonce = serializers.RegexField(
        r"^[A-Za-z0-9_-]{16,128}$",
        required=False,
        allow_blank=True,
        help_text="Your share of the dice: 16 to 128 random letters, digits, - or _ (e.g. 32 hex digits from a"
        " secure random source). Without it the server picks the nonce and the rolls are marked so.",
    )
    reply_to = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, allow_null=True)


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
    fair = serializers.DictField(
        read_only=True, help_text="Fairness proof: seed, commitment, nonce (and who gave it), request digest, dice."
    )


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


# ---------------------------------------------------------------------------
# Characters
# ---------------------------------------------------------------------------
class CharacterSerializer(serializers.Serializer):
    """A character: the public part for campaign members, everything for its owner and the GMs.

    ``full`` says which: the stored ``sheet``, ``derived`` values, creation
    ``budget``, rule ``errors``, ``private_background`` and ``version`` are
    only in the full representation (they are ``null`` otherwise).
    """

    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(read_only=True)
    owner = UserRefSerializer(read_only=True, allow_null=True)
    is_npc = serializers.BooleanField(read_only=True)
    name = serializers.CharField(read_only=True)
    portrait = serializers.CharField(read_only=True, allow_null=True, help_text="URL of the portrait image.")
    public_description = serializers.CharField(read_only=True)
    system = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)
    public_ranks = serializers.ListField(
        child=serializers.DictField(), read_only=True, help_text="Ambre: places in the public ladders."
    )
    full = serializers.BooleanField(read_only=True)
    version = serializers.IntegerField(read_only=True, allow_null=True, help_text="Send it back in If-Match.")
    schema_version = serializers.IntegerField(read_only=True, allow_null=True)
    sheet = NullableObjectField(read_only=True)
    derived = NullableObjectField(read_only=True)
    budget = NullableObjectField(read_only=True)
    errors = serializers.ListField(child=serializers.DictField(), read_only=True, allow_null=True)
    valid = serializers.BooleanField(read_only=True, allow_null=True)
    private_background = serializers.CharField(read_only=True, allow_null=True)
    gm_comment = serializers.CharField(read_only=True, allow_null=True)
    created = serializers.DateTimeField(read_only=True)
    updated = serializers.DateTimeField(read_only=True)


class CharacterCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    is_npc = serializers.BooleanField(default=False)
    public_description = serializers.CharField(max_length=10000, allow_blank=True, default="")


class CharacterProfileSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False)
    public_description = serializers.CharField(max_length=10000, allow_blank=True, required=False)
    private_background = serializers.CharField(max_length=20000, allow_blank=True, required=False)
    version = serializers.IntegerField(
        min_value=1, required=False, help_text="The version you edited (or send If-Match)."
    )


class SheetWriteSerializer(serializers.Serializer):
    sheet = serializers.DictField(help_text="The whole stored sheet, as in the system's `sheet_fields`.")
    reason = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    version = serializers.IntegerField(
        min_value=1, required=False, help_text="The version you edited (or send If-Match)."
    )


class ReviewSerializer(serializers.Serializer):
    comment = serializers.CharField(max_length=5000, allow_blank=True, required=False, default="")


class CharacterStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["approved", "retired", "dead"])


class SheetVersionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    name = serializers.CharField()
    sheet = serializers.DictField()
    schema_version = serializers.IntegerField()
    status = serializers.CharField()
    author = UserRefSerializer(allow_null=True)
    reason = serializers.CharField()
    created = serializers.DateTimeField()


class CharacterExportSerializer(serializers.Serializer):
    format = serializers.CharField()
    format_version = serializers.IntegerField()
    system = serializers.CharField()
    schema_version = serializers.IntegerField()
    name = serializers.CharField()
    is_npc = serializers.BooleanField()
    public_description = serializers.CharField(allow_blank=True)
    private_background = serializers.CharField(allow_blank=True)
    sheet = serializers.DictField()


class CharacterImportSerializer(serializers.Serializer):
    data = serializers.DictField(help_text="A character export (GET /characters/{id}/export/).")


class ChangeCommentSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    author = UserRefSerializer(read_only=True, allow_null=True)
    body = serializers.CharField(max_length=5000)
    created = serializers.DateTimeField(read_only=True)


class ChangeRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    character = serializers.IntegerField(source="character_id", read_only=True)
    author = UserRefSerializer(read_only=True, allow_null=True)
    base_version = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    sheet = serializers.DictField(read_only=True)
    reason = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)
    decided_by = UserRefSerializer(read_only=True, allow_null=True)
    decided_at = serializers.DateTimeField(read_only=True, allow_null=True)
    applied_version = serializers.IntegerField(read_only=True, allow_null=True)
    created = serializers.DateTimeField(read_only=True)
    comments = ChangeCommentSerializer(many=True, read_only=True)


class ChangeRequestCreateSerializer(serializers.Serializer):
    sheet = serializers.DictField()
    name = serializers.CharField(max_length=100, required=False)
    reason = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="The version you edited (or If-Match)."
    )


class RejectSerializer(serializers.Serializer):
    comment = serializers.CharField(max_length=5000)


class AuctionSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(read_only=True)
    status = serializers.CharField(read_only=True)
    timeout_seconds = serializers.IntegerField(read_only=True, allow_null=True)
    deadline = serializers.DateTimeField(read_only=True, allow_null=True)
    characters = CharacterRefSerializer(many=True, read_only=True)
    view = serializers.DictField(
        read_only=True, help_text="The rules engine's view of the auction for you (rules.ambre.auction.view)."
    )


class AuctionActSerializer(serializers.Serializer):
    character = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Your character taking part.")
    type = serializers.ChoiceField(choices=["bid", "pass", "downgrade", "cancel_downgrade", "buy_up"])
    attribute = serializers.CharField(max_length=40, required=False)
    amount = serializers.IntegerField(required=False, min_value=-1000, max_value=1000)
    rank = serializers.IntegerField(required=False, min_value=0, max_value=1000)


class AuctionControlSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["pause", "resume", "timeout", "close", "comparison"])
    seconds = serializers.IntegerField(required=False, min_value=0, max_value=7 * 24 * 3600)
    attribute = serializers.CharField(max_length=40, required=False)
    players = serializers.ListField(child=serializers.CharField(max_length=20), required=False, max_length=2)


class AuctionOpenSerializer(serializers.Serializer):
    characters = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), min_length=1, max_length=50
    )
    mode = serializers.ChoiceField(choices=["open", "blind"], default="open")
    timeout_seconds = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=7 * 24 * 3600)


# ---------------------------------------------------------------------------
# Combat
# ---------------------------------------------------------------------------
class EncounterSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    thread = serializers.IntegerField(source="thread_id", read_only=True)
    title = serializers.CharField(max_length=120)
    status = serializers.CharField(read_only=True)
    round_number = serializers.IntegerField(read_only=True)
    last_sequence = serializers.IntegerField(read_only=True, help_text="Last combat log sequence number.")
    created = serializers.DateTimeField(read_only=True)
    ended_at = serializers.DateTimeField(read_only=True, allow_null=True)


class ParticipantSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    side = serializers.CharField()
    is_npc = serializers.BooleanField()
    character = serializers.IntegerField(allow_null=True)
    controller = serializers.IntegerField(allow_null=True, help_text="User id declaring its actions (null: GMs).")
    controlled_by_you = serializers.BooleanField()
    active = serializers.BooleanField()
    stats_visible = serializers.BooleanField()
    state = NullableObjectField(help_text="Gauges and pools; null when hidden from you (NPC stats).")
    declared = serializers.BooleanField(help_text="Has a declaration this round.")
    declaration = NullableObjectField(help_text="Its declaration, when you may see it.")
    declaration_target = serializers.IntegerField(allow_null=True)
    declaration_status = serializers.CharField(allow_null=True)
    condition = serializers.CharField(help_text="active, unconscious, dead or removed (as the rules read the state).")


class InitiativeRowSerializer(serializers.Serializer):
    participant = serializers.IntegerField()
    score = serializers.JSONField(allow_null=True)
    draws = serializers.ListField(child=serializers.IntegerField())
    status = serializers.CharField(allow_null=True)


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    phase = serializers.CharField()
    step_index = serializers.IntegerField()
    initiative = InitiativeRowSerializer(many=True)
    next_participant = serializers.IntegerField(allow_null=True)


class EncounterSerializer(EncounterSummarySerializer):
    participants = ParticipantSerializer(many=True, read_only=True)
    round = RoundSerializer(read_only=True, allow_null=True)
    gm_notes = serializers.CharField(read_only=True, allow_null=True, help_text="GMs only.")


class EncounterCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=120)


class ParticipantCreateSerializer(serializers.Serializer):
    character = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="A character of the campaign."
    )
    name = serializers.CharField(max_length=90, required=False, allow_blank=True, default="")
    side = serializers.ChoiceField(
        choices=["allies", "opponents", "neutral"],
        required=False,
        allow_null=True,
        default=None,
        help_text="Default: a player character with the players (allies), an NPC facing them (opponents).",
    )
    sheet = serializers.DictField(required=False, help_text="Quick NPC stats merged over the system's defaults.")
    template = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="An NPC of the campaign to copy."
    )
    count = serializers.IntegerField(min_value=1, max_value=20, default=1)
    stats_visible = serializers.BooleanField(required=False, allow_null=True, default=None)


class DeclarationSerializer(serializers.Serializer):
    data = serializers.DictField(help_text="The action, as in the system's `action_fields`.")
    target = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, allow_null=True)


class DefenceSerializer(serializers.Serializer):
    data = serializers.DictField(help_text="The defender's choices, as in the system's `defence_fields`.")


class SideSerializer(serializers.Serializer):
    side = serializers.ChoiceField(choices=["allies", "opponents", "neutral"])


class RemoveSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class DeclarationResultSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    participant = serializers.IntegerField(source="participant_id")
    target = serializers.IntegerField(source="target_id", allow_null=True)
    data = serializers.DictField()
    status = serializers.CharField()
    defence = serializers.DictField(help_text="The defender's choices (its controller and the GMs).")
    defence_status = serializers.CharField(help_text="'', pending, answered or gm.")


class StepSerializer(serializers.Serializer):
    expected_step = serializers.IntegerField(
        min_value=0, required=False, allow_null=True, help_text="The step you saw (refused if another was resolved)."
    )
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class EndRoundSerializer(serializers.Serializer):
    expected_round = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, allow_null=True)


class AdjustSerializer(serializers.Serializer):
    path = serializers.CharField(max_length=200)
    value = serializers.JSONField(help_text="A number, true/false, null or text (same type as before).")
    reason = serializers.CharField(max_length=300)


class VisibilitySerializer(serializers.Serializer):
    visible = serializers.BooleanField()


class GmNotesSerializer(serializers.Serializer):
    notes = serializers.CharField(max_length=10000, allow_blank=True)


class LogEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    sequence = serializers.IntegerField()
    round_number = serializers.IntegerField()
    kind = serializers.CharField()
    actor = serializers.IntegerField(allow_null=True)
    participant = serializers.IntegerField(allow_null=True)
    text = LocalizedTextSerializer()
    data = serializers.DictField(help_text="Public part for players; the full record (inputs, draws...) for GMs.")
    gm_only = serializers.BooleanField()
    corrects = serializers.IntegerField(allow_null=True)
    created = serializers.DateTimeField()
    sentence = serializers.CharField(help_text="What happened, in the reader's language (as on the page).")
    roll = serializers.IntegerField(allow_null=True, help_text="Sequence of the chained roll of its dice.")
    undone = serializers.BooleanField(help_text="Corrected by a later undo (its roll stays in the chain).")
    changes = serializers.ListField(child=serializers.DictField(), help_text="State changes, labelled.")
    details = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="GMs: [label, value] rows."
    )

    def to_representation(self, entry: Any) -> dict[str, Any]:
        gm = self.context.get("gm", False)
        data = dict(entry.detail if gm else entry.public)
        text = data.pop("text", None) or {}
        return {
            "id": entry.pk,
            "sequence": entry.sequence,
            "round_number": entry.round_number,
            "kind": entry.kind,
            "actor": entry.actor_id,
            "participant": entry.participant_id,
            "text": {"fr": str(text.get("fr", "")), "en": str(text.get("en", text.get("fr", "")))},
            "data": data,
            "gm_only": entry.gm_only,
            "corrects": entry.corrects_id,
            "created": serializers.DateTimeField().to_representation(entry.created),
            **_log_read_model(entry, gm),
        }


def _log_read_model(entry: Any, gm: bool) -> dict[str, Any]:
    """What the combat page shows of the entry (its one read model): the sentence in the reader's
    language, labelled changes, the chained roll, undone or not, the GMs' labelled details."""
    from combat.presenters import log_rows

    row = log_rows(entry.encounter, [entry], gm=gm)[0]
    return {key: row[key] for key in ("roll", "undone", "details", "changes")} | {"sentence": row["text"]}


# ---------------------------------------------------------------------------
# Progression: ledger, balances, awards, purchases
# ---------------------------------------------------------------------------
class LedgerEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField(source="character_id")
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    kind = serializers.CharField()
    session = serializers.IntegerField(source="session_id", allow_null=True)
    created_by = serializers.IntegerField(source="created_by_id", allow_null=True)
    created = serializers.DateTimeField()
    note = serializers.SerializerMethodField(help_text="The note in the reader's language.")
    data = serializers.DictField()
    approval = serializers.CharField()

    def get_note(self, entry: Any) -> str:
        from progression.services import entry_note

        return entry_note(entry)


class BalancesSerializer(serializers.Serializer):
    character = serializers.IntegerField()
    balances = serializers.DictField(child=serializers.IntegerField(), help_text="Sum of approved ledger entries.")
    computed = NullableObjectField(help_text="Last result of the session job (balances, flags, notes), if any.")


class AwardSuggestionSerializer(serializers.Serializer):
    code = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    kind = serializers.CharField()
    note = LocalizedTextSerializer()
    data = serializers.DictField()


class AwardRowSerializer(serializers.Serializer):
    character = CharacterRefSerializer()
    present = serializers.BooleanField()
    facts = serializers.DictField()
    suggestions = AwardSuggestionSerializer(many=True)
    amounts = serializers.DictField(child=serializers.IntegerField())
    current = serializers.DictField(child=serializers.IntegerField())
    extra = serializers.IntegerField()
    extra_note = serializers.CharField(allow_blank=True)
    errors = serializers.DictField(child=serializers.CharField())


class RecalculationRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    reason = serializers.CharField()
    revision = serializers.IntegerField()
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    error = serializers.CharField(allow_blank=True)
    created = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class SessionAwardsSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    review_status = serializers.CharField(allow_null=True)
    revision = serializers.IntegerField()
    rows = AwardRowSerializer(many=True)
    runs = RecalculationRunSerializer(many=True)


class AwardEntrySerializer(serializers.Serializer):
    present = serializers.BooleanField(default=True)
    facts = serializers.DictField(required=False, default=dict, help_text="GM facts the system asks for.")
    amounts = serializers.DictField(
        child=serializers.IntegerField(min_value=-10000, max_value=10000), required=False, default=dict
    )
    suggested = serializers.DictField(child=serializers.IntegerField(), required=False, default=dict)
    extra = serializers.IntegerField(min_value=-10000, max_value=10000, default=0)
    extra_note = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")


class AwardConfirmSerializer(serializers.Serializer):
    entries = serializers.DictField(
        child=AwardEntrySerializer(), help_text="Per character id (as a string key): presence, facts, amounts."
    )


class PurchaseSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    character = serializers.IntegerField(source="character_id", read_only=True)
    requested_by = serializers.IntegerField(source="requested_by_id", read_only=True, allow_null=True)
    kind = serializers.CharField(read_only=True)
    request = serializers.DictField(read_only=True)
    preview = serializers.DictField(read_only=True)
    status = serializers.CharField(read_only=True)
    comment = serializers.CharField(read_only=True)
    decided_by = serializers.IntegerField(source="decided_by_id", read_only=True, allow_null=True)
    decided_at = serializers.DateTimeField(read_only=True, allow_null=True)
    created = serializers.DateTimeField(read_only=True)
    change_request = serializers.IntegerField(
        source="change_request_id",
        read_only=True,
        allow_null=True,
        help_text="The character change request through which the GM decides this purchase.",
    )


class PurchaseCreateSerializer(serializers.Serializer):
    request = serializers.DictField(help_text="A purchase as in the system's `purchase_kinds` (`kind` + fields).")


class PurchaseDecisionSerializer(serializers.Serializer):
    comment = serializers.CharField(max_length=500, allow_blank=True, required=False, default="")


# ---------------------------------------------------------------------------
# Smaller actions
# ---------------------------------------------------------------------------
class BoardMoveSerializer(serializers.Serializer):
    offset = serializers.IntegerField(min_value=-100, max_value=100, help_text="-1: up, +1: down.")


class ReadMarkSerializer(serializers.Serializer):
    number = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Read up to this post number.")


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


class CountSerializer(serializers.Serializer):
    count = serializers.IntegerField()


class InviteLinkSerializer(serializers.Serializer):
    token = serializers.RegexField(r"^[A-Za-z0-9_-]+$", max_length=100, help_text="The link's token (URL-safe).")


class ClefsRollSerializer(serializers.Serializer):
    aspect_method = serializers.CharField(max_length=40)
    means_method = serializers.CharField(max_length=40)
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class TemplateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["race", "archetype"])
    key = serializers.CharField(max_length=80)
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class PortraitSerializer(serializers.Serializer):
    portrait = serializers.ImageField(help_text="JPEG, PNG, GIF or WebP; re-encoded to 512 px.")


class SessionResultSerializer(serializers.Serializer):
    character = CharacterRefSerializer()
    before = serializers.DictField()
    after = serializers.DictField()
    flags = serializers.ListField(child=serializers.JSONField())
    notes = serializers.ListField(child=serializers.JSONField())


class SessionAwardLineSerializer(serializers.Serializer):
    character = CharacterRefSerializer()
    code = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    kind = serializers.CharField()
    note = serializers.CharField()
    revision = serializers.IntegerField()


class SessionRecapSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    review_status = serializers.CharField(allow_null=True)
    results = SessionResultSerializer(many=True)
    awards = SessionAwardLineSerializer(many=True)
    purchases = LedgerEntrySerializer(many=True)
    runs = RecalculationRunSerializer(many=True, help_text="GMs only (empty for others).")
