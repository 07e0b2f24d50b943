"""Mythe d'Altaride, Édition Action 2.1 (slug ``altaride``).

Seed: ``shared/seeds/004_82be985d1ac26aab.txt`` (line refs ``Lnn``); spec:
``shared/rules/altaride.md`` (readings ``Ann``). Modules (the shared layout of
``rules/README.md``):

* :mod:`.system` — the :class:`~rules.base.RuleSystem` subclass (thin methods);
* :mod:`.tables` — rule tables and cost formulas (DERIVED cost tables);
* :mod:`.schema` — sheet fields, campaign settings and catalogues, migration;
* :mod:`.derive` — domains, Endurance maxima, skill formulas and CRs;
* :mod:`.creation` — 4,000 + 500 creation budget and validation;
* :mod:`.resolution` — d20 roll-under tests, opposed tests, magic, damage,
  learning rolls, XP die lowering (:func:`lower_die`);
* :mod:`.combat` — initiative, attack/parry/dodge, damage, pools, recovery;
* :mod:`.progression` — purchases with per-session limits, session awards;
* :mod:`.sheet_tests` — the tests a sheet offers; :mod:`.outcome` — public
  combat sentences, choices from the sheet, state carried to the sheet.
"""

from __future__ import annotations

from rules.altaride.system import AltarideSystem

SYSTEM = AltarideSystem()

__all__ = ["SYSTEM", "AltarideSystem"]
