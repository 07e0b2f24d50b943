"""API serializers: combat: encounters, participants, declarations, log."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers.common import MAX_ID, LocalizedTextSerializer
from api.serializers.systems import NullableObjectField


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
