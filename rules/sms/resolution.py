"""Tests of the Storytelling Modulary System: :func:`test_kinds`, :func:`resolve`, :func:`odds`.

One function per test kind (``_t_<kind>``); the arithmetic they use lives
beside this module: :mod:`rules.sms.core` (action score, variable die,
degrees, stakes, L95-L126), :mod:`rules.sms.health` (wounds, fatigue, falls,
projections, afflictions, L133-L160, L583-L678), :mod:`rules.sms.magic`
(spell builder, counter-magic, L366-L548), :mod:`rules.sms.combat` (attack
and defence dice, PvP, L171-L275) and :mod:`rules.sms.npc` (NPC
difficulties, L987-L1035).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.base import (
    Field,
    FieldError,
    Msg,
    RandomSource,
    RecordingRandom,
    Resolution,
    RulesError,
    error,
    to_int,
    validate_fields,
)
from rules.sms import schema
from rules.sms.combat import (
    armour_modifier,
    pc_attack_die,
    pc_defence_die,
    pvp_outcome,
)
from rules.sms.core import (
    choose_die,
    die_class,
    die_level,
    difficulty_die,
    outcome_msg,
    request_score,
    resolve_die,
    resolve_with_degrees,
    success_probability,
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
from rules.sms.magic import build_spell, counter_spell_die, dispel_die, dispel_score_penalty, ritual_dispel_die
from rules.sms.npc import npc_difficulty
from rules.sms.tables import QUALITY_LABELS, SEVERITIES

SLUG = "sms"


def test_kinds() -> dict[str, tuple[Field, ...]]:
    """The request kinds :func:`resolve` accepts (fields declared in :mod:`rules.sms.schema`)."""
    return schema.test_kinds()


def _steps(value: Any) -> int:
    return max(0, min(3, to_int(value)))


def _validate(request: Mapping[str, Any], kind: str) -> None:
    kinds = schema._test_kinds()  # the cached declarations themselves (test_kinds() hands out a copy)
    if kind not in kinds:
        raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])
    errors = validate_fields(request, kinds[kind])
    if errors:
        raise RulesError(errors)


def _normalise(request: dict[str, Any]) -> dict[str, Any]:
    """Accept manipulation steps as ints as well as the choice strings ``"0"``..``"3"``."""
    out = dict(request)
    for key in _STEP_KEYS:
        value = out.get(key)
        if value is not None and isinstance(value, int) and not isinstance(value, bool):
            out[key] = str(value)
    return out


_STEP_KEYS = ("range", "area", "duration", "effect_duration", "effect_area")


def resolve(request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Resolve a test request (``{"kind": ..., ...}``) with its kind's handler; draws are recorded."""
    request = _normalise(request)
    kind = request.get("kind", "")
    _validate(request, kind)
    rec = RecordingRandom(rng)
    outcome, summary, success, tags = _HANDLERS[kind](request, rec, settings)
    level, margin = die_level(outcome, success)
    return Resolution(SLUG, kind, dict(request), rec.draws, outcome, summary, success, tags, level, margin)


def odds(request: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any] | None:
    """Exact odds of a test; for the spell builder (no roll), the spell's difficulty and energy cost.

    The spell builder's answer is what a player sees live while choosing components (L366-L412).
    """
    request = _normalise(request)
    kind = request.get("kind", "")
    if kind == "spell_builder":
        _validate(request, kind)
        return _spell_preview(build_spell(request, settings))
    if kind not in ("action", "attack_npc", "defend_npc", "cast_spell", "counter_spell", "dispel"):
        return None
    _validate(request, kind)
    score, die = _score_and_die(kind, request, settings)
    p = success_probability(score, die)
    threshold = request.get("threshold", "none") or "none"
    chosen = request.get("chosen_die")
    if kind == "action" and threshold != "none" and chosen is not None:
        # The roll uses the player's die (L97, L107-L119), as in ``_t_action``/``resolve_with_degrees``.
        gm_die = die
        die = choose_die(gm_die, to_int(chosen), score)
        p = 0.0 if threshold == "absolute" and die < gm_die else success_probability(score, die)
    result = {"score": score, "die": die, "success": p, "failure": 1 - p}
    if kind == "cast_spell":
        result["energy_cost"] = build_spell(request, settings)["energy_cost"]
    return result


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


def _score_and_die(kind: str, r: Mapping[str, Any], s: Mapping[str, Any]) -> tuple[int, int]:
    if kind == "action":
        return request_score(r)["score"], difficulty_die(to_int(r.get("die")), [to_int(r.get("circumstances"))])
    if kind == "attack_npc":
        return request_score(r)["score"], pc_attack_die(
            to_int(r.get("base_die")),
            r.get("severity", "light"),
            to_int(r.get("armour_category")),
            to_int(r.get("circumstances")),
            to_int(r.get("barrier_power")),
        )
    if kind == "defend_npc":
        armour = armour_modifier(
            to_int(r.get("armour_category")),
            "leather" if r.get("leather") else "custom",
            s.get("leather_armour", "minus_two"),
        )
        return request_score(r)["score"], pc_defence_die(
            to_int(r.get("base_die")),
            r.get("severity", "light"),
            armour,
            to_int(r.get("shield_category")),
            to_int(r.get("barrier_power")),
            to_int(r.get("circumstances")),
        )
    if kind == "cast_spell":
        built = build_spell(r, s)
        return request_score(r, -built["score_penalty"])["score"], built["difficulty"]
    if kind == "counter_spell":
        return request_score(r)["score"], counter_spell_die(
            to_int(r.get("caster_base_die")), to_int(r.get("power"), 1), to_int(r.get("circumstances"))
        )
    penalty = dispel_score_penalty(
        _steps(r.get("effect_duration")), _steps(r.get("effect_area")), _steps(r.get("range"))
    )
    power = to_int(r.get("power"), 1)
    die = (ritual_dispel_die if r.get("ritual") else dispel_die)(power, to_int(r.get("circumstances")))
    return request_score(r, -penalty)["score"], die


def _t_action(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    sc = request_score(r)
    gm_die = difficulty_die(to_int(r.get("die")), [to_int(r.get("circumstances"))])
    chosen = r.get("chosen_die")
    out = resolve_with_degrees(
        sc["score"], gm_die, to_int(chosen) if chosen is not None else None, r.get("threshold", "none") or "none", rng
    )
    out["score_detail"] = sc
    msg = outcome_msg(out)
    if out.get("quality"):
        label = next(v[1] for v in QUALITY_LABELS.values() if v[0] == out["quality"])
        msg = Msg(f"{msg.fr} Résultat {label.fr}.", f"{msg.en} Result: {label.en}.")
    tags = ["automatic"] if out.get("automatic") else []
    return out, msg, out["success"], tags


def _t_attack_npc(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    sc = request_score(r)
    die = pc_attack_die(
        to_int(r.get("base_die")),
        r.get("severity", "light"),
        to_int(r.get("armour_category")),
        to_int(r.get("circumstances")),
        to_int(r.get("barrier_power")),
    )
    out = resolve_die(sc["score"], die, rng)
    sev = severity_id(r.get("severity", "light"))
    if out["success"]:
        out["wound"] = {"severity": SEVERITIES[sev]["key"]}
        out["target_status"] = status_after_wound(sev, bool(r.get("is_minion")))
    out["score_detail"] = sc
    return out, outcome_msg(out), out["success"], []


def _t_defend_npc(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    sc = request_score(r)
    _, die = _score_and_die("defend_npc", r, s)
    out = resolve_die(sc["score"], die, rng)
    sev = severity_id(r.get("severity", "light"))
    if not out["success"]:
        out["stake"] = "wound"  # the wound sought is the consequence (L126, spec Ambiguity 38)
        out["wound"] = {"severity": SEVERITIES[sev]["key"]}
        out["status"] = status_after_wound(sev)
    out["score_detail"] = sc
    msg = (
        outcome_msg({**out, "stake": "none"})
        if out["success"]
        else Msg(f"Défense ratée : {SEVERITIES[sev]['label'].fr}.", f"Defence failed: {SEVERITIES[sev]['label'].en}.")
    )
    return out, msg, out["success"], []


def _t_opposed(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    a_die = difficulty_die(to_int(r.get("attacker_die")))
    d_die = difficulty_die(to_int(r.get("defender_die")))
    att = resolve_die(to_int(r.get("attacker_score"), 1), a_die, rng)
    defends = r.get("defends", True)
    dfn = resolve_die(to_int(r.get("defender_score"), 1), d_die, rng) if defends else None
    res = pvp_outcome(att["success"], dfn["success"] if dfn else None, a_die, d_die)
    levels = 0
    if res["result_die"]:
        levels = weapon_damage_levels(to_int(r.get("weapon_base")), res["result_die"], to_int(r.get("armour_category")))
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


def _t_spell_builder(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    built = build_spell(r, s)
    msg = Msg(
        f"Difficulté D{built['difficulty']}, malus au score {built['score_penalty']}.",
        f"Difficulty D{built['difficulty']}, score penalty {built['score_penalty']}.",
    )
    return built, msg, None, []


def _t_cast_spell(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    built = build_spell(r, s)
    if built["errors"]:
        raise RulesError([FieldError(e["path"], e["code"], Msg(**e["message"])) for e in built["errors"]])
    sc = request_score(r, -built["score_penalty"])
    out = resolve_die(sc["score"], built["difficulty"], rng)
    out.update(spell=built, score_detail=sc, energy_cost=built["energy_cost"])
    return out, outcome_msg(out), out["success"], []


def _t_counter_spell(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    power = to_int(r.get("power"), 1)
    if to_int(r.get("magic_rank")) < power:
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
    score, die = _score_and_die("counter_spell", r, s)
    out = resolve_die(score, die, rng)
    out["energy_cost"] = {"transient": 0, "lasting": 1}
    return out, outcome_msg(out), out["success"], []


def _t_dispel(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    power = to_int(r.get("power"), 1)
    if to_int(r.get("magic_rank")) < power:
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
    score, die = _score_and_die("dispel", r, s)
    out = resolve_die(score, die, rng)
    out["energy_cost"] = {"transient": 0, "lasting": 1}
    return out, outcome_msg(out), out["success"], []


def _t_fall(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    height = to_int(r.get("height"))
    ft = to_int(r.get("size_factor"), 5)
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
    score = request_score(r)["score"]
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
            die = difficulty_die(to_int(chosen))
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
    _levels_to_wound(out, levels, s)
    return out, Msg(f"Chute : {levels} niveau(x) de blessure.", f"Fall: {levels} wound level(s)."), None, []


def _t_projection(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    ft = to_int(r.get("size_factor"), 5)
    distance = to_int(r.get("distance"))
    obstacle = r.get("obstacle_after")
    obstacle = to_int(obstacle) if obstacle is not None else None
    used = distance - obstacle if obstacle is not None else distance
    out: dict[str, Any] = {"distance": distance, "obstacle_after": obstacle, "impact_distance": max(0, used)}
    outcome = "none"
    if r.get("resist"):
        tier = 1 + fall_multiples(max(0, used), ft)
        die = difficulty_die(3 * tier)  # an uncontrolled fall of this tier (L646, REC force 3 × tier)
        if r.get("chosen_die") is not None:
            die = difficulty_die(to_int(r.get("chosen_die")))
        res = resolve_die(request_score(r)["score"], die, rng, criticals=True)
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
    _levels_to_wound(out, levels, s)
    return (
        out,
        Msg(f"Projection : {levels} niveau(x) de blessure.", f"Projection: {levels} wound level(s)."),
        None,
        [],
    )


def _t_heal(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    before = list(r.get("wounds") or [])
    after = heal_wounds(before, r.get("level") or "light", bool(r.get("area")))
    out = {
        "wounds": after,
        "healed": len(before) - len(after),
        "stabilised": any(severity_id(w.get("severity", "light")) == 4 for w in after),
    }
    return out, Msg(f"{out['healed']} blessure(s) soignée(s).", f"{out['healed']} wound(s) healed."), None, []


def _t_recovery(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    fatigue = {k: to_int(r.get(k)) for k in ("transient", "lasting", "persistent")}
    after = recover_fatigue(
        fatigue, r.get("event", "sequence_end"), to_int(r.get("amount")), bool(r.get("maintaining"))
    )
    out = {"fatigue": after, "penalty": fatigue_penalty(after, to_int(s.get("fatigue_penalty"), 1))}
    msg = Msg(
        "Fatigue : {t} passagère, {l} durable, {p} persistante.",
        "Fatigue: {t} transient, {l} lasting, {p} persistent.",
    ).format(t=after["transient"], l=after["lasting"], p=after["persistent"])
    return out, msg, None, []


def _t_npc_difficulty(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    die = npc_difficulty(
        r.get("method", "simple"), to_int(r.get("base")), r.get("modules") or [], to_int(r.get("modifier"))
    )
    return {"die": die}, Msg(f"Difficulté D{die}.", f"Difficulty D{die}."), None, []


def _t_disease(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    return _affliction("disease", r, rng, s)


def _t_poison(r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    return _affliction("poison", r, rng, s)


def _levels_to_wound(out: dict[str, Any], levels: int, s: Mapping[str, Any]) -> None:
    if s.get("health_model") == "wound_levels":
        mapped = levels_to_severity(levels)
        out["wound"] = {"severity": severity_key(mapped)} if mapped else None


def _affliction(kind: str, r: Mapping[str, Any], rng: RandomSource, s: Mapping[str, Any]) -> tuple:
    if r.get("treated"):
        stopped = {"progressed": False, "boxes_checked": to_int(r.get("boxes_checked")), "wounds": 0}
        return (
            stopped,
            Msg("Causes éliminées : la progression cesse (L617).", "Causes removed: progression stops (L617)."),
            True,
            [],
        )
    total = to_int(r.get("boxes_total")) or to_int(s.get("disease_boxes"))
    resist = None
    die = to_int(r.get("die"))
    if die:
        resist = resolve_die(request_score(r)["score"], difficulty_die(die), rng)
    steps = 0 if resist and resist["success"] else to_int(r.get("rate"), 1)
    out: dict[str, Any] = affliction_progress(kind, total, to_int(r.get("boxes_checked")), steps)
    out.update(resist=resist, progressed=steps > 0)
    if s.get("health_model") == "wound_levels" and out["wounds"]:
        out["wound"] = {"severity": "serious" if kind == "poison" else "critical"}
    msg = Msg(
        f"{out['boxes_checked']}/{total} cases, {out['wounds']} blessure(s).",
        f"{out['boxes_checked']}/{total} boxes, {out['wounds']} wound(s).",
    )
    return out, msg, not out["progressed"], []


_HANDLERS: dict[str, Callable[[Mapping[str, Any], RandomSource, Mapping[str, Any]], tuple]] = {
    "action": _t_action,
    "attack_npc": _t_attack_npc,
    "defend_npc": _t_defend_npc,
    "opposed": _t_opposed,
    "spell_builder": _t_spell_builder,
    "cast_spell": _t_cast_spell,
    "counter_spell": _t_counter_spell,
    "dispel": _t_dispel,
    "fall": _t_fall,
    "projection": _t_projection,
    "heal": _t_heal,
    "recovery": _t_recovery,
    "npc_difficulty": _t_npc_difficulty,
    "disease": _t_disease,
    "poison": _t_poison,
}


#: Names of the test kinds (:func:`test_kinds` keys).
TEST_KIND_LABELS: dict[str, Msg] = {
    "action": Msg("Action", "Action"),
    "attack_npc": Msg("Attaque contre un PNJ", "Attack against an NPC"),
    "defend_npc": Msg("Défense contre un PNJ", "Defence against an NPC"),
    "opposed": Msg("Test en opposition", "Opposed test"),
    "spell_builder": Msg("Construction d'un sort", "Spell builder"),
    "cast_spell": Msg("Lancer un sort", "Casting a spell"),
    "counter_spell": Msg("Contre-sort", "Counter-spell"),
    "dispel": Msg("Dissipation", "Dispel"),
    "fall": Msg("Chute", "Fall"),
    "projection": Msg("Projection", "Projection"),
    "heal": Msg("Soins", "Healing"),
    "recovery": Msg("Récupération", "Recovery"),
    "npc_difficulty": Msg("Difficulté d'un PNJ", "NPC difficulty"),
    "disease": Msg("Maladie", "Disease"),
    "poison": Msg("Poison", "Poison"),
}
