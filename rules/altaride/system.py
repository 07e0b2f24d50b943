"""The *Mythe d'Altaride* rule system object (d20 roll-under; XP currency).

Thin methods: each delegates to the module that holds the rule (see the
package docstring and ``rules/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.altaride import combat, creation, derive, npc, outcome, progression, resolution, schema
from rules.altaride import sheet_tests as _sheet_tests
from rules.base import (
    BestiaryEntry,
    Combatant,
    CombatResult,
    DerivedSpec,
    Field,
    FieldError,
    LedgerDraft,
    Msg,
    ProgressionResult,
    Resolution,
    RuleSystem,
    SheetLayout,
    SheetRead,
    SheetTest,
    Step,
    bestiary_entries,
    bestiary_setting,
    validate_fields,
)

#: The campaign's options and catalogues, then its bestiary of quick NPCs (issue #23).
_SETTINGS_FIELDS = (*schema.campaign_settings_fields(), bestiary_setting(npc.bestiary_fields()))


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
        return _SETTINGS_FIELDS

    def _quick_npc_fields(self, settings: dict[str, Any]) -> tuple[Field, ...]:
        return npc.quick_npc_fields(settings)

    def _bestiary(self, settings: dict[str, Any]) -> tuple[BestiaryEntry, ...]:
        return bestiary_entries(settings.get("bestiary"), npc.bestiary_fields())

    def _quick_npc_sheet(self, values: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        return npc.quick_npc_sheet(self.default_sheet(), values)

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        super().migrate_sheet(sheet, from_version)
        return schema.migrate(sheet, from_version)

    def starter_settings(self) -> dict[str, Any]:
        """A new campaign starts with the skills the text names (editable)."""
        return {"skill_catalogue": schema.starter_skill_catalogue()}

    def _validate_settings(self, settings: dict[str, Any]) -> list[FieldError]:
        """Checks of the campaign settings and catalogues (formulas, duplicate keys)."""
        return schema.validate_settings(settings) + validate_fields(settings, _SETTINGS_FIELDS[-1:])

    # ---- validation and derived values ------------------------------------
    _validate_sheet = staticmethod(creation.validate_sheet)

    _derive = staticmethod(derive.derive)

    _creation_budget = staticmethod(creation.creation_budget)

    #: Ledger drafts at the end of creation (leftover of the 500 pool, A7).
    _creation_ledger = staticmethod(creation.creation_ledger)

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return resolution.test_kinds()

    def _sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any], state: dict[str, Any] | None = None
    ) -> list[SheetTest]:
        """Skills (formula + level, L71), talents (L98) and guild spells (Incantation, L120, L175)."""
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

    def can_lower_die(self, resolution: Mapping[str, Any]) -> bool:
        """A stored d20 test with a die read (L217): a simple or opposed roll."""
        outcome = resolution.get("outcome")
        return isinstance(outcome, Mapping) and isinstance(outcome.get("roll"), Mapping)

    def _lower_die(
        self, stored: Resolution | dict[str, Any], points: int, xp_balance: int, side: str, settings: dict[str, Any]
    ) -> tuple[dict[str, Any], LedgerDraft]:
        """Spend XP to lower a stored roll's die (L217): ``(new outcome, ledger draft)``."""
        return resolution.lower_die(stored, points, xp_balance, side, settings)

    # ---- combat -----------------------------------------------------------
    def _combat_state(
        self, sheet: dict[str, Any], settings: dict[str, Any], balances: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        return combat.combat_state(sheet)

    def action_fields(self) -> tuple[Field, ...]:
        return combat.action_fields()

    _initiative = staticmethod(combat.initiative)

    _resolve_action = staticmethod(combat.resolve_action)

    def _action_options(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any], *, defending: bool = False
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        return outcome.action_options(sheet, settings, defending=defending)

    def defence_fields(self, declaration: dict[str, Any], actor: Combatant, target: Combatant) -> tuple[Field, ...]:
        """The defender chooses to parry or to dodge, and with what (L105–L109)."""
        if declaration.get("action", "attack") != "attack":
            return ()
        return tuple(f for f in combat.action_fields() if f.path in outcome.DEFENCE_PATHS)

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

    def column_labels(self) -> dict[str, Msg]:
        return derive.COLUMN_LABELS

    def test_kind_labels(self) -> dict[str, Msg]:
        return resolution.TEST_KIND_LABELS

    def purchase_kind_labels(self) -> dict[str, Msg]:
        return progression.PURCHASE_KIND_LABELS

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return progression.purchase_fields()

    _purchase = staticmethod(progression.purchase)

    def session_fact_fields(self) -> tuple[Field, ...]:
        """GM inputs of the session award screen (the keys ``suggest_session_awards`` reads)."""
        return progression.SESSION_FACT_FIELDS

    _suggest_session_awards = staticmethod(progression.suggest_session_awards)

    #: What :func:`progression.apply_progression` reads of an entry.
    progression_entry_keys = frozenset({"currency", "amount"})
    #: Sums only: the xp balance and the xp spent are sums of the amounts (spent: of the negative ones).
    progression_reads_totals = True

    def _apply_progression(
        self, sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any]
    ) -> ProgressionResult:
        return progression.apply_progression(sheet, list(entries), settings)
