"""API serializers: characters, sheets, change requests (a system's own ones live in its plug-in)."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers.common import MAX_ID, UserRefSerializer
from api.serializers.systems import NullableObjectField


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
    system_name = serializers.CharField(read_only=True, help_text="The rule system's name in your language.")
    public_ranks = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        help_text="Places in the public ladders (systems with ladders); the same as `parts.public_ranks`.",
    )
    parts = serializers.DictField(
        read_only=True,
        help_text=(
            "What the system's plug-in adds, by key: its public parts for everyone who sees the character, "
            "its private parts (e.g. secret ranks) for the owner and the GMs only."
        ),
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
    balances = NullableObjectField(read_only=True, help_text="Ledger balances by currency (full representation).")
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


class PortraitSerializer(serializers.Serializer):
    portrait = serializers.ImageField(help_text="JPEG, PNG, GIF or WebP; re-encoded to 512 px.")
