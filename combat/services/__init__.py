"""Every write of the combat app: one function per user action, split by area.

Each function checks permissions (``Http404`` for what the user may not
see, ``PermissionDenied`` for a visible but forbidden write,
``ValidationError`` with field errors for bad input), then writes inside
``transaction.atomic()`` with the encounter row locked
(``select_for_update``): the log sequence is bumped under that lock and a
unique ``(encounter, sequence)`` constraint backs it, so concurrent players
and GMs never lose, duplicate or reorder log entries. Live events are
published inside the transaction (sent after commit).

All rule arithmetic comes from ``rules.get_system(campaign.system)``.

Modules (as Zulip splits ``zerver/actions/``); callers use ``from combat import services``:

* :mod:`.common` — access, the log, the rules glue, the round cursor;
* :mod:`.encounters` — encounters and participants;
* :mod:`.declarations` — declarations, initiative, defences;
* :mod:`.resolution` — resolving steps, what every viewer sees of them;
* :mod:`.adjustments` — GM corrections and undo;
* :mod:`.rounds` — round summaries, next round, end of the fight;
* :mod:`.carry` — a fight's lasting marks carried to the sheets.
"""

from combat.services.adjustments import UNDOABLE, adjust_value, parse_value, undo_last_step
from combat.services.common import (
    LANGS,
    MAX_COPIES,
    MAX_PARTICIPANTS,
    both,
    can_control,
    combatant,
    get_encounter_for_user,
    initial_state,
    system_for,
)
from combat.services.declarations import (
    choose_defence,
    clean_declaration,
    declare_action,
    defence_delay,
    defence_fields_for,
    reveal_declarations,
)
from combat.services.encounters import (
    add_participant,
    create_encounter,
    remove_participant,
    set_side,
    set_stats_visible,
    start_encounter,
)
from combat.services.resolution import public_changes, resolve_next_step, resolve_round, skip_step
from combat.services.rounds import end_encounter, end_round, round_summary, set_gm_notes

__all__ = [
    "LANGS",
    "MAX_COPIES",
    "MAX_PARTICIPANTS",
    "UNDOABLE",
    "add_participant",
    "adjust_value",
    "both",
    "can_control",
    "choose_defence",
    "clean_declaration",
    "combatant",
    "create_encounter",
    "declare_action",
    "defence_delay",
    "defence_fields_for",
    "end_encounter",
    "end_round",
    "get_encounter_for_user",
    "initial_state",
    "parse_value",
    "public_changes",
    "remove_participant",
    "resolve_next_step",
    "resolve_round",
    "reveal_declarations",
    "round_summary",
    "set_gm_notes",
    "set_side",
    "set_stats_visible",
    "skip_step",
    "start_encounter",
    "system_for",
    "undo_last_step",
]
