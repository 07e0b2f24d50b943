"""Ambre, le jeu de rôle sans dés: the forum adaptation "Système V2.1".

Seed: ``shared/seeds/000_05e59504de7a2c73.txt``; spec: ``shared/rules/ambre.md``.
Modules (the shared layout of ``rules/README.md``): :mod:`~rules.ambre.system`
(the :class:`~rules.base.RuleSystem` subclass, thin methods),
:mod:`~rules.ambre.tables` (rule data), :mod:`~rules.ambre.schema` (stored
fields, settings, migrations), :mod:`~rules.ambre.derive`,
:mod:`~rules.ambre.creation`, :mod:`~rules.ambre.resolution` (diceless
comparison), :mod:`~rules.ambre.combat`, :mod:`~rules.ambre.progression`
(karma ledger), :mod:`~rules.ambre.sheet_tests`, :mod:`~rules.ambre.outcome`;
beside them the topical :mod:`~rules.ambre.costs` (karma calculators),
:mod:`~rules.ambre.sorcery`, :mod:`~rules.ambre.ranks` and
:mod:`~rules.ambre.auction` (attribute auction).
"""

from __future__ import annotations

from rules.ambre.costs import (
    ally_cost,
    artefact_cost,
    available_selections,
    construct_cost,
    invented_power_cost,
    pattern_conversion_cost,
    power_cost,
    shadow_cost,
)
from rules.ambre.sorcery import spell_cost
from rules.ambre.system import AmbreSystem

SYSTEM = AmbreSystem()

__all__ = [
    "SYSTEM",
    "AmbreSystem",
    "ally_cost",
    "artefact_cost",
    "available_selections",
    "construct_cost",
    "invented_power_cost",
    "pattern_conversion_cost",
    "power_cost",
    "shadow_cost",
    "spell_cost",
]
