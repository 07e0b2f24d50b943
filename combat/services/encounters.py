"""Encounters and participants: open, add, rejoin, change side, remove, show stats, start."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext, gettext_noop

from campaigns.models import Thread
from characters.models import Character
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from combat.services.common import (
    MAX_COPIES,
    MAX_PARTICIPANTS,
    _append,
    _lang,
    _lock,
    _next_index,
    _require_gm,
    _settings,
    _side_label,
    both,
    initial_state,
    system_for,
)


# ---------------------------------------------------------------------------
# Encounters and participants
# ---------------------------------------------------------------------------
def create_encounter(user: Any, thread: Thread, *, title: str) -> Encounter:
    """The GM opens an encounter in a thread (*ouvrir une rencontre*)."""
    _require_gm(user, thread.campaign)
    title = (title or "").strip()
    if not title:
        raise ValidationError({"title": [gettext("This field is required.")]})
    if len(title) > 120:
        raise ValidationError({"title": [gettext("At most 120 characters.")]})
    with transaction.atomic():
        encounter = Encounter.objects.create(campaign=thread.campaign, thread=thread, title=title, created_by=user)
        encounter = _lock(encounter)
        _append(
            encounter, LogEntry.Kind.CREATED, actor=user, text=both(gettext_noop("Encounter opened: %(t)s"), t=title)
        )
    return encounter


def add_participant(
    user: Any,
    encounter: Encounter,
    *,
    character: Character | None = None,
    name: str = "",
    side: str | None = None,
    sheet: dict[str, Any] | None = None,
    template: Character | None = None,
    count: int = 1,
    stats_visible: bool | None = None,
    entry: str = "",
    npc: dict[str, Any] | None = None,
) -> list[Participant]:
    """Add a character of the campaign, or ``count`` quick NPCs.

    A quick NPC takes its stats from ``template`` (an NPC of the campaign),
    else from the rules' quick NPC: ``entry`` (a bestiary entry of the
    campaign's settings, by name) and ``npc`` (the stat line, by the paths of
    ``quick_npc_fields``), checked by the NPC rules and never by a player
    character's creation budget; else from ``sheet`` merged over the
    system's default sheet (demo data). Its stats stay GM-only unless
    ``stats_visible``. Errors of the stat line are keyed ``npc.<path>``.
    """
    campaign = encounter.campaign
    _require_gm(user, campaign)
    if encounter.status == Encounter.Status.ENDED:
        raise ValidationError({"__all__": [gettext("The encounter is over.")]})
    if not side:  # a player character joins the players' side; NPCs face them
        pc = character is not None and not character.is_npc
        side = Participant.Side.ALLIES if pc else Participant.Side.OPPONENTS
    if side not in Participant.Side.values:
        raise ValidationError({"side": [gettext("Choose a valid side.")]})
    if not 1 <= count <= MAX_COPIES:
        raise ValidationError({"count": [gettext("Between 1 and %(n)s copies.") % {"n": MAX_COPIES}]})
    system = system_for(encounter)
    settings = _settings(encounter)
    rows: list[dict[str, Any]] = []
    if character is not None:
        if character.campaign_id != campaign.pk:
            raise ValidationError({"character": [gettext("This character is not in the campaign.")]})
        if encounter.participants.filter(character=character, active=True).exists():
            raise ValidationError({"character": [gettext("This character already takes part.")]})
        if character.status in (Character.Status.DEAD, Character.Status.RETIRED):
            raise ValidationError({"character": [gettext("This character is no longer in play.")]})
        left = encounter.participants.filter(character=character, active=False).order_by("-pk").first()
        if left is not None:
            return [_rejoin(user, encounter, left, side)]
        rows.append(
            {
                "character": character,
                "name": character.name,
                "is_npc": character.is_npc,
                "controller": None if character.is_npc else character.owner,
                "sheet": {},
                "state": initial_state(system, character.current_sheet(), settings, character),
                "stats_visible": (not character.is_npc) if stats_visible is None else stats_visible,
            }
        )
    else:
        found = None
        if entry and template is None:
            found = next((e for e in system.bestiary(settings) if e.key == entry), None)
            if found is None:
                raise ValidationError({"entry": [gettext("Choose an entry of the bestiary.")]})
        base_name = (name or "").strip() or (template.name if template else "")
        base_name = base_name or (found.label.get(_lang()) if found else "")
        if not base_name:
            raise ValidationError({"name": [gettext("Give the NPC a name.")]})
        if len(base_name) > 90:
            raise ValidationError({"name": [gettext("At most 90 characters.")]})
        if template is not None:
            if template.campaign_id != campaign.pk or not template.is_npc:
                raise ValidationError({"template": [gettext("Choose an NPC of the campaign.")]})
            npc_sheet = dict(template.current_sheet())
        elif sheet is None:
            npc_sheet, problems = system.quick_npc_sheet(npc or {}, settings, entry=entry)
            if problems:
                errors_by_key: dict[str, list[str]] = {}
                for e in problems:
                    key = e.path if e.path == "entry" else f"npc.{e.path}"
                    errors_by_key.setdefault(key, []).append(e.message.get(_lang()))
                raise ValidationError(errors_by_key)
        else:
            npc_sheet = system.default_sheet()
            for key, value in (sheet or {}).items():
                if isinstance(value, dict) and isinstance(npc_sheet.get(key), dict):
                    npc_sheet[key] = {**npc_sheet[key], **value}
                else:
                    npc_sheet[key] = value
            # NPC rules, not a player character's creation rules (rules: validate_npc).
            errors = [e for e in system.validate_npc(npc_sheet, settings) if e.path.split(".")[0] in (sheet or {})]
            if errors:
                raise ValidationError({"sheet": [f"{e.path}: {e.message.get(_lang())}" for e in errors[:10]]})
        for index in range(count):
            rows.append(
                {
                    "character": None,
                    "name": base_name if count == 1 else f"{base_name} {index + 1}",
                    "is_npc": True,
                    "controller": None,
                    "sheet": npc_sheet,
                    "state": initial_state(system, npc_sheet, settings, None),
                    "stats_visible": bool(stats_visible),
                }
            )
    created = []
    with transaction.atomic():
        encounter = _lock(encounter)
        if encounter.participants.count() + len(rows) > MAX_PARTICIPANTS:
            raise ValidationError({"__all__": [gettext("Too many participants.")]})
        position = encounter.participants.count()
        for row in rows:
            position += 1
            participant = Participant.objects.create(encounter=encounter, side=side, position=position, **row)
            created.append(participant)
            _append(
                encounter,
                LogEntry.Kind.PARTICIPANT,
                actor=user,
                participant=participant,
                text=both(gettext_noop("%(n)s joins the fight (%(s)s)."), n=participant.name, s=_side_label(side)),
            )
    return created


def _rejoin(user: Any, encounter: Encounter, participant: Participant, side: str) -> Participant:
    """A removed participant comes back with the state it left with (recorded)."""
    with transaction.atomic():
        encounter = _lock(encounter)
        Participant.objects.filter(pk=participant.pk).update(active=True, side=side)
        participant.active, participant.side = True, side
        _append(
            encounter,
            LogEntry.Kind.PARTICIPANT,
            actor=user,
            participant=participant,
            text=both(gettext_noop("%(n)s rejoins the fight (%(s)s)."), n=participant.name, s=_side_label(side)),
        )
    return participant


def set_side(user: Any, participant: Participant, *, side: str) -> Participant:
    """The GM moves a participant to another side (recorded)."""
    encounter = participant.encounter
    _require_gm(user, encounter.campaign)
    if side not in Participant.Side.values:
        raise ValidationError({"side": [gettext("Choose a valid side.")]})
    with transaction.atomic():
        encounter = _lock(encounter)
        if encounter.status == Encounter.Status.ENDED:
            raise ValidationError({"__all__": [gettext("The encounter is over.")]})
        participant.refresh_from_db()
        if participant.side == side:
            return participant
        Participant.objects.filter(pk=participant.pk).update(side=side)
        participant.side = side
        _append(
            encounter,
            LogEntry.Kind.SIDE,
            actor=user,
            participant=participant,
            text=both(gettext_noop("%(n)s changes side: %(s)s."), n=participant.name, s=_side_label(side)),
        )
    return participant


def remove_participant(user: Any, participant: Participant, *, reason: str = "") -> Participant:
    """The GM takes a participant out of the fight (recorded; it can be added again).

    Its pending action this round is skipped; its log lines stay."""
    encounter = participant.encounter
    _require_gm(user, encounter.campaign)
    reason = (reason or "").strip()[:300]
    with transaction.atomic():
        encounter = _lock(encounter)
        participant.refresh_from_db()
        if not participant.active:
            raise ValidationError({"__all__": [gettext("This participant has left the fight.")]})
        Participant.objects.filter(pk=participant.pk).update(active=False)
        participant.active = False
        current = encounter.current_round()
        if current is not None and current.phase != Round.Phase.ENDED:
            current.declarations.filter(participant=participant, status=Declaration.Status.PENDING).update(
                status=Declaration.Status.SKIPPED
            )
            if current.phase == Round.Phase.RESOLUTION:
                current.step_index = _next_index(current, current.step_index)
                current.save(update_fields=["step_index"])
        text = (
            both(gettext_noop("%(n)s leaves the fight (%(r)s)."), n=participant.name, r=reason)
            if reason
            else both(gettext_noop("%(n)s leaves the fight."), n=participant.name)
        )
        _append(
            encounter,
            LogEntry.Kind.REMOVED,
            actor=user,
            participant=participant,
            text=text,
            detail={"reason": reason},
            public={"reason": reason},
        )
    return participant


def set_stats_visible(user: Any, participant: Participant, *, visible: bool) -> Participant:
    """Show (or hide) an NPC's state and step details to the players."""
    encounter = participant.encounter
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        Participant.objects.filter(pk=participant.pk).update(stats_visible=visible)
        participant.stats_visible = visible
        msg = (
            gettext_noop("%(n)s: state shown to the players.")
            if visible
            else gettext_noop("%(n)s: state hidden from the players.")
        )
        _append(
            encounter,
            LogEntry.Kind.ADJUST,
            actor=user,
            participant=participant,
            text=both(msg, n=participant.name),
            gm_only=True,
        )
    return participant


def start_encounter(user: Any, encounter: Encounter) -> Encounter:
    """The GM starts the fight: round 1 opens for declarations."""
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        if encounter.status != Encounter.Status.PREPARING:
            raise ValidationError({"__all__": [gettext("The encounter has already started.")]})
        if not encounter.participants.filter(active=True).exists():
            raise ValidationError({"__all__": [gettext("Add participants first.")]})
        encounter.status = Encounter.Status.ACTIVE
        encounter.round_number = 1
        encounter.save(update_fields=["status", "round_number"])
        Round.objects.create(encounter=encounter, number=1)
        _append(encounter, LogEntry.Kind.STARTED, actor=user, text=both(gettext_noop("The fight begins.")))
        _append(
            encounter,
            LogEntry.Kind.ROUND_STARTED,
            actor=user,
            text=both(gettext_noop("Round %(n)s: declare your actions."), n=1),
            round_changed=True,
        )
    return encounter
