"""API serializers: progression: ledger, balances, awards, purchases."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers.common import LocalizedTextSerializer
from api.serializers.forum import CharacterRefSerializer
from api.serializers.systems import NullableObjectField


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
