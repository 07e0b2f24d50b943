"""The SMS :class:`~rules.base.RuleSystem` object (variable die D0..D12; XP currency).

Thin methods: each delegates to the module that holds the rule (see the
package docstring and ``rules/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import (
    ACTION_KEY,
    Budget,
    Combatant,
    CombatResult,
    DerivedSpec,
    Field,
    FieldError,
    LedgerDraft,
    Msg,
    ProgressionResult,
    PurchaseResult,
    RandomSource,
    Resolution,
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

    def validate_settings(self, settings: dict[str, Any] | None) -> list[FieldError]:
        """The declared types, then the GM's archetypes (cost within the creation budget, L689)."""
        merged = self.settings(settings)
        return validate_fields(merged, schema.settings_fields()) + creation.validate_archetype_settings(merged)

    # ---- validation, derived values, budget --------------------------------------
    def follow_edit(
        self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A new race brings its fixed modules and size (L689, L695–874), replacing the old race's."""
        return creation.follow_race(before, after, self.settings(settings))

    def validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        """NPCs follow the definition methods of L987–1035, not the PC creation budget."""
        return npc.validate_npc(sheet)

    def validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        return creation.validate_sheet(sheet, self.settings(settings))

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return creation.creation_budget(sheet, self.settings(settings))

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return derive.derive(sheet, self.settings(settings))

    # ---- resolution ---------------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return resolution.test_kinds()

    def sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any] | None = None, state: dict[str, Any] | None = None
    ) -> list[SheetTest]:
        """Actions from the character's modules, wounds and fatigue applied (L95, L133-L154); known spells."""
        return _sheet_tests.sheet_tests(sheet, self.settings(settings))

    def sheet_test_request(
        self,
        sheet: dict[str, Any],
        test: SheetTest,
        declared: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any],
    ) -> tuple[dict[str, Any], list[SheetRead]]:
        return _sheet_tests.sheet_test_request(sheet, test, declared, settings)

    def resolve(self, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any] | None = None) -> Resolution:
        return resolution.resolve(request, rng, self.settings(settings))

    def odds(self, request: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Exact odds of a test; for the spell builder (no roll), the spell's difficulty and energy cost.

        The spell builder's answer is what a player sees live while choosing components (L366-L412).
        """
        return resolution.odds(request, self.settings(settings))

    # ---- combat -------------------------------------------------------------------
    def combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        return combat.combat_state(sheet)

    def initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Initiative from the modules of anticipation and reflexes (L558); see :func:`rules.sms.combat.initiative`."""
        return combat.initiative(combatants, declarations, rng, self.settings(settings))

    def resolve_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        declaration: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> CombatResult:
        return combat.resolve_action(actor, target, declaration, rng, self.settings(settings))

    def action_options(
        self,
        sheet: dict[str, Any],
        state: dict[str, Any],
        settings: dict[str, Any] | None = None,
        *,
        defending: bool = False,
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        """The sheet's weapons (L597: an unsuited weapon costs the size difference)."""
        return outcome.action_options(sheet, state, self.settings(settings), defending=defending)

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

    def carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any] | None = None
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
    def purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Also one more rank in each module the XP pay for (L63, L77)."""
        merged = self.settings(settings)
        return super().purchase_offers(sheet, balances, merged, facts) + progression.module_offers(
            sheet, balances, merged
        )

    def purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
    ) -> PurchaseResult:
        """Spend XP at the end of a scenario (L77): scope XP per rank, one rank per module per scenario."""
        return progression.purchase(sheet, request, balances, self.settings(settings))

    def session_fact_fields(self) -> tuple[Field, ...]:
        """GM inputs of the session award screen (the keys ``suggest_session_awards`` reads)."""
        return progression.SESSION_FACT_FIELDS

    def suggest_session_awards(
        self, sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> list[LedgerDraft]:
        """+1 per session played, +1 per scenario completed, +1 GM bonus (L75)."""
        return progression.suggest_session_awards(sheet, facts, self.settings(settings))

    def apply_progression(
        self, sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> ProgressionResult:
        """XP balance recomputed from the ledger (idempotent); duplicated award keys count once."""
        return progression.apply_progression(sheet, entries, self.settings(settings))
