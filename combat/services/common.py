"""Shared helpers of the combat writes: access, the log, the rules glue, the round cursor."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, override

import rules
from campaigns.access import can_read_forum, is_gm
from campaigns.models import Campaign
from characters.ledger import balances
from characters.models import Character
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from live.events import publish
from rules.base import (
    Combatant,
    RulesError,
    is_digits,
)
from rules.base import set_path as rules_set_path

LANGS = ("fr", "en")
MAX_PARTICIPANTS = 60
MAX_COPIES = 20


# ---------------------------------------------------------------------------
# Access
# ---------------------------------------------------------------------------
def get_encounter_for_user(user: Any, encounter_id: int) -> Encounter:
    """The encounter if the user may see its thread, else 404."""
    encounter = Encounter.objects.select_related("campaign", "thread").filter(pk=encounter_id).first()
    if encounter is None or not can_read_forum(user, encounter.campaign):
        raise Http404
    return encounter


def can_control(user: Any, participant: Participant, campaign: Campaign) -> bool:
    """GMs control everyone; a player controls the participants they control."""
    if not user.is_authenticated:
        return False
    return is_gm(user, campaign) or (participant.controller_id is not None and participant.controller_id == user.pk)


def _require_gm(user: Any, campaign: Campaign) -> None:
    if not can_read_forum(user, campaign):
        raise Http404
    if not is_gm(user, campaign):
        raise PermissionDenied(gettext("Only the GM and co-GMs can do this."))


def _lock(encounter: Encounter) -> Encounter:
    """Re-read the encounter row under a lock (``SELECT ... FOR UPDATE``)."""
    return Encounter.objects.select_for_update().select_related("campaign", "thread").get(pk=encounter.pk)


def _require_active(encounter: Encounter) -> None:
    if encounter.status != Encounter.Status.ACTIVE:
        raise ValidationError({"__all__": [gettext("The encounter is not in progress.")]})


# ---------------------------------------------------------------------------
# Messages and log
# ---------------------------------------------------------------------------
def both(msgid: str, **kwargs: Any) -> dict[str, str]:
    """A UI message translated in every language, stored in log entries."""
    out = {}
    for lang in LANGS:
        with override(lang):
            # A lazy argument (a side's label) is translated in each language too.
            args = {k: str(v) if isinstance(v, Promise) else v for k, v in kwargs.items()}
            out[lang] = gettext(msgid) % args if args else gettext(msgid)
    return out


def _append(
    encounter: Encounter,
    kind: str,
    *,
    actor: Any,
    text: dict[str, str],
    detail: dict[str, Any] | None = None,
    public: dict[str, Any] | None = None,
    participant: Participant | None = None,
    gm_only: bool = False,
    corrects: LogEntry | None = None,
    round_changed: bool = False,
    roll: Any = None,
) -> LogEntry:
    """Append one log entry to a LOCKED encounter and notify its viewers.

    ``public`` is what every viewer sees (``text`` is always in it).
    """
    encounter.last_sequence += 1
    Encounter.objects.filter(pk=encounter.pk).update(last_sequence=encounter.last_sequence)
    entry = LogEntry.objects.create(
        encounter=encounter,
        sequence=encounter.last_sequence,
        round_number=encounter.round_number,
        kind=kind,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        participant=participant,
        public={"text": text, **(public or {})},
        detail={"text": text, **(detail or {})},
        gm_only=gm_only,
        corrects=corrects,
        roll=roll,
    )
    data = {"sequence": entry.sequence, "round": encounter.round_number}
    publish(encounter.channel, "combat-updated", data, gms_only=gm_only)
    if round_changed:
        publish(encounter.channel, "combat-round", data)
    return entry


# ---------------------------------------------------------------------------
# Rules glue
# ---------------------------------------------------------------------------
def system_for(encounter: Encounter) -> rules.base.RuleSystem:
    return rules.get_system(encounter.campaign.system)


def _settings(encounter: Encounter) -> dict[str, Any]:
    return encounter.campaign.system_settings or {}


def initial_state(
    system: rules.base.RuleSystem, sheet: dict[str, Any], settings: dict[str, Any], character: Character | None
) -> dict[str, Any]:
    """The system's combat state, given the character's ledger balances (``None`` for a quick NPC)."""
    if character is None:
        return system.combat_state(sheet, settings)
    return system.combat_state(sheet, settings, balances=balances(character))


def combatant(participant: Participant) -> Combatant:
    """The rules' view of a participant."""
    return Combatant(
        id=str(participant.pk),
        name=participant.name,
        side=participant.side,
        sheet=participant.current_sheet(),
        state=participant.state,
        is_npc=participant.is_npc,
    )


def _rules_errors(exc: RulesError, lang: str | None = None) -> ValidationError:
    lang = lang or get_language() or "fr"
    errors: dict[str, list[str]] = {}
    for err in exc.errors:
        errors.setdefault(err.path or "__all__", []).append(err.message.get(lang))
    return ValidationError(errors)


def _apply_changes(
    encounter: Encounter, changes: Iterable[dict[str, Any]], *, reverse: bool = False
) -> list[dict[str, Any]]:
    """Apply ``[{participant_id, path, before, after}]`` to participants' state.

    ``reverse`` writes ``before`` (a correcting entry). Returns the changes
    applied, with the participant's name.
    """
    changes = list(changes)
    ids = {int(c["participant_id"]) for c in changes if is_digits(str(c.get("participant_id", "")))}
    participants = {p.pk: p for p in Participant.objects.filter(encounter=encounter, pk__in=ids)}
    applied = []
    for change in changes:
        pid = str(change.get("participant_id", ""))
        participant = participants.get(int(pid)) if is_digits(pid) else None
        if participant is None:
            raise ValidationError({"__all__": [gettext("A state change names an unknown participant.")]})
        value = change["before"] if reverse else change["after"]
        rules_set_path(participant.state, change["path"], value)
        applied.append({**change, "name": participant.name})
    for participant in participants.values():
        participant.save(update_fields=["state"])
    return applied


def _visible_ids(encounter: Encounter) -> set[str]:
    return {str(pk) for pk in encounter.participants.filter(stats_visible=True).values_list("pk", flat=True)}


def _side_label(side: str) -> Any:
    """The side's label, lazy: ``both()`` writes it in each language."""
    return Participant.Side(side).label


def _lang() -> str:
    return get_language() or "fr"


def _pending_ids(current: Round) -> set[str]:
    return {
        str(pid)
        for pid in current.declarations.filter(status=Declaration.Status.PENDING).values_list(
            "participant_id", flat=True
        )
    }


def _next_index(current: Round, start: int) -> int:
    """Index of the next initiative row with a pending declaration (or the end).

    A participant who is dead, unconscious or removed meanwhile is passed over
    (its declaration is marked skipped)."""
    pending = _pending_ids(current)
    order = current.initiative or []
    system = rules.get_system(current.encounter.campaign.system)
    out = {
        str(p.pk)
        for p in Participant.objects.filter(encounter_id=current.encounter_id)
        if not p.active or system.combat_condition(p.state or {}) != "active"
    }
    for index in range(start, len(order)):
        row = order[index]
        pid = str(row.get("id"))
        if row.get("acts", True) is False or pid not in pending:
            continue
        if pid in out:
            current.declarations.filter(participant_id=int(pid), status=Declaration.Status.PENDING).update(
                status=Declaration.Status.SKIPPED
            )
            continue
        return index
    return len(order)


def _roll_label(encounter: Encounter, what: str, **kwargs: Any) -> str:
    """The chained roll's label, in the campaign's language."""
    with override(encounter.campaign.language or "fr"):
        part = gettext(what) % kwargs if kwargs else gettext(what)
        return gettext("Combat “%(t)s”, round %(r)s: %(w)s") % {
            "t": encounter.title,
            "r": encounter.round_number,
            "w": part,
        }
