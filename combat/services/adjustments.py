"""GM corrections: set a state value with a reason, undo the latest step (a correcting entry)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext, gettext_noop, override

from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from combat.services.carry import _carry
from combat.services.common import LANGS, _append, _apply_changes, _lock, _require_active, _require_gm, both, system_for
from combat.services.resolution import _conditions, _fallen, public_changes
from config import jsonlimits
from rules.base import (
    get_path,
    join_sentences,
)


# ---------------------------------------------------------------------------
# GM corrections
# ---------------------------------------------------------------------------
def parse_value(raw: str) -> Any:
    """A typed value from a form: integer, true/false, null, or text."""
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
