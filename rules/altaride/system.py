"""The *Mythe d'Altaride* rule system object (d20 roll-under; XP currency).

Thin methods: each delegates to the module that holds the rule (see the
package docstring and ``rules/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.altaride import combat, creation, derive, outcome, progression, resolution, schema
from rules.altaride import sheet_tests as _sheet_tests
from rules.base import (
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
)


class AltarideSystem(RuleSystem):
    slug = "altaride"
    name = Msg("Mythe d'Altaride, Édition Action 2.1", "Mythe d'Altaride, Action Edition 2.1")
    schema_version = 1
    diceless = False
    currencies = ("xp",)

    # ---- schema -----------------------------------------------------------
    def sheet_fields(self) -> tuple[Field, ...]:
        return schema.sheet_fields()

    def creation_steps(self) -> tuple[Step, ...]:
        return schema.creation_steps()

    def sheet_layout(self) -> SheetLayout:
        """The four domains and the four endurances come first; the
        creation flags are creation matters."""
        return SheetLayout(
            headline=(
                "domains.PHYSIQUE",
                "domains.MENTAL",
                "domains.SOCIAL",
                "domains.OCCULTE",
                "endurance.EP.max",
                "endurance.EM.max",
                "endurance.EL.max",
                "endurance.EO.max",
            ),
            creation_groups=("identity", "magic_effects"),
            state_groups=("state", "endurance"),
        )

    def derived_specs(self) -> tuple[DerivedSpec, ...]:
        return derive.derived_specs()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        return schema.campaign_settings_fields()

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        super().migrate_sheet(sheet, from_version)
        return schema.migrate(sheet, from_version)

    def starter_settings(self) -> dict[str, Any]:
        """A new campaign starts with the skills the text names (editable)."""
        return {"skill_catalogue": schema.starter_skill_catalogue()}

    def validate_settings(self, settings: dict[str, Any] | None) -> list[FieldError]:
        """Checks of the campaign settings and catalogues (formulas, duplicate keys)."""
        return schema.validate_settings(settings or {})

    # ---- validation and derived values ------------------------------------
    def validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        return creation.validate_sheet(sheet, self.settings(settings))

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return derive.derive(sheet, self.settings(settings))

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return creation.creation_budget(sheet, self.settings(settings))

    def creation_ledger(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[LedgerDraft]:
        """Ledger drafts at the end of creation (leftover of the 500 pool, A7)."""
        return creation.creation_ledger(sheet, self.settings(settings))

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return resolution.test_kinds()

    def sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any] | None = None, state: dict[str, Any] | None = None
    ) -> list[SheetTest]:
        """Skills (formula + level, L71), talents (L98) and guild spells (Incantation, L120, L175)."""
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
        return resolution.odds(request, self.settings(settings))

    def can_lower_die(self, resolution: Mapping[str, Any]) -> bool:
        """A stored d20 test with a die read (L217): a simple or opposed roll."""
        outcome = resolution.get("outcome")
        return isinstance(outcome, Mapping) and isinstance(outcome.get("roll"), Mapping)

    def lower_die(
        self,
        stored: Resolution | dict[str, Any],
        points: int,
        xp_balance: int,
        side: str = "active",
        settings: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], LedgerDraft]:
        """Spend XP to lower a stored roll's die (L217): ``(new outcome, ledger draft)``."""
        return resolution.lower_die(stored, points, xp_balance, side, self.settings(settings))

    # ---- combat -----------------------------------------------------------
    def combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        return combat.combat_state(sheet)

    def action_fields(self) -> tuple[Field, ...]:
        return combat.action_fields()

    def initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
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
        return outcome.action_options(sheet, self.settings(settings), defending=defending)

    def defence_fields(self, declaration: dict[str, Any], actor: Combatant, target: Combatant) -> tuple[Field, ...]:
        """The defender chooses to parry or to dodge, and with what (L105–L109)."""
        if declaration.get("action", "attack") != "attack":
            return ()
        return tuple(f for f in combat.action_fields() if f.path in outcome.DEFENCE_PATHS)

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        return outcome.public_outcome(result, actor, target)

    def carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return outcome.carry_combat_state(sheet, state)

    def combat_value_labels(self) -> dict[str, Msg]:
        return outcome.VALUE_LABELS

    # ---- words ------------------------------------------------------------
    def group_labels(self) -> dict[str, Msg]:
        return schema.GROUP_LABELS

    def column_labels(self) -> dict[str, Msg]:
        return derive.COLUMN_LABELS

    def test_kind_labels(self) -> dict[str, Msg]:
        return resolution.TEST_KIND_LABELS

    def purchase_kind_labels(self) -> dict[str, Msg]:
        return progression.PURCHASE_KIND_LABELS

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return progression.purchase_fields()

    def purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
    ) -> PurchaseResult:
        return progression.purchase(sheet, request, balances, self.settings(settings))

    def session_fact_fields(self) -> tuple[Field, ...]:
        """GM inputs of the session award screen (the keys ``suggest_session_awards`` reads)."""
        return progression.SESSION_FACT_FIELDS

    def suggest_session_awards(
        self, sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> list[LedgerDraft]:
        return progression.suggest_session_awards(sheet, facts, self.settings(settings))

    def apply_progression(
        self, sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> ProgressionResult:
        return progression.apply_progression(sheet, list(entries), self.settings(settings))
