"""The Ambre "Système V2.1" rule system object (diceless, karma currency).

Thin methods: each delegates to the module that holds the rule (see the
package docstring and ``rules/README.md``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.ambre import combat, creation, derive, npc, outcome, progression, resolution, schema
from rules.ambre import sheet_tests as _sheet_tests
from rules.base import (
    BestiaryEntry,
    Combatant,
    CombatResult,
    DerivedSpec,
    Field,
    FieldError,
    Msg,
    RuleSystem,
    SheetContext,
    SheetLayout,
    SheetRead,
    SheetTest,
    Step,
    bestiary_entries,
    bestiary_setting,
)


class AmbreSystem(RuleSystem):
    slug = "ambre"
    legacy_action_key = "mode"
    name = Msg("Ambre (Système V2.1)", "Amber (V2.1 system)")
    schema_version = schema.SCHEMA_VERSION
    diceless = True
    currencies = ("karma",)

    def __init__(self) -> None:
        self._fields = schema.sheet_fields()
        self._steps = schema.creation_steps()
        self._settings_fields = (*schema.campaign_settings_fields(), bestiary_setting(npc.quick_npc_fields()))
        self._default_settings = super().default_campaign_settings()

    def default_campaign_settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._default_settings)

    def settings(self, settings: dict[str, Any] | None) -> dict[str, Any]:
        """Campaign settings merged over the cached defaults (read-only: never mutated)."""
        merged = dict(self._default_settings)
        merged.update(settings or {})
        return merged

    # ---- schema -----------------------------------------------------------
    def sheet_fields(self) -> tuple[Field, ...]:
        return self._fields

    def creation_steps(self) -> tuple[Step, ...]:
        return self._steps

    def sheet_layout(self) -> SheetLayout:
        """The four attributes, then life and energy (L402-L404); the
        creation points, the auction ladders and the GM's modifiers are
        creation and GM matters."""
        return SheetLayout(
            headline=("attributes.psy", "attributes.phy", "attributes.end", "attributes.cbt", "life", "energy"),
            concept="background",
            creation_groups=("karma", "ladder", "modifiers"),
            state_groups=("condition",),
        )

    def derived_specs(self) -> tuple[DerivedSpec, ...]:
        return derive.derived_specs()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        return self._settings_fields

    def _quick_npc_fields(self, settings: dict[str, Any]) -> tuple[Field, ...]:
        return npc.quick_npc_fields()

    def _bestiary(self, settings: dict[str, Any]) -> tuple[BestiaryEntry, ...]:
        return bestiary_entries(settings.get("bestiary"), npc.quick_npc_fields())

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        return schema.migrate(sheet, from_version)

    def _validate_settings(self, settings: dict[str, Any]) -> list[FieldError]:
        """Types, then the shape of the power tables."""
        return schema.validate_settings(settings, self._settings_fields)

    def locked_paths(self, sheet: dict[str, Any], context: SheetContext) -> list[str]:
        """GM-only fields, plus the ladder (ranks come from the auction and the GM, never the
        player), plus the attributes once the character takes part in an auction (the bids
        decide them)."""
        locked = super().locked_paths(sheet, context)
        if context.gm:
            return locked
        locked.append("ladder")
        if context.in_auction:
            locked.append("attributes")
        return locked

    # ---- validation and derived values ------------------------------------
    def _validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
        return creation.validate_sheet(sheet, settings, self._fields)

    _derive = staticmethod(derive.derive_sheet)

    _creation_budget = staticmethod(creation.creation_budget)

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return resolution.test_kinds()

    def _sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any], state: dict[str, Any] | None = None
    ) -> list[SheetTest]:
        """Comparisons on each attribute and characteristic (L5-L51); a spell with its cost (L436-L446)."""
        return _sheet_tests.sheet_tests(sheet, settings)

    def sheet_test_request(
        self,
        sheet: dict[str, Any],
        test: SheetTest,
        declared: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any],
    ) -> tuple[dict[str, Any], list[SheetRead]]:
        return _sheet_tests.sheet_test_request(sheet, test, declared, settings)

    _resolve = staticmethod(resolution.resolve)

    _odds = staticmethod(resolution.odds)

    # ---- combat -----------------------------------------------------------
    def _combat_state(
        self, sheet: dict[str, Any], settings: dict[str, Any], balances: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """The karma balance decides what a mortal wound means (L429); unknown for a quick NPC."""
        karma = None if balances is None else int(balances.get("karma", 0))
        return combat.combat_state(sheet, settings, karma)

    def private_state_keys(self) -> frozenset[str]:
        """Gauges that give the true attribute points away (L18: only the ladder is public).

        Life and energy are sums of attributes ("Endurance et du Physique +50",
        L402; "Psyché et de l'Endurance +50", L404) and a full gauge equals its
        maximum; minor keys are "Mental+Volonté / 4" (L440); an initiative
        score is the Rapidité or the Concentration itself (L416), so only the
        order is public. Other players see the wounds and the coma/death
        flags, which the fiction shows.
        """
        return super().private_state_keys() | {"life", "life_max", "energy", "energy_max", "keys", "initiative"}

    def action_fields(self) -> tuple[Field, ...]:
        return combat._ACTION_FIELDS

    _initiative = staticmethod(combat.initiative)

    _resolve_action = staticmethod(combat.resolve_action)

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        return outcome.public_outcome(result, actor, target)

    def _carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any]
    ) -> dict[str, Any]:
        return outcome.carry_combat_state(sheet, state)

    def combat_value_labels(self) -> dict[str, Msg]:
        return outcome.VALUE_LABELS

    # ---- words ------------------------------------------------------------
    def group_labels(self) -> dict[str, Msg]:
        return schema.GROUP_LABELS

    def test_kind_labels(self) -> dict[str, Msg]:
        return resolution.TEST_KIND_LABELS

    def purchase_kind_labels(self) -> dict[str, Msg]:
        return progression.PURCHASE_KIND_LABELS

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return progression.purchase_fields()

    _purchase = staticmethod(progression.purchase)

    _suggest_session_awards = staticmethod(progression.suggest_session_awards)

    #: The ladders after buy-ups (L18): true ranks to the GMs, known ranks to each owner.
    _campaign_progression = staticmethod(progression.campaign_ladders)

    def balance_state(self, balances: Mapping[str, int]) -> dict[str, Any]:
        """Good, neutral or bad karma and the loan (L3, L464-L470)."""
        return progression.karma_state(int(balances.get("karma", 0)))

    #: What :func:`progression.apply_progression` reads of an entry.
    progression_entry_keys = frozenset({"currency", "amount"})
    #: Sums only: the karma balance is the sum of the karma and xp amounts (karma_balance).
    progression_reads_totals = True

    _apply_progression = staticmethod(progression.apply_progression)

    #: The ledger entries that record a validated creation (L18, L22).
    _creation_ledger = staticmethod(creation.creation_ledger)
