"""*Les Clefs de l'Aube* (slug ``clefs-de-l-aube``), seed 002 rev. 1.3.

Modules: :mod:`.tables` (rule tables as data), :mod:`.schema` (fields and
forms), :mod:`.derive` (BC, CA, aspect ladder), :mod:`.creation`
(semi-random creation, :func:`creation_roll`), :mod:`.resolution` (one d20
roll-under, ND, critical die, confrontation, multiple actions, exact odds,
:func:`reevaluate`), :mod:`.combat` (confrontations round by round),
:mod:`.progression` (PX spending).

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

import copy
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

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
    RulesError,
    RuleSystem,
    SheetContext,
    SheetLayout,
    SheetRead,
    SheetTest,
    Step,
    error,
    validate_fields,
)
from rules.clefs import combat, outcome, progression, schema
from rules.clefs import sheet_tests as _sheet_tests
from rules.clefs import tables as t
from rules.clefs.combat import request_from_sheet
from rules.clefs.creation import (
    creation_errors,
    creation_pools,
    creation_roll,
    follow_placement,
    replay_creation_roll,
    server_roll_errors,
)
from rules.clefs.derive import (
    aspect_ladder,
    combination_name,
    combinations_table,
    derive_sheet,
    means_errors,
    skill_cost,
    skills_of,
)
from rules.clefs.resolution import (
    add_critical_die,
    base_result,
    confrontation_winner,
    draw,
    evaluate,
    exact_odds,
    multiple_action_handicap,
    normalize_action,
    odds_report,
    reevaluate,
    resolve_simple,
    summary_for,
    target_number,
    unplanned_action_handicap,
)

__all__ = [
    "SYSTEM",
    "ClefsDeLAube",
    "add_critical_die",
    "aspect_ladder",
    "combination_name",
    "combinations_table",
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


class ClefsDeLAube(RuleSystem):
    slug = t.SLUG
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
        return schema.campaign_settings_fields()

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
        specs = [DerivedSpec(f"aspects.{c}", t.ASPECT_LABELS[c], "aspects") for c in t.ASPECTS]
        specs += [
            DerivedSpec(f"aspect_px.{c}", Msg(f"PX d'aspect {c}", f"Aspect PX {c}"), "aspects") for c in t.ASPECTS
        ]
        specs += [
            DerivedSpec(
                "pending_means_exchanges", Msg("Échanges de moyens en attente", "Pending means exchanges"), "means"
            ),
            DerivedSpec(
                "skills", Msg("Compétences : BC, CA par défaut, titre", "Skills: BC, default CA, title"), "skills"
            ),
            DerivedSpec("handicap_total", Msg("Handicaps actifs", "Active handicaps"), "conditions"),
            DerivedSpec("advantage_total", Msg("Avantages actifs", "Active advantages"), "conditions"),
        ]
        return tuple(specs)

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Version 0 → 1: accept the seed's alternative codes (Mt, Rs, full names) as keys (reading G24)."""
        sheet = super().migrate_sheet(sheet, from_version)
        if from_version >= 1:
            return sheet
        sheet = copy.deepcopy(sheet)
        for key, aliases in (("aspects", t.ASPECT_ALIASES), ("means", t.MEANS_ALIASES)):
            block = sheet.get(key)
            if isinstance(block, dict):
                sheet[key] = {aliases.get(str(k).upper(), k): v for k, v in block.items()}
        for skill in skills_of(sheet):
            if "aspect" in skill:
                skill["aspect"] = t.ASPECT_ALIASES.get(str(skill["aspect"]).upper(), skill["aspect"])
            if "default_means" in skill:
                skill["default_means"] = t.MEANS_ALIASES.get(
                    str(skill["default_means"]).upper(), skill["default_means"]
                )
        return sheet

    def locked_paths(self, sheet: dict[str, Any], context: SheetContext) -> list[str]:
        """``creation.roll`` is the server's copy of its creation roll: nobody writes it (GMs
        neither: they roll again). Once rolled, the methods it was rolled with stay (L517-L576)."""
        locked = super().locked_paths(sheet, context)
        locked.append("creation.roll")
        if not context.gm and context.rolls.get("creation"):
            locked += ["creation.aspect_method", "creation.means_method"]
        return locked

    def verify_server_rolls(self, sheet: dict[str, Any], rolls: Any) -> list[FieldError]:
        return server_roll_errors(sheet, rolls)

    # ---- validation and derived values ------------------------------------
    def validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        errors = validate_fields(sheet, self.sheet_fields())
        if errors:
            return errors
        merged = self.settings(settings)
        seen: set[tuple[str, str]] = set()
        for index, skill in enumerate(skills_of(sheet)):
            key = (str(skill.get("name", "")).strip().casefold(), str(skill.get("aspect")))
            if key in seen:
                errors.append(
                    error(
                        f"skills.{index}.name",
                        "duplicate_skill",
                        "Cette compétence existe déjà sous cet aspect.",
                        "This skill already exists under this aspect.",
                    )
                )
            seen.add(key)
            nc = skill.get("nc") or 0
            if skill.get("creation_nc") is not None and skill["creation_nc"] > nc:
                errors.append(
                    error(
                        f"skills.{index}.creation_nc",
                        "creation_nc_above_nc",
                        "Le NC de création dépasse le NC actuel.",
                        "The creation NC exceeds the current NC.",
                    )
                )
            if skill.get("aspect_px_granted") is not None and skill["aspect_px_granted"] > nc:
                errors.append(
                    error(
                        f"skills.{index}.aspect_px_granted",
                        "granted_above_nc",
                        "Une compétence ne donne pas plus de PX d'aspect que son NC.",
                        "A skill gives no more aspect PX than its NC.",
                    )
                )
        errors += [FieldError(path, code, msg) for path, code, msg in means_errors(sheet.get("means") or {})]
        errors += creation_errors(sheet, merged)
        return errors

    def follow_edit(
        self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A new placement of the rolled results restarts the exchanges (L523-L525, L550, L576-L577)."""
        return follow_placement(before, after)

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return derive_sheet(sheet)

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        pools = creation_pools(sheet)
        spent = pools["aspect_exchanges"]["spent"] + pools["means_exchanges"]["spent"]
        lines = [
            {
                "label": Msg("Échanges d'aspects", "Aspect exchanges").to_dict(),
                "amount": pools["aspect_exchanges"]["spent"],
                "path": "aspects",
            },
            {
                "label": Msg("Points d'échange de moyens", "Means exchange points").to_dict(),
                "amount": pools["means_exchanges"]["spent"],
                "path": "means",
            },
        ]
        errors = creation_errors(sheet, self.settings(settings))
        errors += [FieldError(path, code, msg) for path, code, msg in means_errors(sheet.get("means") or {})]
        total = t.ASPECT_EXCHANGES + t.MEANS_EXCHANGE_POINTS
        return Budget("points", total, spent, lines, errors, pools)

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return schema.test_kinds()

    def sheet_tests(
        self, sheet: dict[str, Any], settings: dict[str, Any] | None = None, state: dict[str, Any] | None = None
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

    def _inputs(self, request: dict[str, Any], settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
        if isinstance(request, dict) and isinstance(request.get("sheet"), dict):
            extra = {
                k: v
                for k, v in request.items()
                if k not in ("sheet", "aspect_code", "means_code", "skill_name", "kind")
            }
            request = request_from_sheet(
                request["sheet"],
                request.get("aspect_code", ""),
                request.get("means_code"),
                request.get("skill_name"),
                **extra,
            )
        return normalize_action(request, settings, prefix)

    def resolve(self, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any] | None = None) -> Resolution:
        merged = self.settings(settings)
        if not isinstance(request, dict):
            raise RulesError([error("", "invalid_dict", "Objet attendu.", "Expected an object.")])
        kind = request.get("kind", "action")
        if kind == "action":
            return resolve_simple(self._inputs(request, merged), rng)
        if kind == "overreach":
            return self._overreach(request, rng, merged)
        if kind == "confrontation":
            return self._confrontation(request, rng, merged)
        if kind == "multiple":
            return self._multiple(request, rng, merged)
        raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])

    def _overreach(self, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
        """Overreach action (action de dépassement, L1111-L1134), as far as the truncated text goes.

        Resolved like a simple action (L1114-L1116); Diff, "la difficulté du
        jet de résolution" (L1122-L1126), is used as the roll's ND unless an
        ND is given; Eff (effort maximal, "le [dom] maximal", L1130-L1132) is
        recorded without mechanics (reading G21). The player-controlled risk
        element is not in the supplied text.
        """
        errors: list[FieldError] = []
        values = {}
        for key, lo, hi in (("diff", -100, 100), ("eff", 0, 1000)):
            value = request.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi):
                errors.append(
                    error(
                        key,
                        "out_of_range",
                        "Doit être entre {lo} et {hi}.",
                        "Must be between {lo} and {hi}.",
                        lo=lo,
                        hi=hi,
                    )
                )
            values[key] = value
        if errors:
            raise RulesError(errors)
        base = dict(request)
        if base.get("nd") in (None, "") and values["diff"] is not None:
            base["nd"] = values["diff"]
        inputs = self._inputs(base, settings)
        inputs["diff"], inputs["eff"] = values["diff"], values["eff"]
        resolution = resolve_simple(inputs, rng, kind="overreach")
        resolution.outcome["overreach"] = {"diff": values["diff"], "eff": values["eff"], "rules_complete": False}
        resolution.tags.append("overreach_incomplete_rules")
        return resolution

    def _confrontation(self, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
        """Two opposed actions (la confrontation, L1065-L1073); draws: side a, then side b."""
        sides = {}
        errors: list[FieldError] = []
        for side in ("a", "b"):
            try:
                sides[side] = self._inputs(request.get(side) or {}, settings, f"{side}.")
            except RulesError as exc:
                errors += exc.errors
        if errors:
            raise RulesError(errors)
        if settings.get("confrontation_force_roll", True):
            for inputs in sides.values():
                inputs["force_roll"] = True
        draws_a = draw(sides["a"], rng)
        draws_b = draw(sides["b"], rng)
        out_a, out_b = evaluate(sides["a"], draws_a), evaluate(sides["b"], draws_b)
        winner = confrontation_winner(out_a, out_b)
        verdict = {
            "a": Msg("A l'emporte", "A wins"),
            "b": Msg("B l'emporte", "B wins"),
            None: Msg("aucun vainqueur", "no winner"),
        }[winner]
        sa, sb = summary_for(out_a, sides["a"].get("label") or "A"), summary_for(out_b, sides["b"].get("label") or "B")
        return Resolution(
            t.SLUG,
            "confrontation",
            {"a": sides["a"], "b": sides["b"]},
            draws_a + draws_b,
            {"a": out_a, "b": out_b, "winner": winner, "draws_a": len(draws_a)},
            Msg(f"{sa.fr} | {sb.fr} → {verdict.fr}", f"{sa.en} | {sb.en} → {verdict.en}"),
            success=None,
            tags=["confrontation", f"winner_{winner or 'none'}"],
        )

    def _multiple(self, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
        """Simultaneous actions in order of importance, then unplanned ones (L1075-L1109)."""
        planned = request.get("actions")
        unplanned = request.get("unplanned") or []
        if not isinstance(planned, list) or not planned or len(planned) > 10:
            raise RulesError([error("actions", "invalid_list", "Entre 1 et 10 actions.", "Between 1 and 10 actions.")])
        if not isinstance(unplanned, list) or len(unplanned) > 10:
            raise RulesError(
                [error("unplanned", "invalid_list", "10 actions imprévues au plus.", "At most 10 unplanned.")]
            )
        n = len(planned)
        rows: list[tuple[str, dict[str, Any], int]] = []
        errors: list[FieldError] = []
        for group, items in (("actions", planned), ("unplanned", unplanned)):
            for i, item in enumerate(items, start=1):
                handicap = multiple_action_handicap(n, i) if group == "actions" else unplanned_action_handicap(n, i)
                try:
                    inputs = self._inputs(item, settings, f"{group}.{i - 1}.")
                except RulesError as exc:
                    errors += exc.errors
                    continue
                if handicap:
                    inputs["handicaps"] = [*inputs["handicaps"], handicap]
                rows.append((group, inputs, handicap))
        if errors:
            raise RulesError(errors)
        all_draws: list[int] = []
        results = []
        for group, inputs, handicap in rows:
            draws = draw(inputs, rng)
            all_draws += draws
            outcome = evaluate(inputs, draws)
            results.append(
                {
                    "group": group,
                    "multiple_action_handicap": handicap,
                    "inputs": inputs,
                    "outcome": outcome,
                    "draws": draws,
                }
            )
        fr = " | ".join(summary_for(r["outcome"], f"#{k + 1}").fr for k, r in enumerate(results))
        en = " | ".join(summary_for(r["outcome"], f"#{k + 1}").en for k, r in enumerate(results))
        return Resolution(
            t.SLUG,
            "multiple",
            {"actions": [r["inputs"] for r in results], "planned": n},
            all_draws,
            {"results": results},
            Msg(fr, en),
            success=None,
            tags=["multiple_actions"],
        )

    def odds(self, request: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Exact odds before rolling (spec §4.13). Hidden NDs are left out of the report."""
        merged = self.settings(settings)
        kind = request.get("kind", "action") if isinstance(request, dict) else None
        if kind in ("action", "overreach"):
            base = dict(request)
            if kind == "overreach" and base.get("nd") in (None, "") and base.get("diff") is not None:
                base["nd"] = base["diff"]
            inputs = self._inputs(base, merged)
            hidden = inputs.get("nd_hidden")
            if hidden:
                inputs = {**inputs, "nd": None}
            report = odds_report(inputs)
            report["nd_hidden"] = bool(hidden)
            return report
        if kind == "confrontation":
            sides = {s: self._inputs(request.get(s) or {}, merged, f"{s}.") for s in ("a", "b")}
            if merged.get("confrontation_force_roll", True):
                for inputs in sides.values():
                    inputs["force_roll"] = True
            report = {s: odds_report(sides[s]) for s in sides}
            report["winner"] = confrontation_odds(sides["a"], sides["b"])
            return report
        if kind == "multiple":
            planned = request.get("actions") or []
            if not isinstance(planned, list) or len(planned) > 10:
                raise RulesError(
                    [error("actions", "invalid_list", "Entre 1 et 10 actions.", "Between 1 and 10 actions.")]
                )
            n = len(planned)
            out = []
            for i, item in enumerate(planned, start=1):
                inputs = self._inputs(item, merged, f"actions.{i - 1}.")
                handicap = multiple_action_handicap(n, i)
                if handicap:
                    inputs["handicaps"] = [*inputs["handicaps"], handicap]
                out.append(odds_report(inputs))
            return {"actions": out}
        return None

    # ---- combat -----------------------------------------------------------
    def combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        return combat.combat_state(sheet)

    def action_fields(self) -> tuple[Field, ...]:
        return schema.action_fields()

    def validate_action(
        self,
        actor_sheet: dict[str, Any],
        declaration: dict[str, Any],
        target_sheet: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> list[FieldError]:
        """A declared skill must be on the sheet, unless the GM marks the roll untrained (G13)."""
        from rules.clefs.combat import declaration_errors

        return declaration_errors(actor_sheet, declaration, target_sheet)

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

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        return outcome.public_outcome(result, actor, target)

    def carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return outcome.carry_combat_state(sheet, state)

    def combat_value_labels(self) -> dict[str, Msg]:
        return outcome.VALUE_LABELS

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return schema.purchase_fields()

    def purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Also one level more in each skill the PX pay for: "chaque niveau coûte le nouveau NC"
        (L626-L667, :func:`skill_cost`), priced by :meth:`purchase`."""
        out = super().purchase_offers(sheet, balances, settings, facts)
        for skill in skills_of(sheet):
            name, nc = skill.get("name"), skill.get("nc")
            if not isinstance(name, str) or not name.strip() or not isinstance(nc, int) or nc >= t.NC_MAX:
                continue
            offer = {"skill": name, "aspect": skill.get("aspect"), "to": nc + 1}
            result = self.purchase(sheet, {"kind": "raise_skill", **offer}, balances, settings)
            if result.errors or not result.entries:
                continue
            out.append(
                {
                    "kind": "raise_skill",
                    "request": offer,
                    "label": Msg(f"{name} : NC {nc} → {nc + 1}", f"{name}: NC {nc} → {nc + 1}"),
                    "cost": -sum(d.amount for d in result.entries if d.currency == "xp"),
                }
            )
        return out

    def purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
    ) -> PurchaseResult:
        return progression.purchase(sheet, request, balances, self.settings(settings))

    def suggest_session_awards(
        self, sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> list[LedgerDraft]:
        return progression.suggest_session_awards(sheet, facts, self.settings(settings))

    def apply_progression(
        self, sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> ProgressionResult:
        return progression.apply_progression(sheet, entries, self.settings(settings))

    # ---- GM aids ----------------------------------------------------------
    def gm_aids(self) -> dict[str, Any]:
        """GM-only help: the indicative combination names (L356-L422) and the ND table (L837-L869)."""
        return {
            "aspects": [{"code": aspect, "label": t.ASPECT_LABELS[aspect].to_dict()} for aspect in t.ASPECTS],
            "combinations": combinations_table(),
            "difficulties": [{"nd": nd, "label": label.to_dict()} for nd, label in t.DIFFICULTIES],
        }

    def creation_roll(
        self, rng: RandomSource, aspect_method: str = "ROLL_STANDARD", means_method: str = "ROLL"
    ) -> dict[str, Any]:
        return creation_roll(rng, aspect_method, means_method)

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
        return reevaluate(resolution, difficulty, negative_nd, nd_hidden)


def confrontation_odds(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any] | None:
    """Exact P(a wins), P(b wins), P(no winner) by enumerating both d20s (no critical die; else ``None``)."""
    if a.get("crit_die") or b.get("crit_die"):
        return None

    def dist(inputs: dict[str, Any]) -> list[tuple[Fraction, dict[str, Any]]]:
        from rules.clefs.resolution import compute_ca, is_automatic, must_roll

        ca = compute_ca(inputs)
        if not must_roll(inputs):
            return [(Fraction(1), {"level": is_automatic(ca), "dr": None, "ca": ca})]
        rows = []
        for r in range(1, t.D20 + 1):
            level, dr, _ = base_result(ca, r)
            rows.append((Fraction(1, t.D20), {"level": level, "dr": dr, "ca": ca}))
        return rows

    result = {"a": Fraction(0), "b": Fraction(0), "none": Fraction(0)}
    for pa, oa in dist(a):
        for pb, ob in dist(b):
            winner = confrontation_winner(oa, ob)
            result[winner or "none"] += pa * pb
    return {key: float(value) for key, value in result.items()} | {
        "exact": {key: str(value) for key, value in result.items()}
    }


SYSTEM = ClefsDeLAube()
