"""API serializers: combat: encounters, participants, declarations, log.

What a viewer reads of a fight is the combat app's one read model (:mod:`combat.presenters`):
:func:`~combat.presenters.encounter_view` (the page renders it too), its head
:func:`~combat.presenters.encounter_summary`, :func:`~combat.presenters.declaration_view` and
:func:`~combat.presenters.log_rows`. The output serializers here document that shape for the
schema and render only those functions' dicts: none reads a model field of its own.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers.common import MAX_ID, LocalizedTextSerializer
from api.serializers.systems import NullableObjectField
from combat.presenters import encounter_summary, log_rows


class EncounterSummarySerializer(serializers.Serializer):
    """An encounter in a list: :func:`combat.presenters.encounter_summary`."""

    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(source="campaign_id", read_only=True)
    thread = serializers.IntegerField(source="thread_id", read_only=True)
    title = serializers.CharField(max_length=120)
    status = serializers.CharField(read_only=True)
    round_number = serializers.IntegerField(read_only=True)
    last_sequence = serializers.IntegerField(read_only=True, help_text="Last combat log sequence number.")
    created = serializers.DateTimeField(read_only=True)
    ended_at = serializers.DateTimeField(read_only=True, allow_null=True)

    def to_representation(self, encounter: Any) -> dict[str, Any]:
        return encounter_summary(encounter)


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
    """Schema of :func:`combat.presenters.encounter_view` as the API answers it (without the log,
    which has its own paginated endpoint); the views render that function, never this class."""

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
    entry = serializers.CharField(
        max_length=90,
        required=False,
        allow_blank=True,
        default="",
        help_text="A quick NPC from this bestiary entry of the campaign (its name; see the system's `bestiary`).",
    )
    npc = serializers.DictField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A quick NPC's stat line: values by the paths of the system's `quick_npc_fields` "
        "(laid over the bestiary entry; checked by the NPC rules, not by the creation budget).",
    )
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
    """Schema of :func:`combat.presenters.declaration_view` (the views render that function)."""

    id = serializers.IntegerField()
    participant = serializers.IntegerField()
    target = serializers.IntegerField(allow_null=True)
    data = serializers.DictField(help_text="The values you may read (no GM input unless you are a GM).")
    status = serializers.CharField()
    defence = NullableObjectField(help_text="The defender's choices (its controller and the GMs; else null).")
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


class LogEntryListSerializer(serializers.ListSerializer):
    """A page of the log: the read model's rows, computed once for the page."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        entries = list(data.all() if hasattr(data, "all") else data)
        if not entries:
            return []
        rows = log_rows(entries[0].encounter, entries, gm=self.context.get("gm", False))
        return [log_entry_data(row) for row in rows]


class LogEntrySerializer(serializers.Serializer):
    """A log entry: its row of :func:`combat.presenters.log_rows` (as on the page)."""

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

    class Meta:
        list_serializer_class = LogEntryListSerializer

    def to_representation(self, entry: Any) -> dict[str, Any]:
        return log_entry_data(log_rows(entry.encounter, [entry], gm=self.context.get("gm", False))[0])


#: The keys of a log row the API answers, renamed where the API's name differs from the page's.
LOG_KEYS = {
    "id": "id",
    "sequence": "sequence",
    "round_number": "round_number",
    "kind": "kind",
    "actor": "actor",
    "participant": "participant",
    "text": "texts",
    "data": "data",
    "gm_only": "gm_only",
    "corrects": "corrects",
    "created": "created",
    "sentence": "text",
    "roll": "roll",
    "undone": "undone",
    "changes": "changes",
    "details": "details",
}


def log_entry_data(row: dict[str, Any]) -> dict[str, Any]:
    """A row of :func:`combat.presenters.log_rows` in the API's names."""
    return {key: row[source] for key, source in LOG_KEYS.items()}
