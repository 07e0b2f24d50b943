"""The *Clefs de l'Aube* rule system object (one d20 roll-under; PX currency).

Thin methods: each delegates to the module that holds the rule (see the
package docstring and ``rules/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.base import (
    BestiaryEntry,
    Combatant,
    CombatResult,
    DerivedSpec,
    Field,
    FieldError,
    Msg,
    RandomSource,
    RuleSystem,
    SheetContext,
    SheetLayout,
    SheetRead,
    SheetTest,
    Step,
    bestiary_entries,
    bestiary_setting,
)
from rules.clefs import combat, creation, derive, npc, outcome, progression, resolution, schema
from rules.clefs import sheet_tests as _sheet_tests
from rules.clefs import tables as t
from rules.clefs.resolution import reevaluate as reevaluate_stored

#: The campaign's options, then its bestiary of quick NPCs (issue #23).
_SETTINGS_FIELDS = (*schema.campaign_settings_fields(), bestiary_setting(npc.quick_npc_fields()))


class ClefsDeLAube(RuleSystem):
    slug = t.SLUG
    legacy_action_key = "kind"
    name = Msg("Les Clefs de l'Aube", "Les Clefs de l'Aube")
    schema_version = 1
    diceless = False
    currencies = ("xp",)

    # ---- schema -----------------------------------------------------------
    def sheet_fields(self) -> tuple[Field, ...]:
        return schema.sheet_fields()

    def creation_steps(self) -> tuple[Step, ...]:
        return schema.creation_steps()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        return _SETTINGS_FIELDS

    def sheet_layout(self) -> SheetLayout:
        """Aspects and means are what a test is made of; the creation roll and
        placements are creation matters."""
        return SheetLayout(
            headline=(
                "aspects.PH",
                "aspects.ME",
                "aspects.MY",
                "means.PU",
                "means.RE",
                "means.MA",
                "means.PR",
                "means.EX",
                "means.PE",
            ),
            concept="notes",
            creation_groups=("creation",),
            state_groups=("conditions",),
        )

    def derived_specs(self) -> tuple[DerivedSpec, ...]:
        return derive.derived_specs()

    def _quick_npc_fields(self, settings: dict[str, Any]) -> tuple[Field, ...]:
        return npc.quick_npc_fields()

    def _bestiary(self, settings: dict[str, Any]) -> tuple[BestiaryEntry, ...]:
        return bestiary_entries(settings.get("bestiary"), npc.quick_npc_fields())

    def _quick_npc_sheet(self, values: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        return npc.quick_npc_sheet(self.default_sheet(), values)

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Version 0 → 1: the seed's alternative codes as keys (reading G24)."""
        return schema.migrate(super().migrate_sheet(sheet, from_version), from_version)

    def locked_paths(self, sheet: dict[str, Any], context: SheetContext) -> list[str]:
        """``creation.roll`` is the server's copy of its creation roll: nobody writes it (GMs
        neither: they roll again). Once rolled, the methods it was rolled with stay (L517-L576)."""
        locked = super().locked_paths(sheet, context)
        locked.append("creation.roll")
        if not context.gm and context.rolls.get("creation"):
            locked += ["creation.aspect_method", "creation.means_method"]
        return locked

    def verify_server_rolls(self, sheet: dict[str, Any], rolls: Any) -> list[FieldError]:
        return creation.server_roll_errors(sheet, rolls)

    # ---- validation and derived values ------------------------------------
    _validate_sheet = staticmethod(creation.validate_sheet)

    def _follow_edit(self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """A new placement of the rolled results restarts the exchanges (L523-L525, L550, L576-L577)."""
        return creation.follow_placement(before, after)

    def _derive(self, sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        return derive.derive_sheet(sheet)

    _creation_budget = staticmethod(creation.creation_budget)

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return resolution.test_kinds()

    def _sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any], state: dict[str, Any] | None = None
    ) -> list[SheetTest]:
        """Every skill (with its aspect) and every aspect alone; the means is chosen (L471-L497)."""
        return _sheet_tests.sheet_tests(sheet)

    def sheet_test_request(
        self,
        sheet: dict[str, Any],
        test: SheetTest,
        declared: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any],
    ) -> tuple[dict[str, Any], list[SheetRead]]:
        return _sheet_tests.sheet_test_request(sheet, test, declared)

    _resolve = staticmethod(resolution.resolve)

    #: Exact odds before rolling (spec §4.13); hidden NDs are left out of the report.
    _odds = staticmethod(resolution.odds)

    # ---- combat -----------------------------------------------------------
    def _combat_state(
        self, sheet: dict[str, Any], settings: dict[str, Any], balances: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        return combat.combat_state(sheet)

    def action_fields(self) -> tuple[Field, ...]:
        return schema.action_fields()

    def _validate_action(
        self,
        actor_sheet: dict[str, Any],
        declaration: dict[str, Any],
        target_sheet: dict[str, Any] | None,
        settings: dict[str, Any],
    ) -> list[FieldError]:
        """A declared skill must be on the sheet, unless the GM marks the roll untrained (G13)."""
        return combat.declaration_errors(actor_sheet, declaration, target_sheet)

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

    def column_labels(self) -> dict[str, Msg]:
        return derive.COLUMN_LABELS

    def test_kind_labels(self) -> dict[str, Msg]:
        return resolution.TEST_KIND_LABELS

    def purchase_kind_labels(self) -> dict[str, Msg]:
        return progression.PURCHASE_KIND_LABELS

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return schema.purchase_fields()

    def _purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any],
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Also one level more in each skill the PX pay for (L626-L667)."""
        return super()._purchase_offers(sheet, balances, settings, facts) + progression.skill_offers(
            sheet, balances, settings
        )

    _purchase = staticmethod(progression.purchase)

    _suggest_session_awards = staticmethod(progression.suggest_session_awards)

    #: What :func:`progression.apply_progression` reads of an entry.
    progression_entry_keys = frozenset({"currency", "amount"})
    #: Sums only: the xp balance is the sum of the xp amounts.
    progression_reads_totals = True

    _apply_progression = staticmethod(progression.apply_progression)

    # ---- GM aids ----------------------------------------------------------
    def gm_aids(self) -> dict[str, Any]:
        """GM-only help: the indicative combination names (L356-L422) and the ND table (L837-L869)."""
        return {
            "aspects": [{"code": aspect, "label": t.ASPECT_LABELS[aspect].to_dict()} for aspect in t.ASPECTS],
            "combinations": derive.combinations_table(),
            "difficulties": [{"nd": nd, "label": label.to_dict()} for nd, label in t.DIFFICULTIES],
        }

    def creation_roll(
        self, rng: RandomSource, aspect_method: str = "ROLL_STANDARD", means_method: str = "ROLL"
    ) -> dict[str, Any]:
        return creation.creation_roll(rng, aspect_method, means_method)

    def can_reevaluate(self, resolution: Mapping[str, Any]) -> bool:
        """An action or overreach whose ND the GM may set after the roll (L903-L911)."""
        outcome = resolution.get("outcome")
        return resolution.get("kind") in ("action", "overreach") and isinstance(outcome, Mapping) and "nd" in outcome

    def reevaluate(
        self,
        resolution: dict[str, Any],
        difficulty: int | None,
        negative_nd: bool | None = None,
        nd_hidden: bool | None = None,
    ) -> dict[str, Any]:
        return reevaluate_stored(resolution, difficulty, negative_nd, nd_hidden)
