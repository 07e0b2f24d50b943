"""Declarations and defences: declare, reveal (initiative), ask and choose a defence."""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

import rules
from campaigns.access import can_read_forum, is_gm
from combat import dice as combat_dice
from combat import signals
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from combat.services.common import (
    _append,
    _apply_changes,
    _lock,
    _next_index,
    _require_active,
    _require_gm,
    _roll_label,
    _rules_errors,
    _settings,
    _visible_ids,
    both,
    can_control,
    combatant,
    system_for,
)
from rules.base import (
    RandomSource,
    RulesError,
    get_path,
    gm_only_paths,
    validate_fields,
)


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
    fields = system.action_fields() if fields is None else fields
    data = system.migrate_declaration(dict(data or {}))  # a client may still send the type's older key
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
        signals.defence_asked.send(sender=Encounter, actor=user, encounter=encounter, target=target)
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
