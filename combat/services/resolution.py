"""Resolution: the next step through the rules, what every viewer sees of it, skip, resolve all."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_noop

import rules
from combat import dice as combat_dice
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from combat.services.carry import _carry
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
    combatant,
    system_for,
)
from combat.services.declarations import defence_delay
from rules.base import (
    CombatResult,
    Msg,
    RandomSource,
    RecordingRandom,
    RulesError,
    fallen_sentence,
    join_sentences,
)


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
