"""The SMS :class:`~rules.base.RuleSystem` object (variable die D0..D12; XP currency).

Thin methods: each delegates to the module that holds the rule (see the
package docstring and ``rules/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.base import (
    ACTION_KEY,
    BestiaryEntry,
    Combatant,
    CombatResult,
    DerivedSpec,
    Field,
    FieldError,
    Msg,
    RuleSystem,
    SheetLayout,
    SheetRead,
    SheetTest,
    Step,
    validate_fields,
    with_action_key,
)
from rules.sms import combat, creation, derive, npc, outcome, progression, resolution, schema
from rules.sms import sheet_tests as _sheet_tests

SLUG = "sms"


class SMSSystem(RuleSystem):
    """Storytelling Modulary System v1 (seed ``003_2f455f1b43a71c78``)."""

    slug = SLUG
    legacy_action_key = "kind"
    name = Msg("Storytelling Modulary System (SMS)", "Storytelling Modulary System (SMS)")
    schema_version = schema.SCHEMA_VERSION
    diceless = False
    currencies = ("xp",)

    # ---- schema -------------------------------------------------------------
    def sheet_fields(self) -> tuple[Field, ...]:
        return schema.sheet_fields()

    def creation_steps(self) -> tuple[Step, ...]:
        return schema.creation_steps()

    def sheet_layout(self) -> SheetLayout:
        """Penalties and interventions per turn are read every post; the
        creation XP is a creation matter; the NPC block is the GM's."""
        return SheetLayout(
            headline=("wound_penalty", "fatigue_penalty", "interventions_allowed", "size_factor"),
            concept="concept",
            creation_groups=("xp", "npc"),
            state_groups=("health",),
        )

    def derived_specs(self) -> tuple[DerivedSpec, ...]:
        return derive.derived_specs()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        return schema.settings_fields()

    def action_fields(self) -> tuple[Field, ...]:
        return schema.action_fields()

    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return schema.purchase_fields()

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Version 1 is the first: fill missing keys with defaults (repeatable)."""
        return schema.migrate(super().migrate_sheet(sheet, from_version), from_version)

    def _validate_settings(self, settings: dict[str, Any]) -> list[FieldError]:
        """The declared types, then the GM's archetypes (cost within the creation budget, L689) and the
        bestiary; where the archetype check and the declared types speak of one path (an unknown
        archetype), the archetype check's message is kept."""
        specific = creation.validate_archetype_settings(settings)
        said = {e.path for e in specific}
        return (
            [e for e in validate_fields(settings, schema.settings_fields()) if e.path not in said]
            + specific
            + npc.validate_bestiary(settings)
        )

    def starter_settings(self) -> dict[str, Any]:
        """A new campaign starts with the bestiary classes the page names (editable, no number)."""
        return {"bestiary": npc.starter_bestiary()}

    def settings(self, settings: dict[str, Any] | None) -> dict[str, Any]:
        """Merged settings; a bestiary stored before issue #23 (a dict) is read as a list of entries."""
        merged = super().settings(settings)
        if isinstance(merged.get("bestiary"), dict):
            merged["bestiary"] = npc.bestiary_rows(merged.get("bestiary"))
        return merged

    # ---- quick NPCs -------------------------------------------------------------
    def _quick_npc_fields(self, settings: dict[str, Any]) -> tuple[Field, ...]:
        return npc.quick_npc_fields()

    def _bestiary(self, settings: dict[str, Any]) -> tuple[BestiaryEntry, ...]:
        return npc.bestiary(settings)

    def _quick_npc_sheet(self, values: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        return npc.quick_npc_sheet(self.default_sheet(), values)

    # ---- validation, derived values, budget --------------------------------------
    #: A new race brings its fixed modules and size (L689, L695–874), replacing the old race's.
    _follow_edit = staticmethod(creation.follow_race)

    def _validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
        """NPCs follow the definition methods of L987–1035, not the PC creation budget."""
        return npc.validate_npc(sheet)

    _validate_sheet = staticmethod(creation.validate_sheet)

    _creation_budget = staticmethod(creation.creation_budget)

    _derive = staticmethod(derive.derive)

    # ---- resolution ---------------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return resolution.test_kinds()

    def _sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any], state: dict[str, Any] | None = None
    ) -> list[SheetTest]:
        """Actions from the character's modules, wounds and fatigue applied (L95, L133-L154); known spells."""
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

    #: Exact odds of a test; for the spell builder (no roll), the spell's difficulty and energy cost, what a
    #: player sees live while choosing components (L366-L412).
    _odds = staticmethod(resolution.odds)

    # ---- combat -------------------------------------------------------------------
    def _combat_state(
        self, sheet: dict[str, Any], settings: dict[str, Any], balances: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        return combat.combat_state(sheet)

    #: Initiative from the modules of anticipation and reflexes (L558), see :func:`rules.sms.combat.initiative`.
    _initiative = staticmethod(combat.initiative)

    _resolve_action = staticmethod(combat.resolve_action)

    #: The sheet's weapons (L597: an unsuited weapon costs the size difference).
    _action_options = staticmethod(outcome.action_options)

    def defence_fields(self, declaration: dict[str, Any], actor: Combatant, target: Combatant) -> tuple[Field, ...]:
        """An NPC attacks a PC: the PC's player defends, choosing the reaction's score or modules and the
        shield (L103: the GM never rolls; the PC's defence is the PC's action, L565–L575)."""
        declaration = with_action_key(declaration, "kind")
        if declaration.get(ACTION_KEY, "attack") != "attack" or not actor.is_npc or target.is_npc:
            return ()
        return tuple(f for f in self.action_fields() if f.path in outcome.DEFENCE_PATHS)

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        return outcome.public_outcome(result, actor, target)

    def combat_condition(self, state: dict[str, Any]) -> str:
        return outcome.combat_condition(state)

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

    # ---- progression ----------------------------------------------------------------
    def _purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any],
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Also one more rank in each module the XP pay for (L63, L77)."""
        return super()._purchase_offers(sheet, balances, settings, facts) + progression.module_offers(
            sheet, balances, settings
        )

    #: Spend XP at the end of a scenario (L77): scope XP per rank, one rank per module per scenario.
    _purchase = staticmethod(progression.purchase)

    def session_fact_fields(self) -> tuple[Field, ...]:
        """GM inputs of the session award screen (the keys ``suggest_session_awards`` reads)."""
        return progression.SESSION_FACT_FIELDS

    #: +1 per session played, +1 per scenario completed, +1 GM bonus (L75).
    _suggest_session_awards = staticmethod(progression.suggest_session_awards)

    #: What :func:`progression.apply_progression` reads of an entry.
    progression_entry_keys = frozenset({"currency", "amount", "data"})

    #: XP balance recomputed from the ledger (idempotent); duplicated award keys count once.
    _apply_progression = staticmethod(progression.apply_progression)
