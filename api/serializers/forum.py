"""API serializers: the forum: boards, threads, posts, rolls."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from api.serializers.common import MAX_ID, UserRefSerializer
from campaigns.reads import post_view, reader_for


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
    content_withheld = serializers.BooleanField(
        read_only=True,
        help_text="A moderated post keeps its place and rolls; only the GMs and moderators read its text "
        "(then `body`, `body_html` are empty).",
    )
    is_system = serializers.BooleanField(read_only=True)
    rolls = RollSerializer(many=True, read_only=True, help_text="The rolls of the post you may see.")

    def to_representation(self, post: Any) -> dict[str, Any]:
        """The post's read model (:func:`campaigns.reads.post_view`) as JSON: what the thread page shows.

        The view passes the reader in the context (``reader``: one per request); without it, the
        request's user reads the post."""
        reader = self.context.get("reader") or reader_for(self.context["request"].user, post.thread.campaign)
        view = post_view(reader, post)
        dt = serializers.DateTimeField()
        return {
            "id": post.pk,
            "thread": post.thread_id,
            "campaign": post.campaign_id,
            "number": post.number,
            "author": UserRefSerializer(post.author).data if post.author else None,
            "character": {"id": post.character.pk, "name": post.character.name} if post.character else None,
            "visibility": post.visibility,
            "recipients": view.recipient_ids,
            "body": view.body,
            "body_html": view.body_html,
            "reply_to": post.reply_to_id if not view.content_withheld else None,
            "session": post.session_id,
            "created": dt.to_representation(post.created),
            "edited": dt.to_representation(post.edited) if post.edited else None,
            "hidden": post.hidden,
            "content_withheld": view.content_withheld,
            "is_system": post.is_system,
            "rolls": RollSerializer([rv.roll for rv in view.rolls], many=True).data,
        }


class BoardMoveSerializer(serializers.Serializer):
    offset = serializers.IntegerField(min_value=-100, max_value=100, help_text="-1: up, +1: down.")


class ReadMarkSerializer(serializers.Serializer):
    number = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Read up to this post number.")
