"""Storytelling Modulary System (SMS v1), the rules of the Omnivers de Loreval.

Seed: ``seeds/003_2f455f1b43a71c78.txt``; English spec: ``rules/sms.md``. Layout (the shared layout of
``rules/README.md``, Foundry-style data model):

* :mod:`rules.sms.system` — the :class:`~rules.base.RuleSystem` subclass (thin methods), ``SYSTEM`` is built here;
* :mod:`rules.sms.tables` — rule tables as data (races, archetypes, severities, stakes, magic, NPC roles…);
* :mod:`rules.sms.schema` — sheet fields, campaign settings, wizard steps, test/action/purchase fields, migration;
* :mod:`rules.sms.creation` — creation budget, validation, :func:`apply_race`, :func:`apply_archetype`;
* :mod:`rules.sms.derive` — derived values (creation XP, penalties, interventions, magic, rest);
* :mod:`rules.sms.resolution` — :func:`~rules.sms.resolution.resolve`, test kinds and odds, one handler per kind,
  over the topical modules beside it: :mod:`rules.sms.core` (action score, variable die D0..D12, stakes,
  quality of result), :mod:`rules.sms.health` (wounds, healing, fatigue and recovery, falls, projections,
  Model B calculators), :mod:`rules.sms.magic` (:func:`build_spell`, rituals, counter-magic) and
  :mod:`rules.sms.npc` (NPC difficulties and validation);
* :mod:`rules.sms.combat` — attack/defence dice, armour, size, initiative, reactions, PvP, and the combat step;
* :mod:`rules.sms.progression` — XP purchases, session awards, the XP balance;
* :mod:`rules.sms.sheet_tests` — tests from the sheet; :mod:`rules.sms.outcome` — public combat sentences,
  choices from the sheet, state carried to the sheet.

Campaign readings where the page contradicts itself (spec §7): ``health_model`` (wound modules L133–142 by
default, or Model B wound levels converted, L583/L603–678), ``leather_armour`` (−2 as in L224/L228 by
default, or light category 1 as in L220) and ``spell_range_reading`` (score penalty L316–320 by default, or
on the die as in the example L431).
"""

from __future__ import annotations

from rules.sms.core import (
    action_score,
    die_class,
    difficulty_die,
    module_xp,
    quality_for_offset,
    resolve_die,
    round_die,
    score_from_modules,
    stake_for_die,
    success_probability,
)
from rules.sms.creation import apply_archetype, apply_race, archetype_cost
from rules.sms.health import heal_wounds, recover_fatigue
from rules.sms.magic import build_spell, improvement_power
from rules.sms.system import SMSSystem

SYSTEM = SMSSystem()

__all__ = [
    "SYSTEM",
    "SMSSystem",
    "action_score",
    "apply_archetype",
    "apply_race",
    "archetype_cost",
    "build_spell",
    "die_class",
    "difficulty_die",
    "heal_wounds",
    "improvement_power",
    "module_xp",
    "quality_for_offset",
    "recover_fatigue",
    "resolve_die",
    "round_die",
    "score_from_modules",
    "stake_for_die",
    "success_probability",
]
