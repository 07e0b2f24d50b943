"""*Les Clefs de l'Aube* (slug ``clefs-de-l-aube``), seed 002 rev. 1.3.

Modules (the shared layout of ``rules/README.md``): :mod:`.system` (the
:class:`~rules.base.RuleSystem` subclass), :mod:`.tables` (rule tables as
data), :mod:`.schema` (fields and forms), :mod:`.derive` (BC, CA, aspect
ladder), :mod:`.creation` (semi-random creation, :func:`creation_roll`),
:mod:`.resolution` (one d20 roll-under, ND, critical die, confrontation,
multiple actions, exact odds, :func:`reevaluate`), :mod:`.combat`
(confrontations round by round), :mod:`.progression` (PX spending),
:mod:`.sheet_tests` (tests from the sheet), :mod:`.outcome` (public combat
sentences, state carried to the sheet).

Extra public API beyond :class:`~rules.base.RuleSystem`:
:func:`creation_roll`, :func:`replay_creation_roll`, :func:`reevaluate`,
:func:`add_critical_die`, :func:`combination_name`, :func:`combinations_table`
(GM aid, never on the sheet, L360-L363), :func:`request_from_sheet`,
:func:`multiple_action_handicap`, :func:`unplanned_action_handicap`,
:func:`aspect_ladder`, :func:`skill_cost`.

Readings chosen where the seed is silent or ambiguous (spec gap ids):

* G2 (L825 vs L812): ``nd=None`` = no ND set, a success meets it; an explicit ND 0 needs °R > 0.
* G3 (L724-L727): unrolled AUTO_SUCCESS meets any ND, AUTO_FAILURE none; confrontations force rolls
  (setting ``confrontation_force_roll``).
* G4 (L1068-L1072): equal °R in a confrontation → no winner.
* G5: Jonathan's fumble is 18 − 16 + 18 = 20 (seed prints 22, L1043-L1044); Marie-Pierre's skills start
  from PH 5, not 6 (L565-L567 vs L615-L616).
* G6 (L1007): the critical reroll is automatic. G7: ND labels from the table L837-L869.
* G8 (L550-L551): 5 aspect exchanges in total. G9: the 5 means exchange points also follow ``ZERO``.
* G10 (L603-L604): the compagnon trade gives Σ NC = 20 aspect-PX.
* G11 (L655-L665): anti-abuse limit = top N overall, checked per level gained, never retroactive.
* G12 (L432): NC hard cap 20; aspects uncapped (min 0, G14); means −5..+5 always.
* G13/G26: an unknown skill named on a roll counts NC 0 (BC −10); another aspect keeps BC, flagged.
* G15/G16 (L650): chained increases; one pending means exchange token per post-creation increase.
* G17 (L1080): N = 1 is not a multiple action (handicap 0; unplanned 5j).
* G19: CA components are frozen at the roll; only ND / negative-ND switch / ND visibility are re-evaluated.
* G21 (L1111-L1134): overreach uses Diff as the roll's ND, Eff is recorded only (text truncated).
* Combat (absent from the seed): see :mod:`rules.clefs.combat`.
"""

from __future__ import annotations

from rules.clefs.creation import creation_roll, replay_creation_roll
from rules.clefs.derive import aspect_ladder, combination_name, combinations_table, skill_cost
from rules.clefs.resolution import (
    add_critical_die,
    confrontation_odds,
    exact_odds,
    multiple_action_handicap,
    reevaluate,
    target_number,
    unplanned_action_handicap,
)
from rules.clefs.sheet_tests import request_from_sheet
from rules.clefs.system import ClefsDeLAube

SYSTEM = ClefsDeLAube()

__all__ = [
    "SYSTEM",
    "ClefsDeLAube",
    "add_critical_die",
    "aspect_ladder",
    "combination_name",
    "combinations_table",
    "confrontation_odds",
    "creation_roll",
    "exact_odds",
    "multiple_action_handicap",
    "reevaluate",
    "replay_creation_roll",
    "request_from_sheet",
    "skill_cost",
    "target_number",
    "unplanned_action_handicap",
]
