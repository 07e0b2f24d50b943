"""Carrying a fight's lasting marks to the characters' sheets (a recorded sheet version each)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext, gettext_noop, override

from characters.models import Character
from characters.outcomes import carry_result
from combat.models import Encounter, LogEntry, Participant
from combat.services.common import _append, _settings, both, system_for


def _carry(user: Any, encounter: Encounter, entry: LogEntry, ids: Iterable[int]) -> list[LogEntry]:
    """Carry the lasting marks of ``entry`` (wounds, pools, fatigue, handicaps, death) to the sheets
    of the characters involved, each as a recorded sheet version naming the log entry."""
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
