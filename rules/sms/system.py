"""The SMS :class:`RuleSystem`: ties schema, creation, resolution, combat, magic and progression together."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
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
    RecordingRandom,
    Resolution,
    RulesError,
    RuleSystem,
    SheetLayout,
    SheetRead,
    SheetTest,
    StateChange,
    Step,
    error,
    validate_fields,
)
from rules.sms import outcome as combat_outcome
from rules.sms import schema
from rules.sms import sheet_tests as _sheet_tests
from rules.sms.combat import (
    armour_modifier,
    initiative_order,
    initiative_tiebreak,
    interventions_allowed,
    pc_attack_die,
    pc_defence_die,
    pvp_outcome,
    reaction_penalty,
    size_modifier,
    weapon_size_malus,
)
from rules.sms.core import (
    action_score,
    choose_die,
    die_class,
    difficulty_die,
    resolve_die,
    resolve_with_degrees,
    score_from_modules,
    success_probability,
)
from rules.sms.creation import (
    apply_race,
    budget_lines,
    creation_budget,
    creation_errors,
    module_notation,
    validate_archetype_settings,
)
from rules.sms.health import (
    affliction_progress,
    fall_force,
    fall_is_mortal,
    fall_levels,
    fall_multiples,
    fall_virtual_height,
    fatigue_penalty,
    heal_wounds,
    levels_to_severity,
    projection_levels,
    recover_fatigue,
    severity_id,
    severity_key,
    status_after_wound,
    weapon_damage_levels,
)
from rules.sms.magic import (
    build_spell,
    counter_spell_die,
    dispel_die,
    dispel_score_penalty,
    ritual_dispel_die,
)
from rules.sms.npc import npc_difficulty
from rules.sms.tables import MAGIC_MODULE, RACES, SEVERITIES, STAKES

SLUG = "sms"


def _i(value: Any, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _steps(value: Any) -> int:
    return max(0, min(3, _i(value)))


def _score(request: Mapping[str, Any], extra: int = 0) -> dict[str, Any]:
    """Score of a request: from its ``modules`` list when given, else the typed ``score`` (+ ``modifier``)."""
    modifier = _i(request.get("modifier")) + extra
    modules = request.get("modules") or []
    if modules:
        return score_from_modules(modules, modifier)
    raw = _i(request.get("score"), 1) + modifier
    return {"raw": raw, "score": action_score(raw), "modifier": modifier}


#: Module domains that count for initiative (L558), compared without accents or case.
INITIATIVE_DOMAINS = frozenset(
    {
        "initiative",
        "anticipation",
        "anticiper",
        "prevoir",
        "prevision",
        "foresight",
        "calcul",
        "calculation",
        "reflexe",
        "reflexes",
        "reflex",
        "intuition",
    }
)


def _initiative_domain(value: Any) -> bool:
    import unicodedata

    text = unicodedata.normalize("NFKD", str(value or "")).encode("ascii", "ignore").decode().lower().strip()
    return text in INITIATIVE_DOMAINS


def _outcome_msg(out: Mapping[str, Any]) -> Msg:
    die = out.get("die", 0)
    if out.get("success"):
        if out.get("automatic"):
            return Msg(
                f"Réussite automatique (score {out['score']} contre D{die}).",
                f"Automatic success (score {out['score']} against D{die}).",
            )
        return Msg(
            f"Réussite : {out['roll']} sur D{die} (score {out['score']}).",
            f"Success: {out['roll']} on D{die} (score {out['score']}).",
        )
    stake = STAKES.get(out.get("stake", "none"), STAKES["none"])
    if out.get("roll") is None:
        return Msg(
            f"Échec automatique (D{die} inaccessible), {stake.fr}.",
            f"Automatic failure (D{die} out of reach), {stake.en}.",
        )
    return Msg(
        f"Échec : {out['roll']} sur D{die} (score {out['score']}), {stake.fr}.",
        f"Failure: {out['roll']} on D{die} (score {out['score']}), {stake.en}.",
    )


#: The GM's inputs on the session award screen, read by ``suggest_session_awards`` (L75).
SESSION_FACT_FIELDS: tuple[Field, ...] = (
    Field("scenario_completed", "bool", Msg("Scénario terminé", "Scenario completed"), default=False),
    Field("gm_bonus", "bool", Msg("Bonus du MJ", "GM bonus"), default=False),
    Field("scenario", "str", Msg("Scénario", "Scenario"), default="", max_length=100),
)


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
        return schema.derived_specs()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        return schema.settings_fields()

    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        return schema.test_kinds()

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

    def action_fields(self) -> tuple[Field, ...]:
        return schema.action_fields()

    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        return schema.purchase_fields()

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Version 1 is the first: fill missing keys with defaults (repeatable)."""
        sheet = super().migrate_sheet(sheet, from_version)
        merged = self.default_sheet()
        for key, value in sheet.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
        return merged

    def validate_settings(self, settings: dict[str, Any] | None) -> list[FieldError]:
        merged = self.settings(settings)
        return validate_fields(merged, self.campaign_settings_fields()) + validate_archetype_settings(merged)

    # ---- validation, derived values, budget --------------------------------------
    def follow_edit(
        self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A new race brings its fixed modules and size (L689, L695–874), replacing the old race's."""
        race = after.get("race")
        if race == before.get("race") or not isinstance(race, str):
            return after
        try:
            # From the previous race, so that its default size is recognised and replaced.
            return apply_race({**after, "race": before.get("race")}, race, self.settings(settings))
        except (RulesError, KeyError, TypeError):
            return after

    def validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        """NPCs follow the definition methods of L987–1035, not the PC creation budget.

        Uber-simple and simple NPCs are noted difficulties ("la difficulté pour
        lui résister est de 3", L997), so ``npc.difficulties`` must hold whole
        numbers (0–30) when noted; semi-modular and deluxe NPCs carry modules checked by
        their fields only (no XP budget, no creation rank cap: "pourra même
        avoir de l'expérience pour progresser", L1009).
        """
        errors = validate_fields(sheet, self.sheet_fields())
        raw = sheet.get("npc")
        npc: dict[str, Any] = raw if isinstance(raw, dict) else {}
        difficulties = npc.get("difficulties")
        if isinstance(difficulties, dict):
            for key, value in difficulties.items():
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 30:
                    errors.append(
                        error(
                            f"npc.difficulties.{key}",
                            "invalid_difficulty",
                            "Une difficulté notée est un nombre entier de 0 à 30 (L997).",
                            "A noted difficulty is a whole number from 0 to 30 (L997).",
                        )
                    )
        return errors  # an uber-simple NPC may have nothing noted: "à la demande" (L997)

    def validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        errors = validate_fields(sheet, self.sheet_fields())
        if errors:
            return errors
        return creation_errors(sheet, self.settings(settings))

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return creation_budget(sheet, self.settings(settings))

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        s = self.settings(settings)
        info = budget_lines(sheet, s)
        modules = [m for m in sheet.get("modules") or [] if isinstance(m, Mapping)]
        wounds = [w for w in sheet.get("wounds") or [] if isinstance(w, Mapping)]
        severities = []
        for w in wounds:
            try:
                severities.append(severity_id(w.get("severity", "light")))
            except ValueError:
                continue
        predefined = {}
        for m in modules:
            if m.get("predefined"):
                predefined[m["predefined"]] = max(predefined.get(m["predefined"], 0), _i(m.get("rank")))
        race = RACES.get(sheet.get("race") or "humain", RACES["humain"])
        return {
            "xp_budget": info["available"],
            "xp_spent": info["spend"],
            "xp_negative_credit": info["credit"],
            "xp_creation_left": info["left"],
            "wound_penalty": sum(SEVERITIES[x]["penalty"] for x in severities),
            "fatigue_penalty": fatigue_penalty(sheet.get("fatigue") or {}, _i(s.get("fatigue_penalty"), 1)),
            "out_of_combat": any(x >= 4 for x in severities),
            "interventions_allowed": interventions_allowed(predefined.get("intervention", 0)),
            "initiative_tiebreak": initiative_tiebreak(
                m for m in modules if str(m.get("domain", "")).lower() == "initiative"
            ),
            "magic": sorted(t for t, key in MAGIC_MODULE.items() if predefined.get(key, 0) >= 1),
            "full_rest_hours": race["full_rest_hours"],
            "module_lines": [module_notation(m) for m in modules],
        }

    # ---- resolution ---------------------------------------------------------------
    def _validate(self, request: Mapping[str, Any], kind: str) -> None:
        kinds = self.test_kinds()
        if kind not in kinds:
            raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])
        errors = validate_fields(request, kinds[kind])
        if errors:
            raise RulesError(errors)

    @staticmethod
    def _normalise(request: dict[str, Any]) -> dict[str, Any]:
        """Accept manipulation steps as ints as well as the choice strings ``"0"``..``"3"``."""
        out = dict(request)
        for key in ("range", "area", "duration", "effect_duration", "effect_area"):
            if isinstance(out.get(key), int) and not isinstance(out.get(key), bool):
                out[key] = str(out[key])
        return out

    def resolve(self, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any] | None = None) -> Resolution:
        request = self._normalise(request)
        kind = request.get("kind", "")
        self._validate(request, kind)
        s = self.settings(settings)
        rec = RecordingRandom(rng)
        handler = getattr(self, f"_t_{kind}")
        outcome, summary, success, tags = handler(request, rec, s)
        return Resolution(SLUG, kind, dict(request), list(rec.draws), outcome, summary, success, tags)

    def odds(self, request: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Exact odds of a test; for the spell builder (no roll), the spell's difficulty and energy cost.

        The spell builder's answer is what a player sees live while choosing components (L366-L412).
        """
        request = self._normalise(request)
        kind = request.get("kind", "")
        if kind == "spell_builder":
            self._validate(request, kind)
            return self._spell_preview(build_spell(request, self.settings(settings)))
        if kind not in ("action", "attack_npc", "defend_npc", "cast_spell", "counter_spell", "dispel"):
            return None
        self._validate(request, kind)
        s = self.settings(settings)
        score, die = self._score_and_die(kind, request, s)
        p = success_probability(score, die)
        threshold = request.get("threshold", "none") or "none"
        chosen = request.get("chosen_die")
        if kind == "action" and threshold != "none" and chosen is not None:
            # The roll uses the player's die (L97, L107-L119), as in ``_t_action``/``resolve_with_degrees``.
            gm_die = die
            die = choose_die(gm_die, _i(chosen), score)
            p = 0.0 if threshold == "absolute" and die < gm_die else success_probability(score, die)
        result = {"score": score, "die": die, "success": p, "failure": 1 - p}
        if kind == "cast_spell":
            result["energy_cost"] = build_spell(request, s)["energy_cost"]
        return result

    @staticmethod
    def _spell_preview(built: Mapping[str, Any]) -> dict[str, Any]:
        """Difficulty, score penalty and energy cost of a built spell, with a FR/EN summary."""
        if built["errors"]:
            raise RulesError([FieldError(e["path"], e["code"], Msg(**e["message"])) for e in built["errors"]])
        die, penalty, cost = built["difficulty"], built["score_penalty"], built["energy_cost"]
        fr = [f"{cost['lasting']} fatigue durable"] if cost["lasting"] else []
        en = [f"{cost['lasting']} lasting fatigue"] if cost["lasting"] else []
        if cost["transient"]:
            fr.append(f"{cost['transient']} fatigue passagère")
            en.append(f"{cost['transient']} transient fatigue")
        if cost["participants_lasting"]:
            # A ritual exhausts its caster and every participant (L390): one lasting fatigue each.
            fr.append(f"1 fatigue durable pour chacun des {cost['participants_lasting']} participants")
            en.append(f"1 lasting fatigue for each of the {cost['participants_lasting']} participants")
        summary = Msg(
            f"difficulté D{die}, malus au score {penalty}, coût en énergie : {', '.join(fr) or 'aucun'}",
            f"difficulty D{die}, score penalty {penalty}, energy cost: {', '.join(en) or 'none'}",
        )
        return {"difficulty": die, "score_penalty": penalty, "energy_cost": cost, "summary": summary.to_dict()}

    def _score_and_die(self, kind: str, r: Mapping[str, Any], s: Mapping[str, Any]) -> tuple[int, int]:
        if kind == "action":
            return _score(r)["score"], difficulty_die(_i(r.get("die")), [_i(r.get("circumstances"))])
        if kind == "attack_npc":
            return _score(r)["score"], pc_attack_die(
                _i(r.get("base_die")),
                r.get("severity", "light"),
                _i(r.get("armour_category")),
                _i(r.get("circumstances")),
                _i(r.get("barrier_power")),
            )
        if kind == "defend_npc":
            armour = armour_modifier(
                _i(r.get("armour_category")),
                "leather" if r.get("leather") else "custom",
                s.get("leather_armour", "minus_two"),
            )
            return _score(r)["score"], pc_defence_die(
                _i(r.get("base_die")),
                r.get("severity", "light"),
                armour,
                _i(r.get("shield_category")),
                _i(r.get("barrier_power")),
                _i(r.get("circumstances")),
            )
        if kind == "cast_spell":
            built = build_spell(r, s)
            return _score(r, -built["score_penalty"])["score"], built["difficulty"]
        if kind == "counter_spell":
            return _score(r)["score"], counter_spell_die(
                _i(r.get("caster_base_die")), _i(r.get("power"), 1), _i(r.get("circumstances"))
            )
        penalty = dispel_score_penalty(
            _steps(r.get("effect_duration")), _steps(r.get("effect_area")), _steps(r.get("range"))
        )
        power = _i(r.get("power"), 1)
        die = (ritual_dispel_die if r.get("ritual") else dispel_die)(power, _i(r.get("circumstances")))
        return _score(r, -penalty)["score"], die

    def _t_action(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        sc = _score(r)
        gm_die = difficulty_die(_i(r.get("die")), [_i(r.get("circumstances"))])
        chosen = r.get("chosen_die")
        out = resolve_with_degrees(
            sc["score"], gm_die, _i(chosen) if chosen is not None else None, r.get("threshold", "none") or "none", rng
        )
        out["score_detail"] = sc
        msg = _outcome_msg(out)
        if out.get("quality"):
            from rules.sms.tables import QUALITY_LABELS

            label = next(v[1] for v in QUALITY_LABELS.values() if v[0] == out["quality"])
            msg = Msg(f"{msg.fr} Résultat {label.fr}.", f"{msg.en} Result: {label.en}.")
        tags = ["automatic"] if out.get("automatic") else []
        return out, msg, out["success"], tags

    def _t_attack_npc(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        sc = _score(r)
        die = pc_attack_die(
            _i(r.get("base_die")),
            r.get("severity", "light"),
            _i(r.get("armour_category")),
            _i(r.get("circumstances")),
            _i(r.get("barrier_power")),
        )
        out = resolve_die(sc["score"], die, rng)
        sev = severity_id(r.get("severity", "light"))
        if out["success"]:
            out["wound"] = {"severity": SEVERITIES[sev]["key"]}
            out["target_status"] = status_after_wound(sev, bool(r.get("is_minion")))
        out["score_detail"] = sc
        return out, _outcome_msg(out), out["success"], []

    def _t_defend_npc(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        sc = _score(r)
        _, die = self._score_and_die("defend_npc", r, s)
        out = resolve_die(sc["score"], die, rng)
        sev = severity_id(r.get("severity", "light"))
        if not out["success"]:
            out["stake"] = "wound"  # the wound sought is the consequence (L126, spec Ambiguity 38)
            out["wound"] = {"severity": SEVERITIES[sev]["key"]}
            out["status"] = status_after_wound(sev)
        out["score_detail"] = sc
        msg = (
            _outcome_msg({**out, "stake": "none"})
            if out["success"]
            else Msg(
                f"Défense ratée : {SEVERITIES[sev]['label'].fr}.", f"Defence failed: {SEVERITIES[sev]['label'].en}."
            )
        )
        return out, msg, out["success"], []

    def _t_opposed(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        a_die = difficulty_die(_i(r.get("attacker_die")))
        d_die = difficulty_die(_i(r.get("defender_die")))
        att = resolve_die(_i(r.get("attacker_score"), 1), a_die, rng)
        defends = r.get("defends", True)
        dfn = resolve_die(_i(r.get("defender_score"), 1), d_die, rng) if defends else None
        res = pvp_outcome(att["success"], dfn["success"] if dfn else None, a_die, d_die)
        levels = 0
        if res["result_die"]:
            levels = weapon_damage_levels(_i(r.get("weapon_base")), res["result_die"], _i(r.get("armour_category")))
        res.update(attacker=att, defender=dfn, result_class=die_class(res["result_die"]), wound_levels=levels)
        if s.get("health_model") == "wound_levels" and levels:
            mapped = levels_to_severity(levels)
            res["wound"] = {"severity": severity_key(mapped)} if mapped else None
        msgs = {
            "none": Msg("L'attaque échoue : rien ne se passe.", "The attack fails: nothing happens."),
            "countered": Msg("Attaque entièrement contrée.", "Attack fully countered."),
            "full": Msg(
                f"Le défenseur subit tout le résultat (D{a_die}).", f"The defender takes the full result (D{a_die})."
            ),
            "partial": Msg(f"Dé de résultat D{res['result_die']}.", f"Result die D{res['result_die']}."),
        }
        return res, msgs[res["effect"]], res["effect"] in ("full", "partial"), []

    def _t_spell_builder(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        built = build_spell(r, s)
        msg = Msg(
            f"Difficulté D{built['difficulty']}, malus au score {built['score_penalty']}.",
            f"Difficulty D{built['difficulty']}, score penalty {built['score_penalty']}.",
        )
        return built, msg, None, []

    def _t_cast_spell(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        built = build_spell(r, s)
        if built["errors"]:
            raise RulesError([FieldError(e["path"], e["code"], Msg(**e["message"])) for e in built["errors"]])
        sc = _score(r, -built["score_penalty"])
        out = resolve_die(sc["score"], built["difficulty"], rng)
        out.update(spell=built, score_detail=sc, energy_cost=built["energy_cost"])
        return out, _outcome_msg(out), out["success"], []

    def _t_counter_spell(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        power = _i(r.get("power"), 1)
        if _i(r.get("magic_rank")) < power:
            raise RulesError(
                [
                    error(
                        "magic_rank",
                        "rank_below_power",
                        "Il faut la même magie au rang de la puissance du sort (L528).",
                        "The same magic at a rank at least the spell's power is needed (L528).",
                    )
                ]
            )
        score, die = self._score_and_die("counter_spell", r, s)
        out = resolve_die(score, die, rng)
        out["energy_cost"] = {"transient": 0, "lasting": 1}
        return out, _outcome_msg(out), out["success"], []

    def _t_dispel(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        power = _i(r.get("power"), 1)
        if _i(r.get("magic_rank")) < power:
            raise RulesError(
                [
                    error(
                        "magic_rank",
                        "rank_below_power",
                        "Il faut une magie au rang de la puissance de l'effet (L536, L548).",
                        "A magic at a rank at least the effect's power is needed (L536, L548).",
                    )
                ]
            )
        score, die = self._score_and_die("dispel", r, s)
        out = resolve_die(score, die, rng)
        out["energy_cost"] = {"transient": 0, "lasting": 1}
        return out, _outcome_msg(out), out["success"], []

    def _t_fall(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        height = _i(r.get("height"))
        ft = _i(r.get("size_factor"), 5)
        controlled = bool(r.get("controlled"))
        force = fall_force(height, ft, controlled)
        mortal = fall_is_mortal(height, ft)
        out: dict[str, Any] = {
            "height": height,
            "size_factor": ft,
            "force": force,
            "mortal_fall": mortal,
            "damage_type": "lethal" if r.get("sharp_surface") else "blunt",
        }
        outcome = "none"
        score = _score(r)["score"]
        if mortal:
            die = 12  # L627: he may still roll the D12 and needs a critical success
            roll = rng.randint(1, 12) if r.get("resist", True) else None
            survived = roll == 1
            out.update(die=die, roll=roll, dead=not survived)
            virtual = fall_virtual_height(height, ft, "critical_success") if survived else height
            out.update(virtual_height=virtual, levels=fall_levels(virtual, ft) if survived else None)
            msg = (
                Msg("Chute mortelle évitée de justesse.", "Mortal fall narrowly survived.")
                if survived
                else Msg("Chute mortelle (au-delà de 5 × FT, L627).", "Mortal fall (beyond 5 × FT, L627).")
            )
            return out, msg, survived, ["mortal_fall"]
        if force > 0 and r.get("resist", True):
            die = difficulty_die(force)
            chosen = r.get("chosen_die")
            if chosen is not None:
                die = difficulty_die(_i(chosen))
            res = resolve_die(score, die, rng, criticals=True, force_roll=bool(r.get("roll_anyway")))
            if res["critical_success"]:
                outcome = "critical_success"
            elif res["success"]:
                outcome = "success"
            elif res["critical_failure"]:
                outcome = "critical_failure"
            else:
                outcome = "failure"
            out.update(resist=res, die=die)
        virtual = fall_virtual_height(height, ft, outcome)
        levels = fall_levels(virtual, ft)
        out.update(outcome=outcome, virtual_height=virtual, levels=levels)
        self._levels_to_wound(out, levels, s)
        return out, Msg(f"Chute : {levels} niveau(x) de blessure.", f"Fall: {levels} wound level(s)."), None, []

    def _t_projection(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        ft = _i(r.get("size_factor"), 5)
        distance = _i(r.get("distance"))
        obstacle = r.get("obstacle_after")
        obstacle = _i(obstacle) if obstacle is not None else None
        used = distance - obstacle if obstacle is not None else distance
        out: dict[str, Any] = {"distance": distance, "obstacle_after": obstacle, "impact_distance": max(0, used)}
        outcome = "none"
        if r.get("resist"):
            tier = 1 + fall_multiples(max(0, used), ft)
            die = difficulty_die(3 * tier)  # an uncontrolled fall of this tier (L646, REC force 3 × tier)
            if r.get("chosen_die") is not None:
                die = difficulty_die(_i(r.get("chosen_die")))
            res = resolve_die(_score(r)["score"], die, rng, criticals=True)
            outcome = (
                "critical_success"
                if res["critical_success"]
                else "success"
                if res["success"]
                else "critical_failure"
                if res["critical_failure"]
                else "failure"
            )
            out.update(resist=res, die=die)
        shift = {"success": -1, "critical_success": -2, "failure": 0, "critical_failure": 1, "none": 0}[outcome]
        virtual = used + shift * ft
        # cushioning below the first tier absorbs everything (as the 2 m virtual fall of L633)
        levels = projection_levels(virtual, ft) if virtual >= 0 or shift >= 0 else 0
        out.update(outcome=outcome, levels=levels)
        self._levels_to_wound(out, levels, s)
        return (
            out,
            Msg(f"Projection : {levels} niveau(x) de blessure.", f"Projection: {levels} wound level(s)."),
            None,
            [],
        )

    def _levels_to_wound(self, out: dict[str, Any], levels: int, s: Mapping[str, Any]) -> None:
        if s.get("health_model") == "wound_levels":
            mapped = levels_to_severity(levels)
            out["wound"] = {"severity": severity_key(mapped)} if mapped else None

    def _affliction(self, kind: str, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        if r.get("treated"):
            out = {"progressed": False, "boxes_checked": _i(r.get("boxes_checked")), "wounds": 0}
            return (
                out,
                Msg("Causes éliminées : la progression cesse (L617).", "Causes removed: progression stops (L617)."),
                True,
                [],
            )
        total = _i(r.get("boxes_total")) or _i(s.get("disease_boxes"))
        resist = None
        die = _i(r.get("die"))
        if die:
            resist = resolve_die(_score(r)["score"], difficulty_die(die), rng)
        steps = 0 if resist and resist["success"] else _i(r.get("rate"), 1)
        out = affliction_progress(kind, total, _i(r.get("boxes_checked")), steps)
        out.update(resist=resist, progressed=steps > 0)
        if s.get("health_model") == "wound_levels" and out["wounds"]:
            out["wound"] = {"severity": "serious" if kind == "poison" else "critical"}
        msg = Msg(
            f"{out['boxes_checked']}/{total} cases, {out['wounds']} blessure(s).",
            f"{out['boxes_checked']}/{total} boxes, {out['wounds']} wound(s).",
        )
        return out, msg, not out["progressed"], []

    def _t_heal(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        before = list(r.get("wounds") or [])
        after = heal_wounds(before, r.get("level") or "light", bool(r.get("area")))
        out = {
            "wounds": after,
            "healed": len(before) - len(after),
            "stabilised": any(severity_id(w.get("severity", "light")) == 4 for w in after),
        }
        return out, Msg(f"{out['healed']} blessure(s) soignée(s).", f"{out['healed']} wound(s) healed."), None, []

    def _t_recovery(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        fatigue = {k: _i(r.get(k)) for k in ("transient", "lasting", "persistent")}
        after = recover_fatigue(
            fatigue, r.get("event", "sequence_end"), _i(r.get("amount")), bool(r.get("maintaining"))
        )
        out = {"fatigue": after, "penalty": fatigue_penalty(after, _i(s.get("fatigue_penalty"), 1))}
        msg = Msg(
            "Fatigue : {t} passagère, {l} durable, {p} persistante.",
            "Fatigue: {t} transient, {l} lasting, {p} persistent.",
        ).format(t=after["transient"], l=after["lasting"], p=after["persistent"])
        return out, msg, None, []

    def _t_npc_difficulty(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        die = npc_difficulty(
            r.get("method", "simple"), _i(r.get("base")), r.get("modules") or [], _i(r.get("modifier"))
        )
        return {"die": die}, Msg(f"Difficulté D{die}.", f"Difficulty D{die}."), None, []

    def _t_disease(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        return self._affliction("disease", r, rng, s)

    def _t_poison(self, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
        return self._affliction("poison", r, rng, s)

    # ---- combat -------------------------------------------------------------------
    def combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        fatigue = sheet.get("fatigue") or {}
        return {
            "initiative": None,
            "reactions": 0,
            "interventions_used": 0,
            "spell_cast": False,
            "wounds": copy.deepcopy(sheet.get("wounds") or []),
            "fatigue": {k: _i(fatigue.get(k)) for k in ("transient", "lasting", "persistent")},
            "status": sheet.get("status") or "active",
        }

    def initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Initiative = an action score of the modules of anticipation, foresight or calculation and of
        reflexes and intuition (L558 «On y intègre généralement tout module indiquant une capacité à
        anticiper, prévoir ou calculer, et tout module décrivant les réflexes et l'intuition»).

        Reading (issue #15): a PC's initiative is read from its SHEET, the modules whose domain names
        initiative, anticipation, foresight, calculation, reflexes or intuition; the score or modules a
        declaration carries for its action do not count (the declared action is not the reaction). The
        GM's ``modifier`` applies. NPCs, which the text does not order, get the GM's ``score``
        (spec Ambiguity 26)."""
        entries = []
        for c in combatants:
            d = declarations.get(c.id) or {}
            modules = None
            if not c.is_npc:
                modules = [
                    m
                    for m in (c.sheet.get("modules") or [])
                    if isinstance(m, Mapping) and _initiative_domain(m.get("domain"))
                ]
            if modules:
                score = score_from_modules(modules, _i(d.get("modifier")))["score"]
                tiebreak = initiative_tiebreak(modules)
            elif not c.is_npc:  # no module of reflexes or anticipation: the lowest score (≤ 0 counts 1, L95)
                score = action_score(_i(d.get("modifier")))
                tiebreak = 0
            else:
                score = action_score(_i(d.get("score"), 1) + _i(d.get("modifier")))
                tiebreak = _i(d.get("tiebreak"))
            entries.append({"id": c.id, "score": score, "tiebreak": tiebreak, "draws": []})
        return initiative_order(entries, rng)

    def resolve_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        declaration: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> CombatResult:
        errors = validate_fields(declaration, self.action_fields())
        if errors:
            raise RulesError(errors)
        s = self.settings(settings)
        rec = RecordingRandom(rng)
        kind = declaration.get("kind", "attack")
        timing = declaration.get("timing", "action") or "action"
        changes: list[StateChange] = []
        a_state = actor.state or {}

        def change(c: Combatant, path: str, before: Any, after: Any) -> None:
            if before != after:
                changes.append(StateChange(c.id, path, before, after))

        # turn budget (L565, L573, L575)
        reactions = _i(a_state.get("reactions"))
        penalty = reaction_penalty(reactions)
        if timing == "intervention":
            allowed = interventions_allowed(self._predefined_rank(actor.sheet, "intervention"))
            used = _i(a_state.get("interventions_used"))
            if used >= allowed:
                raise RulesError(
                    [
                        error(
                            "timing",
                            "no_intervention_left",
                            "Plus d'intervention possible avant votre prochaine action (L565).",
                            "No intervention left before your next action (L565).",
                        )
                    ]
                )
        if actor.is_npc and kind not in ("attack", "end_sequence", "catch_breath"):
            raise RulesError(
                [
                    error(
                        "kind",
                        "npc_never_rolls",
                        "Le MJ ne lance jamais les dés : l'action d'un PNJ est une difficulté (L103).",
                        "The GM never rolls: an NPC's action is a difficulty (L103).",
                    )
                ]
            )
        casts_spell = kind in ("spell", "counter_spell") and not declaration.get("special_power")
        if casts_spell and a_state.get("spell_cast") and timing != "action":
            raise RulesError(
                [
                    error(
                        "kind",
                        "one_spell_per_turn",
                        "Un seul sort entre deux actions (L575).",
                        "Only one spell between two actions (L575).",
                    )
                ]
            )

        outcome: dict[str, Any]
        summary: Msg
        fatigue_before = dict(a_state.get("fatigue") or {"transient": 0, "lasting": 0, "persistent": 0})
        fatigue_after = dict(fatigue_before)

        if kind in ("catch_breath", "end_sequence"):
            fatigue_after["transient"] = 0  # L158
            outcome = {"recovered": "transient"}
            summary = Msg("Fatigue passagère récupérée (L158).", "Transient fatigue recovered (L158).")
        elif kind == "attack":
            outcome, summary = self._attack(actor, target, declaration, rec, s, penalty, change)
        elif kind in ("spell", "counter_spell"):
            outcome, summary = self._spell_action(actor, target, declaration, rec, s, penalty, change)
            cost = outcome["energy_cost"]
            fatigue_after["lasting"] = _i(fatigue_after.get("lasting")) + cost.get("lasting", 0)
            fatigue_after["transient"] = _i(fatigue_after.get("transient")) + cost.get("transient", 0)
        else:
            if declaration.get("die") is None:
                raise RulesError(
                    [error("die", "required", "Indiquez le dé de difficulté.", "Give the difficulty die.")]
                )
            sc = _score(declaration, penalty)
            die = difficulty_die(_i(declaration.get("die")), [_i(declaration.get("circumstances"))])
            outcome = resolve_die(sc["score"], die, rec)
            summary = _outcome_msg(outcome)
        if timing == "intervention" and kind not in ("spell", "counter_spell"):
            fatigue_after["transient"] = _i(fatigue_after.get("transient")) + 1  # L571
        for k in ("transient", "lasting", "persistent"):
            change(actor, f"fatigue.{k}", _i(fatigue_before.get(k)), _i(fatigue_after.get(k)))
        if kind == "end_sequence":
            change(actor, "reactions", reactions, 0)
            change(actor, "interventions_used", _i(a_state.get("interventions_used")), 0)
            change(actor, "spell_cast", bool(a_state.get("spell_cast")), False)
        elif timing == "action":
            change(actor, "reactions", reactions, 0)  # L573: cleared once he acts
            change(actor, "interventions_used", _i(a_state.get("interventions_used")), 0)
            change(actor, "spell_cast", bool(a_state.get("spell_cast")), casts_spell)
        else:
            if timing == "reaction":
                change(actor, "reactions", reactions, reactions + 1)
            else:
                change(
                    actor,
                    "interventions_used",
                    _i(a_state.get("interventions_used")),
                    _i(a_state.get("interventions_used")) + 1,
                )
            if casts_spell:
                change(actor, "spell_cast", bool(a_state.get("spell_cast")), True)
        outcome["reaction_penalty"] = penalty
        secret = {}
        if target is not None and target.is_npc:
            secret = {"npc_die": outcome.get("die")}
        return CombatResult(SLUG, kind, dict(declaration), list(rec.draws), outcome, summary, changes, secret)

    def action_options(
        self,
        sheet: dict[str, Any],
        state: dict[str, Any],
        settings: dict[str, Any] | None = None,
        *,
        defending: bool = False,
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        """The sheet's weapons (L597: an unsuited weapon costs the size difference)."""
        if defending:
            return {}
        weapons = [w for w in sheet.get("weapons") or [] if isinstance(w, Mapping)]
        if not weapons:
            return {}
        return {
            "weapon": tuple(
                (str(i), Msg(str(w.get("name") or i), str(w.get("name") or i))) for i, w in enumerate(weapons)
            )
        }

    def defence_fields(self, declaration: dict[str, Any], actor: Combatant, target: Combatant) -> tuple[Field, ...]:
        """An NPC attacks a PC: the PC's player defends, choosing the reaction's score or modules and the
        shield (L103: the GM never rolls; the PC's defence is the PC's action, L565–L575)."""
        if declaration.get("kind", "attack") != "attack" or not actor.is_npc or target.is_npc:
            return ()
        return tuple(f for f in self.action_fields() if f.path in combat_outcome.DEFENCE_PATHS)

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        return combat_outcome.public_outcome(result, actor, target)

    def combat_condition(self, state: dict[str, Any]) -> str:
        return combat_outcome.combat_condition(state)

    def carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return combat_outcome.carry_combat_state(sheet, state)

    def combat_value_labels(self) -> dict[str, Msg]:
        return combat_outcome.VALUE_LABELS

    @staticmethod
    def _predefined_rank(sheet: Mapping[str, Any], key: str) -> int:
        return max(
            [
                _i(m.get("rank"))
                for m in sheet.get("modules") or []
                if isinstance(m, Mapping) and m.get("predefined") == key
            ]
            or [0]
        )

    def _wound(self, target: Combatant, severity: int, nature: str, change: Any) -> None:
        state = target.state or {}
        before = copy.deepcopy(state.get("wounds") or [])
        after = [
            *copy.deepcopy(before),
            {"nature": nature, "severity": SEVERITIES[severity]["key"], "domain": "", "damage_type": "", "source": ""},
        ]
        is_minion = bool((target.sheet.get("npc") or {}).get("is_minion")) and target.is_npc
        status_before = state.get("status") or "active"
        status = status_after_wound(severity, is_minion)
        if status == "active":
            status = status_before
        change(target, "wounds", before, after)
        change(target, "status", status_before, status)

    def _attack(
        self,
        actor: Combatant,
        target: Combatant | None,
        d: Mapping[str, Any],
        rng: RandomSource,
        s: Mapping[str, Any],
        penalty: int,
        change: Any,
    ) -> tuple[dict[str, Any], Msg]:
        if target is None:
            raise RulesError([error("target", "required", "Choisissez une cible.", "Choose a target.")])
        if actor.is_npc and target.is_npc:
            raise RulesError(
                [error("target", "npc_vs_npc", "Le MJ ne lance jamais les dés (L103).", "The GM never rolls (L103).")]
            )
        sev = severity_id(d.get("severity", "light"))
        size = 0
        if d.get("apply_size", True):
            size = size_modifier(_i(actor.sheet.get("size_factor"), 5), _i(target.sheet.get("size_factor"), 5))
        weapons = actor.sheet.get("weapons") or []
        w_index = d.get("weapon")
        if not actor.is_npc and w_index is not None and 0 <= _i(w_index) < len(weapons):
            # an unsuited weapon costs the size difference (L597)
            size += weapon_size_malus(
                _i(weapons[_i(w_index)].get("size_factor"), 5), _i(actor.sheet.get("size_factor"), 5)
            )
        if not actor.is_npc and target.is_npc:
            npc = target.sheet.get("npc") or {}
            base = d.get("die") if d.get("die") is not None else _i(npc.get("base_defence_die"), 8)
            armour = self._armour(target.sheet, d, s)
            sc = _score(d, penalty + size)
            die = pc_attack_die(_i(base), sev, armour, _i(d.get("circumstances")), _i(d.get("barrier_power")))
            out = resolve_die(sc["score"], die, rng)
            out.update(direction="pc_to_npc", score_detail=sc, size_modifier=size, armour=armour)
            if out["success"]:
                self._wound(target, sev, d.get("wound_nature", ""), change)
            return out, _outcome_msg(out)
        if actor.is_npc and not target.is_npc:
            npc = actor.sheet.get("npc") or {}
            base = d.get("die") if d.get("die") is not None else _i(npc.get("base_attack_die"), 8)
            armour = self._armour(target.sheet, d, s)
            shield = _i((target.sheet.get("shield") or {}).get("category")) if d.get("shield") else 0
            t_state = target.state or {}
            t_reactions = _i(t_state.get("reactions"))
            sc = _score(d, reaction_penalty(t_reactions) - size)
            die = pc_defence_die(_i(base), sev, armour, shield, _i(d.get("barrier_power")), _i(d.get("circumstances")))
            out = resolve_die(sc["score"], die, rng)
            out.update(direction="npc_to_pc", score_detail=sc, size_modifier=-size, armour=armour, shield=shield)
            change(target, "reactions", t_reactions, t_reactions + 1)
            if not out["success"]:
                out["stake"] = "wound"
                self._wound(target, sev, d.get("wound_nature", ""), change)
                return out, Msg(
                    f"Défense ratée : {SEVERITIES[sev]['label'].fr}.", f"Defence failed: {SEVERITIES[sev]['label'].en}."
                )
            return out, Msg("Attaque parée.", "Attack warded off.")
        # PC against PC (L271–275, L581): each chose his die
        a_die = difficulty_die(_i(d.get("die"), 6))
        att = resolve_die(_score(d, penalty + size)["score"], a_die, rng)
        out = {
            "direction": "pc_to_pc",
            "attacker": att,
            "die": a_die,
            "success": att["success"],
            "defender_pending": att["success"],
        }
        return out, _outcome_msg(att)

    def _armour(self, sheet: Mapping[str, Any], d: Mapping[str, Any], s: Mapping[str, Any]) -> int:
        armour = sheet.get("armour") or {}
        value = armour_modifier(
            _i(armour.get("category")), armour.get("kind", "custom"), s.get("leather_armour", "minus_two")
        )
        applies = d.get("armour_applies", "full")
        if applies == "none":
            return 0
        if applies == "partial":
            return max(0, value - 1)
        return value

    def _spell_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        d: Mapping[str, Any],
        rng: RandomSource,
        s: Mapping[str, Any],
        penalty: int,
        change: Any,
    ) -> tuple[dict[str, Any], Msg]:
        components = dict(d.get("spell") or {})
        if d.get("special_power"):
            components["mode"] = "special_power"
        components["intervention"] = d.get("timing") == "intervention"
        if d.get("kind") == "counter_spell":
            power = _i(components.get("power"), 1)
            die = counter_spell_die(_i(components.get("caster_base_die"), 4), power, _i(d.get("circumstances")))
            sc = _score(d, penalty)
            out = resolve_die(sc["score"], die, rng)
            out["energy_cost"] = {"transient": 0, "lasting": 2 if components["intervention"] else 1}
            return out, _outcome_msg(out)
        if target is not None and target.is_npc and components.get("nature") == "offensive":
            components.setdefault("target_die", _i((target.sheet.get("npc") or {}).get("base_defence_die"), 8))
        built = build_spell(components, s)
        if built["errors"]:
            raise RulesError(
                [FieldError(f"spell.{e['path']}", e["code"], Msg(**e["message"])) for e in built["errors"]]
            )
        sc = _score(d, penalty - built["score_penalty"])
        out = resolve_die(sc["score"], built["difficulty"], rng)
        out.update(spell=built, score_detail=sc, energy_cost=built["energy_cost"])
        if out["success"] and target is not None and built["nature"] == "offensive":
            eff = built["effect"]["effective_severity"]
            if eff >= 1:
                self._wound(target, eff, d.get("wound_nature", ""), change)
        return out, _outcome_msg(out)

    # ---- progression ----------------------------------------------------------------
    def purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """One more rank in each module the XP pay for: "autant de point d'expérience que sa portée" (L63,
        L77), priced by :meth:`purchase`. The scenario is the player's to name in the form (L77)."""
        out = super().purchase_offers(sheet, balances, settings, facts)
        for index, m in enumerate(sheet.get("modules") or []):
            if not isinstance(m, Mapping):
                continue
            request = {"kind": "raise_module", "module": index, "scenario": "—", "scenario_completed": True}
            result = self.purchase(sheet, request, balances, settings)
            if result.errors or not result.entries:
                continue
            rank = _i(m.get("rank"))
            label = f"{module_notation(m)} → {rank + 1}"
            out.append(
                {
                    "kind": "raise_module",
                    "request": {"module": index},
                    "label": Msg(label, label),
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
        """Spend XP at the end of a scenario (L77): scope XP per rank, one rank per module per scenario."""
        s = self.settings(settings)
        kind = request.get("kind", "")
        fields = self.purchase_fields()
        if kind not in fields:
            return PurchaseResult(
                sheet, [], [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")]
            )
        errors = validate_fields(request, fields[kind])
        if errors:
            return PurchaseResult(sheet, [], errors)
        if request.get("scenario_completed", True) is not True:
            return PurchaseResult(
                sheet,
                [],
                [
                    error(
                        "scenario_completed",
                        "scenario_not_completed",
                        "On ne progresse qu'à la fin d'un scénario (L77).",
                        "Progression happens at the end of a scenario (L77).",
                    )
                ],
            )
        new = copy.deepcopy(sheet)
        modules = new.setdefault("modules", [])
        advances = new.setdefault("advances", [])
        scenario = str(request["scenario"])
        xp = _i((balances or {}).get("xp"))
        if kind == "raise_module":
            index = _i(request.get("module"))
            if index >= len(modules):
                return PurchaseResult(
                    sheet, [], [error("module", "not_found", "Module introuvable.", "Module not found.")]
                )
            m = modules[index]
            name = m.get("name", "")
            checks = [
                (
                    m.get("kind") == "negative",
                    "negative_module",
                    "Les défauts ne s'achètent pas.",
                    "Flaws are not bought.",
                ),
                (
                    not m.get("progressable", True),
                    "not_progressable",
                    "Qualité intrinsèque d'un objet : ne progresse pas (L81).",
                    "An object's intrinsic quality cannot progress (L81).",
                ),
                (
                    m.get("removable") and not m.get("object_possessed", True),
                    "object_lost",
                    "Objet perdu : module inaccessible (L53).",
                    "Object lost: module unavailable (L53).",
                ),
                (
                    any(a.get("module") == name and a.get("scenario") == scenario for a in advances),
                    "one_rank_per_scenario",
                    "Un seul rang par module à la fin d'un scénario (L77).",
                    "One rank per module at the end of a scenario (L77).",
                ),
            ]
            max_rank = _i(s.get("max_rank"))
            if m.get("predefined") in MAGIC_MODULE.values():
                max_rank = _i(s.get("magic_max_rank"), 5)
            checks.append(
                (
                    bool(max_rank) and _i(m.get("rank")) + 1 > max_rank,
                    "max_rank",
                    "Rang maximum atteint.",
                    "Maximum rank reached.",
                )
            )
            for failed, code, fr, en in checks:
                if failed:
                    return PurchaseResult(sheet, [], [error("module", code, fr, en)])
            cost = _i(m.get("scope"), 1)
            if cost > xp:
                return PurchaseResult(
                    sheet, [], [error("module", "not_enough_xp", "Il faut {n} XP.", "{n} XP needed.", n=cost)]
                )
            m["rank"] = _i(m.get("rank")) + 1
            m["progress_ranks"] = _i(m.get("progress_ranks")) + 1
        else:
            name = str(request["name"]).strip()
            if any(x.get("name") == name for x in modules):
                return PurchaseResult(
                    sheet, [], [error("name", "duplicate", "Ce module existe déjà.", "This module already exists.")]
                )
            cost = _i(request.get("scope"), 1)
            if cost > xp:
                return PurchaseResult(
                    sheet, [], [error("scope", "not_enough_xp", "Il faut {n} XP.", "{n} XP needed.", n=cost)]
                )
            modules.append(
                {
                    "name": name,
                    "kind": request.get("module_kind") or "positive",
                    "scope": cost,
                    "rank": 1,
                    "free_rank": 0,
                    "progress_ranks": 1,
                    "source": "purchased",
                    "predefined": request.get("predefined", ""),
                    "domain": "",
                    "removable": False,
                    "object_name": "",
                    "object_possessed": True,
                    "progressable": True,
                    "roleplay": False,
                }
            )
        advances.append({"module": name, "scenario": scenario, "cost": cost})
        note = Msg(f"Progression : {name} (+1 rang)", f"Advance: {name} (+1 rank)")
        entry = LedgerDraft("xp", -cost, "purchase", note, {"module": name, "scenario": scenario})
        return PurchaseResult(new, [entry])

    def session_fact_fields(self) -> tuple[Field, ...]:
        """GM inputs of the session award screen (the keys ``suggest_session_awards`` reads)."""
        return SESSION_FACT_FIELDS

    def suggest_session_awards(
        self, sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> list[LedgerDraft]:
        """+1 per session played, +1 per scenario completed, +1 GM bonus (L75)."""
        out: list[LedgerDraft] = []
        session = facts.get("session_id") or facts.get("session")
        scenario = facts.get("scenario_id") or facts.get("scenario")
        if facts.get("present"):
            out.append(
                LedgerDraft(
                    "xp",
                    1,
                    "system_award",
                    Msg("Partie jouée (L75)", "Session played (L75)"),
                    {"reason": "session", "session": session},
                )
            )
        played = facts.get("played_in_scenario", facts.get("present", False))
        if facts.get("scenario_completed") and played:
            out.append(
                LedgerDraft(
                    "xp",
                    1,
                    "system_award",
                    Msg("Scénario terminé (L75)", "Scenario completed (L75)"),
                    {"reason": "scenario", "scenario": scenario},
                )
            )
            if facts.get("gm_bonus"):
                out.append(
                    LedgerDraft(
                        "xp",
                        1,
                        "gm_award",
                        Msg("Bonus du MJ (L75)", "GM bonus (L75)"),
                        {"reason": "gm_bonus", "scenario": scenario},
                    )
                )
        return out

    def apply_progression(
        self, sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> ProgressionResult:
        """XP balance recomputed from the ledger (idempotent); duplicated award keys count once."""
        seen: set[tuple[Any, ...]] = set()
        xp = 0
        for e in entries:
            if e.get("currency", "xp") != "xp":
                continue
            data = e.get("data") or {}
            reason = data.get("reason")
            if reason in ("session", "scenario", "gm_bonus"):
                key = (reason, data.get("session"), data.get("scenario"))
                if key in seen:
                    continue
                seen.add(key)
            xp += _i(e.get("amount"))
        flags = [{"code": "negative_xp", "xp": xp}] if xp < 0 else []
        return ProgressionResult({"xp": xp}, sheet, flags)
