"""Every write of the combat app: one function per user action.

Each function checks permissions (``Http404`` for what the user may not
see, ``PermissionDenied`` for a visible but forbidden write,
``ValidationError`` with field errors for bad input), then writes inside
``transaction.atomic()`` with the encounter row locked
(``select_for_update``): the log sequence is bumped under that lock and a
unique ``(encounter, sequence)`` constraint backs it, so concurrent players
and GMs never lose, duplicate or reorder log entries. Live events are
published inside the transaction (sent after commit).

All rule arithmetic comes from ``rules.get_system(campaign.system)``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_noop, override

import rules
from campaigns.access import can_read_forum, is_gm
from campaigns.models import Campaign, Thread
from characters.models import Character
from combat import dice as combat_dice
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from live.events import publish
from rules.base import (
    Combatant,
    CombatResult,
    Msg,
    RandomSource,
    RecordingRandom,
    RulesError,
    fallen_sentence,
    get_path,
    is_digits,
    join_sentences,
)
from rules.base import set_path as rules_set_path

logger = logging.getLogger(__name__)

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
            out[lang] = gettext(msgid) % kwargs if kwargs else gettext(msgid)
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
    from characters.ledger import balances

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
    from django.utils.translation import get_language

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
) -> list[Participant]:
    """Add a character of the campaign, or ``count`` quick NPCs.

    A quick NPC takes its stats from ``template`` (an NPC of the campaign,
    the bestiary), else from ``sheet`` merged over the system's default
    sheet; its stats stay GM-only unless ``stats_visible``.
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
        base_name = (name or "").strip() or (template.name if template else "")
        if not base_name:
            raise ValidationError({"name": [gettext("Give the NPC a name.")]})
        if len(base_name) > 90:
            raise ValidationError({"name": [gettext("At most 90 characters.")]})
        if template is not None:
            if template.campaign_id != campaign.pk or not template.is_npc:
                raise ValidationError({"template": [gettext("Choose an NPC of the campaign.")]})
            npc_sheet = dict(template.current_sheet())
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


def _side_label(side: str) -> str:
    return str(Participant.Side(side).label)


def _lang() -> str:
    from django.utils.translation import get_language

    return get_language() or "fr"


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


# ---------------------------------------------------------------------------
# Declarations
# ---------------------------------------------------------------------------
def clean_declaration(
    system: rules.base.RuleSystem,
    data: dict[str, Any],
    *,
    gm: bool = True,
    previous: dict[str, Any] | None = None,
    fields: tuple[rules.base.Field, ...] | None = None,
) -> dict[str, Any]:
    """Validate a declaration against the system's ``action_fields()``.

    A non-GM may not set a GM-only input (``Field.audience == "gm"``): a value
    other than the field's default, or than what the GM already set on this
    declaration (``previous``, kept as it is), is refused with a field error.
    """
    from rules.base import gm_only_paths, validate_fields

    fields = system.action_fields() if fields is None else fields
    known = {f.path.split(".")[0] for f in fields}  # dotted paths are nested (``spell.nature``)
    cleaned = {k: v for k, v in (data or {}).items() if k in known}
    if not gm:
        previous = previous or {}
        defaults = {f.path: f.default for f in fields}
        refused: dict[str, list[str]] = {}
        for path in gm_only_paths(fields):
            value = cleaned.pop(path, None)
            if value not in (None, "", defaults.get(path), previous.get(path)):
                refused[path] = [gettext("Only the GM can set this value.")]
            elif path in previous:
                cleaned[path] = previous[path]  # what the GM set stays as it is
        if refused:
            raise ValidationError(refused)
    errors = validate_fields(cleaned, fields)
    if errors:
        raise _rules_errors(RulesError(errors))
    return cleaned


def _check_options(options: dict[str, tuple[tuple[str, Any], ...]], cleaned: dict[str, Any]) -> None:
    """A player's value for an input the sheet gives choices for must be one of them."""
    errors = {}
    for path, choices in options.items():
        value = get_path(cleaned, path)
        if value in (None, ""):
            continue
        if str(value) not in {str(v) for v, _label in choices}:
            errors[path] = [gettext("Choose one of your character's options.")]
    if errors:
        raise ValidationError(errors)


def declare_action(
    user: Any, participant: Participant, *, data: dict[str, Any], target: Participant | None = None
) -> Declaration:
    """A controller declares (or changes) a participant's action for the round.

    Hidden from the other players until the GM reveals the declarations.
    """
    encounter = participant.encounter
    campaign = encounter.campaign
    if not can_read_forum(user, campaign):
        raise Http404
    if not can_control(user, participant, campaign):
        raise PermissionDenied(gettext("You do not control this participant."))
    if target is not None and target.encounter_id != encounter.pk:
        raise ValidationError({"target": [gettext("Choose a participant of this encounter.")]})
    previous = (
        Declaration.objects.filter(participant=participant, round__number=encounter.round_number)
        .values_list("data", flat=True)
        .first()
    )
    system = system_for(encounter)
    gm = is_gm(user, campaign)
    cleaned = clean_declaration(system, data, gm=gm, previous=previous)
    if not gm:
        _check_options(
            system.action_options(participant.current_sheet(), participant.state or {}, _settings(encounter)), cleaned
        )
    errors = system.validate_action(
        participant.current_sheet(),
        cleaned,
        target.current_sheet() if target is not None else None,
        campaign.system_settings or {},
    )
    if errors:  # e.g. a skill the character does not have (rules decide)
        raise _rules_errors(RulesError(errors))
    with transaction.atomic():
        encounter = _lock(encounter)
        _require_active(encounter)
        current = encounter.current_round()
        if current is None or current.phase != Round.Phase.DECLARATION:
            raise ValidationError(
                {"__all__": [gettext("Declarations are closed for this round: the GM has revealed them.")]}
            )
        participant.refresh_from_db()
        if not participant.active:
            raise ValidationError({"__all__": [gettext("This participant has left the fight.")]})
        if system_for(encounter).combat_condition(participant.state or {}) != "active":
            raise ValidationError({"__all__": [gettext("This participant is out of the fight.")]})
        declaration, created = Declaration.objects.update_or_create(
            round=current,
            participant=participant,
            defaults={"data": cleaned, "target": target, "declared_by": user, "status": Declaration.Status.PENDING},
        )
        msg = (
            gettext_noop("%(n)s has declared an action.")
            if created
            else gettext_noop("%(n)s has changed their declaration.")
        )
        _append(
            encounter,
            LogEntry.Kind.DECLARED,
            actor=user,
            participant=participant,
            text=both(msg, n=participant.name),
            detail={"declaration": cleaned, "target": target.pk if target else None},
        )
    return declaration


def reveal_declarations(user: Any, encounter: Encounter, *, rng: RandomSource | None = None) -> Round:
    """The GM reveals the round's declarations and the rules compute initiative."""
    _require_gm(user, encounter.campaign)
    system = system_for(encounter)
    with transaction.atomic():
        encounter = _lock(encounter)
        _require_active(encounter)
        current = encounter.current_round()
        if current is None or current.phase != Round.Phase.DECLARATION:
            raise ValidationError({"__all__": [gettext("The declarations are already revealed.")]})
        participants = list(encounter.participants.filter(active=True))
        declarations = {
            str(d.participant_id): {**d.data, "target": str(d.target_id) if d.target_id else None}
            for d in current.declarations.all()
        }
        if not declarations:
            raise ValidationError({"__all__": [gettext("Nobody has declared an action yet.")]})
        roll_request = {"encounter": encounter.pk, "round": current.number, "draw": "initiative"}
        recorder = combat_dice.source(encounter.campaign, rng, request=roll_request)
        try:
            order = system.initiative(
                [combatant(p) for p in participants], declarations, recorder, _settings(encounter)
            )
        except RulesError as exc:
            raise _rules_errors(exc) from exc
        order = [dict(row) for row in order]
        # Round-start state changes the rules attach to initiative rows (e.g. counters reset).
        changes = [c for row in order for c in row.get("state_changes", []) or []]
        if changes:
            _apply_changes(encounter, changes)
        _ask_defences(user, encounter, system, current, participants)
        current.initiative = order
        current.phase = Round.Phase.RESOLUTION
        current.step_index = _next_index(current, 0)
        current.save(update_fields=["initiative", "phase", "step_index"])
        names = {str(p.pk): p.name for p in participants}
        # A score that is a secret sheet value (rules: "initiative" in private_state_keys) stays out of the log.
        secret_score = "initiative" in system.private_state_keys()
        visible_npcs = _visible_ids(encounter) & {str(p.pk) for p in participants if p.is_npc or not secret_score}
        public_order = [
            {
                "id": row["id"],
                "name": names.get(str(row["id"]), "?"),
                "score": row.get("score") if str(row["id"]) in visible_npcs else None,
                "draws": row.get("draws", []),
            }
            for row in order
        ]
        text = both(gettext_noop("Declarations revealed. Order: %(o)s."), o=", ".join(r["name"] for r in public_order))
        roll = combat_dice.record(
            encounter.campaign,
            recorder,
            roller=user,
            label=_roll_label(encounter, gettext_noop("initiative")),
            request=roll_request,
            summary=text,
        )
        _append(
            encounter,
            LogEntry.Kind.INITIATIVE,
            actor=user,
            roll=roll,
            text=text,
            public={"order": public_order, "draws": recorder.draws},
            detail={"order": order, "draws": recorder.draws, "dice": recorder.dice, "declarations": declarations},
            round_changed=True,
        )
    return current


def defence_delay() -> timedelta:
    """How long a defender has to choose before a GM may decide for them (forum pace)."""
    import os

    from django.conf import settings as django_settings

    minutes = getattr(django_settings, "TABLEE_COMBAT_DEFENCE_MINUTES", None)
    if minutes is None:
        minutes = os.environ.get("TABLEE_COMBAT_DEFENCE_MINUTES", "") or 24 * 60
    try:
        return timedelta(minutes=max(0, int(minutes)))
    except (TypeError, ValueError):
        return timedelta(minutes=24 * 60)


def defence_fields_for(system: rules.base.RuleSystem, declaration: Declaration) -> tuple[rules.base.Field, ...]:
    if declaration.target is None:
        return ()
    return system.defence_fields(
        dict(declaration.data), combatant(declaration.participant), combatant(declaration.target)
    )


def _ask_defences(
    user: Any, encounter: Encounter, system: rules.base.RuleSystem, current: Round, participants: list[Participant]
) -> None:
    """Ask each player-controlled target for the choices the rules give the defender."""
    now = timezone.now()
    for declaration in current.declarations.select_related("participant", "target"):
        target = declaration.target
        if target is None or target.controller_id is None or not target.active:
            continue
        if not defence_fields_for(system, declaration):
            continue
        declaration.defence_status = "pending"
        declaration.defence_asked = now
        declaration.save(update_fields=["defence_status", "defence_asked"])
        from rhythm import loop

        loop.reaction_needed(user, encounter, target)
        _append(
            encounter,
            LogEntry.Kind.DECLARED,
            actor=user,
            participant=target,
            text=both(
                gettext_noop("%(a)s acts against %(t)s: %(t)s chooses how to defend."),
                a=declaration.participant.name,
                t=target.name,
            ),
        )


def choose_defence(user: Any, declaration: Declaration, *, data: dict[str, Any]) -> Declaration:
    """The target's controller chooses its defence against a declared action (a GM may decide
    once :func:`defence_delay` has passed). GM-only inputs are refused from a player."""
    encounter = declaration.round.encounter
    campaign = encounter.campaign
    if not can_read_forum(user, campaign):
        raise Http404
    target = declaration.target
    gm = is_gm(user, campaign)
    if target is None or not (gm or (target.controller_id is not None and target.controller_id == user.pk)):
        raise PermissionDenied(gettext("This choice belongs to the defender."))
    system = system_for(encounter)
    with transaction.atomic():
        encounter = _lock(encounter)
        declaration.refresh_from_db()
        if declaration.defence_status != "pending":
            raise ValidationError({"__all__": [gettext("No defence is awaited here.")]})
        own = target.controller_id == user.pk
        if (
            gm
            and not own
            and declaration.defence_asked
            and timezone.now() < declaration.defence_asked + defence_delay()
        ):
            raise ValidationError(
                {"__all__": [gettext("The defender still has time to choose: a GM may decide after the delay.")]}
            )
        fields = defence_fields_for(system, declaration)
        cleaned = clean_declaration(system, data, gm=gm, fields=fields)
        if not gm:
            _check_options(
                system.action_options(target.current_sheet(), target.state or {}, _settings(encounter), defending=True),
                cleaned,
            )
        declaration.defence = cleaned
        declaration.defence_status = "answered" if own else "gm"
        declaration.save(update_fields=["defence", "defence_status"])
        _append(
            encounter,
            LogEntry.Kind.DECLARED,
            actor=user,
            participant=target,
            text=both(
                gettext_noop("%(t)s has chosen how to defend.")
                if own
                else gettext_noop("The GM has chosen %(t)s's defence."),
                t=target.name,
            ),
            detail={"defence": cleaned, "declaration_id": declaration.pk},
        )
    return declaration


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


# ---------------------------------------------------------------------------
# Resolution
# ---------------------------------------------------------------------------
def _resolution_round(encounter: Encounter, expected_step: int | None) -> Round:
    _require_active(encounter)
    current = encounter.current_round()
    if current is None or current.phase != Round.Phase.RESOLUTION:
        raise ValidationError({"__all__": [gettext("Reveal the declarations first.")]})
    if expected_step is not None and expected_step != current.step_index:
        raise ValidationError(
            {"__all__": [gettext("This step was already resolved by someone else: the page now shows the new state.")]}
        )
    if current.step_index >= len(current.initiative or []):
        raise ValidationError({"__all__": [gettext("Every declared action is resolved: end the round.")]})
    return current


def resolve_next_step(
    user: Any, encounter: Encounter, *, expected_step: int | None = None, rng: RandomSource | None = None
) -> LogEntry:
    """Resolve the next action in initiative order through the rules.

    The result (inputs, draws, outcome, state changes) is appended to the log
    and the state changes applied to the participants in one transaction.
    ``expected_step`` (the step the GM saw) makes a second, concurrent click
    fail with a clear message instead of resolving another step.
    """
    _require_gm(user, encounter.campaign)
    system = system_for(encounter)
    with transaction.atomic():
        encounter = _lock(encounter)
        current = _resolution_round(encounter, expected_step)
        index = current.step_index
        row = current.initiative[index]
        declaration = current.declarations.select_related("participant", "target").get(participant_id=int(row["id"]))
        actor = declaration.participant
        target = declaration.target
        if declaration.defence_status == "pending":
            until = (declaration.defence_asked or timezone.now()) + defence_delay()
            raise ValidationError(
                {
                    "__all__": [
                        gettext("Waiting for %(t)s to choose a defence (a GM may decide from %(d)s).")
                        % {
                            "t": target.name if target else "?",
                            "d": date_format(timezone.localtime(until), "SHORT_DATETIME_FORMAT"),
                        }
                    ]
                }
            )
        roll_request = {"encounter": encounter.pk, "round": current.number, "step": index, "actor": actor.name}
        recorder = combat_dice.source(encounter.campaign, rng, request=roll_request)
        actor_c = combatant(actor)
        target_c = combatant(target) if target is not None else None
        try:
            result: CombatResult = system.resolve_action(
                actor_c, target_c, {**declaration.data, **(declaration.defence or {})}, recorder, _settings(encounter)
            )
        except RulesError as exc:
            raise _rules_errors(exc) from exc
        changes = [c.to_dict() for c in result.state_changes]
        before = _conditions(system, encounter, {int(c["participant_id"]) for c in changes})
        applied = _apply_changes(encounter, changes)
        fallen = _fallen(system, encounter, before)
        public_sentence = join_sentences(system.public_outcome(result, actor_c, target_c), *fallen)
        declaration.status = Declaration.Status.RESOLVED
        declaration.save(update_fields=["status"])
        current.step_index = _next_index(current, index + 1)
        current.save(update_fields=["step_index"])
        record = _step_record(encounter, result, applied, recorder, actor, target, index, declaration, public_sentence)
        roll = combat_dice.record(
            encounter.campaign,
            recorder,
            roller=user,
            label=_roll_label(encounter, gettext_noop("step %(n)s"), n=index + 1),
            request=roll_request,
            summary=record["text"],
            character=actor.character,
        )
        entry = _append(encounter, LogEntry.Kind.STEP, actor=user, participant=actor, roll=roll, **record)
        _carry(user, encounter, entry, {int(c["participant_id"]) for c in changes})
    return entry


def _roll_label(encounter: Encounter, what: str, **kwargs: Any) -> str:
    """The chained roll's label, in the campaign's language."""
    with override(encounter.campaign.language or "fr"):
        part = gettext(what) % kwargs if kwargs else gettext(what)
        return gettext("Combat “%(t)s”, round %(r)s: %(w)s") % {
            "t": encounter.title,
            "r": encounter.round_number,
            "w": part,
        }


def _carry(user: Any, encounter: Encounter, entry: LogEntry, ids: Iterable[int]) -> list[LogEntry]:
    """Carry the lasting marks of ``entry`` (wounds, pools, fatigue, handicaps, death) to the sheets
    of the characters involved, each as a recorded sheet version naming the log entry."""
    from characters.outcomes import carry_result

    system = system_for(encounter)
    settings = _settings(encounter)
    lang = encounter.campaign.language or "fr"
    with override(lang):
        reason = gettext("from combat #%(e)s “%(t)s”, entry %(s)s") % {
            "e": encounter.pk,
            "t": encounter.title[:80],
            "s": entry.sequence,
        }
    carried = []
    rows = Participant.objects.filter(encounter=encounter, pk__in=set(ids), character__isnull=False).select_related(
        "character"
    )
    for participant in rows:
        character = participant.character
        assert character is not None
        sheet = system.carry_combat_state(character.current_sheet(), participant.state or {}, settings)
        dead = system.combat_condition(participant.state or {}) == "dead"
        updated = carry_result(user, character, sheet=sheet, dead=dead, reason=reason)
        if updated is None:
            continue
        message = (
            gettext_noop("%(n)s is dead: the sheet says so (version %(v)s).")
            if updated.status == Character.Status.DEAD and character.status != Character.Status.DEAD
            else gettext_noop("%(n)s's sheet carries the fight's marks (version %(v)s).")
        )
        carried.append(
            _append(
                encounter,
                LogEntry.Kind.CARRIED,
                actor=user,
                participant=participant,
                text=both(message, n=participant.name, v=updated.version),
                detail={"character": character.pk, "version": updated.version, "from_entry": entry.sequence},
                public={"character": character.pk, "version": updated.version, "from_entry": entry.sequence},
                corrects=None,
            )
        )
    return carried


def _conditions(system: rules.base.RuleSystem, encounter: Encounter, ids: set[int]) -> dict[int, tuple[str, str]]:
    """``{participant id: (name, condition)}`` of the given participants, fresh from the database."""
    rows = Participant.objects.filter(encounter=encounter, pk__in=ids)
    return {p.pk: (p.name, system.combat_condition(p.state or {})) for p in rows}


def _fallen(system: rules.base.RuleSystem, encounter: Encounter, before: dict[int, tuple[str, str]]) -> list[Msg]:
    """The rules' sentences for whoever just died or fell unconscious."""
    after = _conditions(system, encounter, set(before))
    out = []
    for pk, (name, condition) in after.items():
        if condition != before.get(pk, ("", "active"))[1]:
            msg = fallen_sentence(name, condition)
            if msg is not None:
                out.append(msg)
    return out


def _step_record(
    encounter: Encounter,
    result: CombatResult,
    applied: list[dict[str, Any]],
    recorder: RecordingRandom,
    actor: Participant,
    target: Participant | None,
    index: int,
    declaration: Declaration,
    public_sentence: Msg,
) -> dict[str, Any]:
    """Split a step into what the GMs see and what every viewer sees.

    Every viewer reads the rules' public sentence (:meth:`RuleSystem.public_outcome`,
    no hidden value), the dice and the changes of the participants whose state
    they may see. The rules' full summary, inputs and outcome (which quote values
    such as an NPC's characteristics) are the GMs'.
    """
    visible = _visible_ids(encounter)
    text = public_sentence.to_dict()
    detail = {
        "result": result.to_dict(),
        "changes": applied,
        "draws": recorder.draws,
        "dice": recorder.dice,
        "step": index,
        "declaration_id": declaration.pk,
        "target": target.pk if target else None,
        "public_text": text,
        "text": result.summary.to_dict(),
    }
    public = {"draws": recorder.draws, "changes": public_changes(encounter, applied, visible)}
    return {"text": text, "public": public, "detail": detail}


def public_changes(
    encounter: Encounter, applied: list[dict[str, Any]], visible: set[str] | None = None
) -> list[dict[str, Any]]:
    """The state changes every viewer may read: of participants whose state is shown, and only
    values the rules show to others (:meth:`RuleSystem.combat_state_for_others`)."""
    system = system_for(encounter)
    visible = _visible_ids(encounter) if visible is None else visible
    npcs = {str(pk) for pk in encounter.participants.filter(is_npc=True).values_list("pk", flat=True)}
    out = []
    for change in applied:
        pid = str(change.get("participant_id"))
        if pid not in visible:
            continue
        top = str(change.get("path", "")).split(".")[0]
        if pid in npcs:
            shown = top not in system.currencies
        else:
            shown = top in system.combat_state_for_others({top: change.get("after")})
        if shown:
            out.append(change)
    return out


def resolve_round(user: Any, encounter: Encounter, *, rng: RandomSource | None = None) -> list[LogEntry]:
    """Resolve every remaining step automatically (stops at the first rules error)."""
    _require_gm(user, encounter.campaign)
    entries: list[LogEntry] = []
    while _steps_left(encounter):
        try:
            entries.append(resolve_next_step(user, encounter, rng=rng))
        except ValidationError:
            if _steps_left(encounter):
                raise  # a rules error: the GM decides (skip, adjust, undo)
            break  # another GM resolved the last steps meanwhile
    if not entries:
        raise ValidationError({"__all__": [gettext("Nothing left to resolve.")]})
    return entries


def _steps_left(encounter: Encounter) -> bool:
    """Whether the current round still has actions to resolve (fresh from the database)."""
    number = Encounter.objects.filter(pk=encounter.pk).values_list("round_number", flat=True).first()
    current = Round.objects.filter(encounter_id=encounter.pk, number=number).first()
    return bool(
        current is not None
        and current.phase == Round.Phase.RESOLUTION
        and current.step_index < len(current.initiative or [])
    )


def skip_step(user: Any, encounter: Encounter, *, expected_step: int | None = None, reason: str = "") -> LogEntry:
    """The GM passes over the next action (e.g. the rules refused it)."""
    _require_gm(user, encounter.campaign)
    reason = (reason or "").strip()[:300]
    with transaction.atomic():
        encounter = _lock(encounter)
        current = _resolution_round(encounter, expected_step)
        index = current.step_index
        row = current.initiative[index]
        declaration = current.declarations.select_related("participant").get(participant_id=int(row["id"]))
        declaration.status = Declaration.Status.SKIPPED
        declaration.save(update_fields=["status"])
        current.step_index = _next_index(current, index + 1)
        current.save(update_fields=["step_index"])
        name = declaration.participant.name
        text = (
            both(gettext_noop("%(n)s: action skipped (%(r)s)."), n=name, r=reason)
            if reason
            else both(gettext_noop("%(n)s: action skipped."), n=name)
        )
        entry = _append(
            encounter,
            LogEntry.Kind.SKIP,
            actor=user,
            participant=declaration.participant,
            text=text,
            detail={"step": index, "declaration_id": declaration.pk, "reason": reason},
        )
    return entry


# ---------------------------------------------------------------------------
# GM corrections
# ---------------------------------------------------------------------------
def parse_value(raw: str) -> Any:
    """A typed value from a form: integer, true/false, null, or text."""
    from config import jsonlimits

    raw = (raw or "").strip()
    if raw.lower() in ("true", "vrai", "oui", "yes"):
        return True
    if raw.lower() in ("false", "faux", "non", "no"):
        return False
    try:
        value = jsonlimits.loads(raw)
    except ValueError:
        return raw
    return value


def adjust_value(user: Any, participant: Participant, *, path: str, value: Any, reason: str) -> LogEntry:
    """The GM sets a state value with a reason (recorded, undoable).

    ``path`` is a dotted path that must already exist in the state and keep
    its type (a number stays a number).
    """
    encounter = participant.encounter
    _require_gm(user, encounter.campaign)
    reason = (reason or "").strip()
    errors: dict[str, list[str]] = {}
    if not reason:
        errors["reason"] = [gettext("Give a reason: it is recorded in the log.")]
    elif len(reason) > 300:
        errors["reason"] = [gettext("At most 300 characters.")]
    path = (path or "").strip()
    sentinel = object()
    before = get_path(participant.state, path, sentinel) if path else sentinel
    if before is sentinel:
        errors["path"] = [gettext("Unknown state value.")]
    elif isinstance(before, dict | list):
        errors["path"] = [gettext("Choose a single value, not a group.")]
    elif isinstance(before, bool) and not isinstance(value, bool):
        errors["value"] = [gettext("Expected yes or no.")]
    elif (
        isinstance(before, int)
        and not isinstance(before, bool)
        and (not isinstance(value, int) or isinstance(value, bool))
    ):
        errors["value"] = [gettext("Enter a whole number.")]
    elif isinstance(value, dict | list):
        errors["value"] = [gettext("Enter a single value.")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        encounter = _lock(encounter)
        if encounter.status == Encounter.Status.ENDED:
            raise ValidationError({"__all__": [gettext("The encounter is over.")]})
        participant.refresh_from_db()
        before = get_path(participant.state, path)
        system = system_for(encounter)
        was = _conditions(system, encounter, {participant.pk})
        change = {"participant_id": str(participant.pk), "path": path, "before": before, "after": value}
        applied = _apply_changes(encounter, [change])
        labels = system.combat_value_labels()
        text = {}
        for lang in LANGS:
            label = labels[path].get(lang) if path in labels else path
            with override(lang):
                text[lang] = gettext("%(n)s: %(p)s %(b)s → %(a)s (%(r)s).") % {
                    "n": participant.name,
                    "p": label,
                    "b": _shown_value(before, lang),
                    "a": _shown_value(value, lang),
                    "r": reason,
                }
        fallen = _fallen(system, encounter, was)
        shown = public_changes(encounter, applied)
        # An NPC's values, karma/experience balances and what the rules keep from others are GM-only.
        gm_only = not shown
        if fallen and not gm_only:
            text = {lang: " ".join([text[lang], *(m.get(lang) for m in fallen)]) for lang in LANGS}
        entry = _append(
            encounter,
            LogEntry.Kind.ADJUST,
            actor=user,
            participant=participant,
            text=text,
            public={"changes": shown, "reason": reason},
            detail={"changes": applied, "reason": reason},
            gm_only=gm_only,
        )
        if fallen and gm_only:  # everyone sees who falls, not the hidden value
            _append(
                encounter,
                LogEntry.Kind.ADJUST,
                actor=user,
                participant=participant,
                text=join_sentences(*fallen).to_dict(),
            )
        _carry(user, encounter, entry, {participant.pk})
    return entry


def _shown_value(value: Any, lang: str) -> str:
    """A state value in words (yes/no, a dash for nothing), never a Python repr."""
    with override(lang):
        if isinstance(value, bool):
            return gettext("yes") if value else gettext("no")
        if value is None or value == "":
            return "—"
        return str(value)


UNDOABLE = (LogEntry.Kind.STEP, LogEntry.Kind.SKIP, LogEntry.Kind.ADJUST)


def undo_last_step(user: Any, encounter: Encounter) -> LogEntry:
    """Undo the latest step, skip or adjustment of the current round.

    The log is never rewritten: a correcting entry restores the previous
    values and points at the entry it corrects.
    """
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        _require_active(encounter)
        corrected = set(
            LogEntry.objects.filter(encounter=encounter, kind=LogEntry.Kind.UNDO).values_list("corrects_id", flat=True)
        )
        candidate = _last_undoable(encounter, corrected)
        if candidate is None:
            raise ValidationError({"__all__": [gettext("Nothing to undo in this round.")]})
        current = encounter.current_round()
        changes = candidate.detail.get("changes", [])
        if changes:
            _apply_changes(encounter, changes, reverse=True)
        if candidate.kind in (LogEntry.Kind.STEP, LogEntry.Kind.SKIP):
            if current is None or current.phase != Round.Phase.RESOLUTION:
                raise ValidationError({"__all__": [gettext("This round is no longer being resolved.")]})
            Declaration.objects.filter(pk=candidate.detail.get("declaration_id")).update(
                status=Declaration.Status.PENDING
            )
            current.step_index = int(candidate.detail.get("step", 0))
            current.save(update_fields=["step_index"])
        entry = _append(
            encounter,
            LogEntry.Kind.UNDO,
            actor=user,
            participant=candidate.participant,
            text=both(gettext_noop("Undone: entry #%(s)s."), s=candidate.sequence),
            public={"changes": [c for c in candidate.public.get("changes", [])]},
            detail={"changes": [{**c, "before": c["after"], "after": c["before"]} for c in changes]},
            gm_only=candidate.gm_only,
            corrects=candidate,
        )
        _carry(user, encounter, entry, {int(c["participant_id"]) for c in changes})
    return entry


def _last_undoable(encounter: Encounter, corrected: set[int]) -> LogEntry | None:
    rows = LogEntry.objects.filter(
        encounter=encounter, round_number=encounter.round_number, kind__in=UNDOABLE
    ).order_by("-sequence")
    for row in rows:
        if row.pk in corrected:
            continue
        if row.kind == LogEntry.Kind.ADJUST and not row.detail.get("changes"):
            continue  # visibility toggles are not value changes
        return row
    return None


# ---------------------------------------------------------------------------
# Rounds and the end of the fight
# ---------------------------------------------------------------------------
def round_summary(encounter: Encounter, number: int, lang: str) -> str:
    """A public summary of a round (what every member may read)."""
    lines = []
    entries = LogEntry.objects.filter(
        encounter=encounter,
        round_number=number,
        gm_only=False,
        kind__in=(
            LogEntry.Kind.INITIATIVE,
            LogEntry.Kind.STEP,
            LogEntry.Kind.SKIP,
            LogEntry.Kind.ADJUST,
            LogEntry.Kind.UNDO,
        ),
    ).order_by("sequence")
    for entry in entries:
        text = entry.public.get("text") or {}
        lines.append(f"- {text.get(lang) or text.get('fr', '')}")
    with override(lang):
        title = gettext("Fight “%(t)s”, round %(n)s") % {"t": encounter.title, "n": number}
        if not lines:
            lines.append("- " + gettext("Nothing happened."))
    return f"**{title}**\n\n" + "\n".join(lines)


def _post_summary(user: Any, encounter: Encounter, body: str) -> int | None:
    """Post a system message to the encounter's thread (campaigns' service)."""
    try:
        from campaigns.services import create_post
    except ImportError:  # the campaigns service is not there yet
        logger.warning("combat: campaigns.services.create_post is missing; round summary not posted")
        return None
    try:
        with transaction.atomic():
            post = create_post(user, encounter.thread, body=body, system_message=True)
    except (PermissionDenied, ValidationError, Http404):
        logger.warning("combat: round summary refused for encounter %s", encounter.pk, exc_info=True)
        return None
    return getattr(post, "pk", None)


def end_round(user: Any, encounter: Encounter, *, expected_round: int | None = None) -> Round:
    """End the round: pending actions are skipped, a summary is posted to the
    thread and the next round opens for declarations."""
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        _require_active(encounter)
        if expected_round is not None and expected_round != encounter.round_number:
            raise ValidationError({"__all__": [gettext("This round was already ended by someone else.")]})
        current = _close_round(user, encounter)
        encounter.round_number = current.number + 1
        encounter.save(update_fields=["round_number"])
        following = Round.objects.create(encounter=encounter, number=encounter.round_number)
        _append(
            encounter,
            LogEntry.Kind.ROUND_STARTED,
            actor=user,
            text=both(gettext_noop("Round %(n)s: declare your actions."), n=following.number),
            round_changed=True,
        )
    return following


def _close_round(user: Any, encounter: Encounter) -> Round:
    current = encounter.current_round()
    assert current is not None
    current.declarations.filter(status=Declaration.Status.PENDING).update(status=Declaration.Status.SKIPPED)
    current.phase = Round.Phase.ENDED
    current.ended = timezone.now()
    _append(
        encounter, LogEntry.Kind.ROUND_ENDED, actor=user, text=both(gettext_noop("Round %(n)s ends."), n=current.number)
    )
    current.summary_post_id = _post_summary(
        user, encounter, round_summary(encounter, current.number, encounter.campaign.language or "fr")
    )
    current.save(update_fields=["phase", "ended", "summary_post_id"])
    return current


def end_encounter(user: Any, encounter: Encounter) -> Encounter:
    """End the fight (the current round is closed and summarised)."""
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        if encounter.status == Encounter.Status.ENDED:
            raise ValidationError({"__all__": [gettext("The encounter is already over.")]})
        if encounter.status == Encounter.Status.ACTIVE and encounter.current_round() is not None:
            _close_round(user, encounter)
        encounter.status = Encounter.Status.ENDED
        encounter.ended_at = timezone.now()
        encounter.save(update_fields=["status", "ended_at"])
        _append(
            encounter,
            LogEntry.Kind.ENDED,
            actor=user,
            text=both(gettext_noop("The fight is over.")),
            round_changed=True,
        )
    return encounter


def set_gm_notes(user: Any, encounter: Encounter, *, notes: str) -> Encounter:
    """GM-only notes on the encounter (never shown to players)."""
    _require_gm(user, encounter.campaign)
    if len(notes or "") > 10000:
        raise ValidationError({"notes": [gettext("At most 10000 characters.")]})
    Encounter.objects.filter(pk=encounter.pk).update(gm_notes=notes or "")
    encounter.gm_notes = notes or ""
    return encounter
