"""Combat helpers (L171–275, L554–601): attack/defence dice, armour, size, initiative, PvP, turn budget.

Readings:
* PC attacks NPC: ``N = base + severity offset + armour category + circumstances`` (L185–194, L228, L258);
  a barrier on the NPC raises the die by 2 × power (mirror of armour, spec Ambiguity 36);
* NPC attacks PC: ``N = base − severity offset − armour − shield − 2 × barrier power + circumstances``
  (L196–198, L220–224, L232, L447–455, L254); a failed defence gives the wound sought, no extra stake
  (spec Ambiguity 38);
* leather armour: −2 by default (L224, L228), or a light armour −1 as in the table (L220) by campaign setting;
* size: the smaller combatant gets +d to hit/evade, the larger −d (L593–595); Model A has no damage amount,
  so size only moves the score (spec Ambiguity 29);
* initiative ties: Σ rank × scope (negative modules subtract), then a D12, higher first, re-rolled while
  tied (L558, spec Ambiguity 27);
* reactions: −k where k = reactions already made since the last own action (L573, spec Ambiguity 24);
  interventions allowed = 1 + rank of the «Intervention» module (L565, spec Ambiguity 25);
  one spell between two own actions, counter-spells included, special powers exempt (L575).
"""

from __future__ import annotations

import copy
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rules.base import (
    ACTION_KEY,
    Combatant,
    CombatResult,
    FieldError,
    Msg,
    RandomSource,
    RecordingRandom,
    RulesError,
    StateChange,
    error,
    to_int,
    validate_fields,
    with_action_key,
)
from rules.base.clean import _copy
from rules.sms import schema
from rules.sms.core import (
    action_score,
    die_level,
    difficulty_die,
    outcome_msg,
    request_score,
    resolve_die,
    score_from_modules,
)
from rules.sms.health import severity_id, status_after_wound
from rules.sms.magic import build_spell, counter_spell_die
from rules.sms.tables import SEVERITIES, SHARED_SEVERITY

SLUG = "sms"


def armour_modifier(category: int, kind: str = "custom", leather_reading: str = "minus_two") -> int:
    """Die modifier of an armour (L217–222); leather per campaign reading (L220 vs L224/L228)."""
    if kind == "leather":
        return 2 if leather_reading == "minus_two" else 1
    return max(0, min(3, int(category)))


def pc_attack_die(base: int, severity: Any, armour: int = 0, circumstances: int = 0, barrier_power: int = 0) -> int:
    """Die for a PC to wound an NPC (L185–194, L228, L258)."""
    offset = SEVERITIES[severity_id(severity)]["offset"]
    return difficulty_die(base, [offset, armour, 2 * barrier_power, circumstances])


def pc_defence_die(
    base: int, severity: Any, armour: int = 0, shield: int = 0, barrier_power: int = 0, circumstances: int = 0
) -> int:
    """Die for a PC to resist an NPC's attack (L198, L220–224, L232, L447–455, L254)."""
    offset = SEVERITIES[severity_id(severity)]["offset"]
    return difficulty_die(base, [-offset, -armour, -shield, -2 * barrier_power, circumstances])


def size_modifier(own_size: int, other_size: int) -> int:
    """Score modifier to hit or evade from the size difference (L593–595): smaller +d, larger −d."""
    return int(other_size) - int(own_size)


def weapon_size_malus(weapon_size: int, wielder_size: int) -> int:
    """An unsuited weapon costs the size difference on the score (L597)."""
    return -abs(int(weapon_size) - int(wielder_size))


def reaction_penalty(reactions_so_far: int) -> int:
    """−1 per reaction already made since the last own action (L573)."""
    return -max(0, int(reactions_so_far))


def interventions_allowed(intervention_rank: int = 0) -> int:
    """One intervention between two own actions, more with the «Intervention» module (L565)."""
    return 1 + max(0, int(intervention_rank))


def initiative_tiebreak(modules: Iterable[Mapping[str, Any]]) -> int:
    """Σ rank × scope of the initiative modules (L558), negative modules subtract."""
    total = 0
    for m in modules:
        value = int(m.get("rank", 0)) * int(m.get("scope", 1))
        total += -value if m.get("kind") == "negative" else value
    return total


def initiative_order(entries: list[dict[str, Any]], rng: RandomSource) -> list[dict[str, Any]]:
    """Order by score desc, tie-break desc, then D12 desc (re-rolled while tied) (L558).

    ``entries``: ``{"id", "score", "tiebreak"}``. D12 draws are made in the input order of the tied
    entries, so a replay with the recorded draws gives the same order.
    """
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for e in entries:
        e.setdefault("draws", [])
        groups.setdefault((e["score"], e["tiebreak"]), []).append(e)
    ordered: list[dict[str, Any]] = []
    for key in sorted(groups, reverse=True):
        ordered.extend(_break_ties(groups[key], rng))
    return ordered


def _break_ties(group: list[dict[str, Any]], rng: RandomSource) -> list[dict[str, Any]]:
    if len(group) == 1:
        return group
    rolls: dict[int, list[dict[str, Any]]] = {}
    for e in group:
        value = rng.randint(1, 12)
        e["draws"].append(value)
        rolls.setdefault(value, []).append(e)
    out: list[dict[str, Any]] = []
    for value in sorted(rolls, reverse=True):
        out.extend(_break_ties(rolls[value], rng))
    return out


def pvp_outcome(attacker_success: bool, defender_success: bool | None, attacker_die: int, defender_die: int) -> dict:
    """Opposed PCs (L581): attacker fails → nothing; defender fails (or does not react) → result die =
    attacker's die; both succeed → attacker's die − defender's die, ≤ 0 fully countered."""
    if not attacker_success:
        return {"effect": "none", "result_die": 0}
    if not defender_success:
        return {"effect": "full", "result_die": attacker_die}
    diff = attacker_die - defender_die
    if diff <= 0:
        return {"effect": "countered", "result_die": 0}
    return {"effect": "partial", "result_die": diff}


# --------------------------------------------------------------------------
# The combat step: state, initiative, one declared action (L554-L601)
# --------------------------------------------------------------------------
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
    text = unicodedata.normalize("NFKD", str(value or "")).encode("ascii", "ignore").decode().lower().strip()
    return text in INITIATIVE_DOMAINS


def combat_state(
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
        "fatigue": {k: to_int(fatigue.get(k)) for k in ("transient", "lasting", "persistent")},
        "status": sheet.get("status") or "active",
    }


def initiative(
    combatants: Sequence[Combatant],
    declarations: dict[str, dict[str, Any]],
    rng: RandomSource,
    settings: dict[str, Any],
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
            score = score_from_modules(modules, to_int(d.get("modifier")))["score"]
            tiebreak = initiative_tiebreak(modules)
        elif not c.is_npc:  # no module of reflexes or anticipation: the lowest score (≤ 0 counts 1, L95)
            score = action_score(to_int(d.get("modifier")))
            tiebreak = 0
        else:
            score = action_score(to_int(d.get("score"), 1) + to_int(d.get("modifier")))
            tiebreak = to_int(d.get("tiebreak"))
        entries.append({"id": c.id, "score": score, "tiebreak": tiebreak, "draws": []})
    return initiative_order(entries, rng)


_FATIGUE_PATHS = tuple((k, f"fatigue.{k}") for k in ("transient", "lasting", "persistent"))


def resolve_action(
    actor: Combatant,
    target: Combatant | None,
    declaration: dict[str, Any],
    rng: RandomSource,
    settings: dict[str, Any],
) -> CombatResult:
    declaration = with_action_key(declaration, "kind")  # a declaration stored before #16
    errors = validate_fields(declaration, schema.action_fields())
    if errors:
        raise RulesError(errors)
    s = settings
    rec = RecordingRandom(rng)
    kind = declaration.get(ACTION_KEY, "attack")
    timing = declaration.get("timing", "action") or "action"
    changes: list[StateChange] = []
    a_state = actor.state or {}

    def change(c: Combatant, path: str, before: Any, after: Any) -> None:
        if before != after:
            changes.append(StateChange(c.id, path, before, after))

    # turn budget (L565, L573, L575)
    reactions = to_int(a_state.get("reactions"))
    penalty = reaction_penalty(reactions)
    if timing == "intervention":
        allowed = interventions_allowed(_predefined_rank(actor.sheet, "intervention"))
        used = to_int(a_state.get("interventions_used"))
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
                    ACTION_KEY,
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
                    ACTION_KEY,
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
        outcome, summary = _attack(actor, target, declaration, rec, s, penalty, change)
    elif kind in ("spell", "counter_spell"):
        outcome, summary = _spell_action(actor, target, declaration, rec, s, penalty, change)
        cost = outcome["energy_cost"]
        fatigue_after["lasting"] = to_int(fatigue_after.get("lasting")) + cost.get("lasting", 0)
        fatigue_after["transient"] = to_int(fatigue_after.get("transient")) + cost.get("transient", 0)
    else:
        if declaration.get("die") is None:
            raise RulesError([error("die", "required", "Indiquez le dé de difficulté.", "Give the difficulty die.")])
        sc = request_score(declaration, penalty)
        die = difficulty_die(to_int(declaration.get("die")), [to_int(declaration.get("circumstances"))])
        outcome = resolve_die(sc["score"], die, rec)
        summary = outcome_msg(outcome)
    if timing == "intervention" and kind not in ("spell", "counter_spell"):
        fatigue_after["transient"] = to_int(fatigue_after.get("transient")) + 1  # L571
    for k, path in _FATIGUE_PATHS:
        change(actor, path, to_int(fatigue_before.get(k)), to_int(fatigue_after.get(k)))
    if kind == "end_sequence":
        change(actor, "reactions", reactions, 0)
        change(actor, "interventions_used", to_int(a_state.get("interventions_used")), 0)
        change(actor, "spell_cast", bool(a_state.get("spell_cast")), False)
    elif timing == "action":
        change(actor, "reactions", reactions, 0)  # L573: cleared once he acts
        change(actor, "interventions_used", to_int(a_state.get("interventions_used")), 0)
        change(actor, "spell_cast", bool(a_state.get("spell_cast")), casts_spell)
    else:
        if timing == "reaction":
            change(actor, "reactions", reactions, reactions + 1)
        else:
            change(
                actor,
                "interventions_used",
                to_int(a_state.get("interventions_used")),
                to_int(a_state.get("interventions_used")) + 1,
            )
        if casts_spell:
            change(actor, "spell_cast", bool(a_state.get("spell_cast")), True)
    outcome["reaction_penalty"] = penalty
    secret = {}
    if target is not None and target.is_npc:
        secret = {"npc_die": outcome.get("die")}
    level, margin, severity = _vocabulary(kind, outcome, changes)
    return CombatResult(
        SLUG, kind, dict(declaration), rec.draws, outcome, summary, changes, secret, [], level, margin, severity
    )


_INVERTED = {"success": "failure", "failure": "success", "critical_success": "critical_failure"}
_INVERTED["critical_failure"] = "critical_success"


def _vocabulary(kind: str, outcome: Mapping[str, Any], changes: list[StateChange]) -> tuple[str, int | None, str]:
    """The actor's level and margin, and the severity of the wound the step gave (``rules/README.md``).

    PC against PC, the attacker's die counts (L271-L275); an NPC's attack is the PC's defence roll
    (L103), so the NPC succeeds when the defence fails: level inverted, margin negated."""
    if kind in ("catch_breath", "end_sequence"):
        level, margin = "none", None
    else:
        rolled = outcome.get("attacker") or outcome
        level, margin = die_level(rolled, rolled.get("success"))
        if outcome.get("direction") == "npc_to_pc":
            level, margin = _INVERTED.get(level, level), None if margin is None else -margin
    severity = "none"
    for c in changes:
        if c.path == "wounds" and isinstance(c.after, list) and len(c.after) > len(c.before or []):
            severity = SHARED_SEVERITY.get(str(c.after[-1].get("severity")), "none")
    return level, margin, severity


def _predefined_rank(sheet: Mapping[str, Any], key: str) -> int:
    return max(
        [
            to_int(m.get("rank"))
            for m in sheet.get("modules") or []
            if isinstance(m, Mapping) and m.get("predefined") == key
        ]
        or [0]
    )


def _wound(target: Combatant, severity: int, nature: str, change: Any) -> None:
    state = target.state or {}
    before = _copy(state.get("wounds") or [])  # JSON data: nested dicts and lists copied, as deepcopy
    after = [
        *_copy(before),
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
        size = size_modifier(to_int(actor.sheet.get("size_factor"), 5), to_int(target.sheet.get("size_factor"), 5))
    weapons = actor.sheet.get("weapons") or []
    w_index = d.get("weapon")
    if not actor.is_npc and w_index is not None and 0 <= to_int(w_index) < len(weapons):
        # an unsuited weapon costs the size difference (L597)
        size += weapon_size_malus(
            to_int(weapons[to_int(w_index)].get("size_factor"), 5), to_int(actor.sheet.get("size_factor"), 5)
        )
    if not actor.is_npc and target.is_npc:
        npc = target.sheet.get("npc") or {}
        base = d.get("die") if d.get("die") is not None else to_int(npc.get("base_defence_die"), 8)
        armour = _armour(target.sheet, d, s)
        sc = request_score(d, penalty + size)
        die = pc_attack_die(to_int(base), sev, armour, to_int(d.get("circumstances")), to_int(d.get("barrier_power")))
        out = resolve_die(sc["score"], die, rng)
        out.update(direction="pc_to_npc", score_detail=sc, size_modifier=size, armour=armour)
        if out["success"]:
            _wound(target, sev, d.get("wound_nature", ""), change)
        return out, outcome_msg(out)
    if actor.is_npc and not target.is_npc:
        npc = actor.sheet.get("npc") or {}
        base = d.get("die") if d.get("die") is not None else to_int(npc.get("base_attack_die"), 8)
        armour = _armour(target.sheet, d, s)
        shield = to_int((target.sheet.get("shield") or {}).get("category")) if d.get("shield") else 0
        t_state = target.state or {}
        t_reactions = to_int(t_state.get("reactions"))
        sc = request_score(d, reaction_penalty(t_reactions) - size)
        die = pc_defence_die(
            to_int(base), sev, armour, shield, to_int(d.get("barrier_power")), to_int(d.get("circumstances"))
        )
        out = resolve_die(sc["score"], die, rng)
        out.update(direction="npc_to_pc", score_detail=sc, size_modifier=-size, armour=armour, shield=shield)
        change(target, "reactions", t_reactions, t_reactions + 1)
        if not out["success"]:
            out["stake"] = "wound"
            _wound(target, sev, d.get("wound_nature", ""), change)
            return out, Msg(
                f"Défense ratée : {SEVERITIES[sev]['label'].fr}.", f"Defence failed: {SEVERITIES[sev]['label'].en}."
            )
        return out, Msg("Attaque parée.", "Attack warded off.")
    # PC against PC (L271–275, L581): each chose his die
    a_die = difficulty_die(to_int(d.get("die"), 6))
    att = resolve_die(request_score(d, penalty + size)["score"], a_die, rng)
    out = {
        "direction": "pc_to_pc",
        "attacker": att,
        "die": a_die,
        "success": att["success"],
        "defender_pending": att["success"],
    }
    return out, outcome_msg(att)


def _armour(sheet: Mapping[str, Any], d: Mapping[str, Any], s: Mapping[str, Any]) -> int:
    armour = sheet.get("armour") or {}
    value = armour_modifier(
        to_int(armour.get("category")), armour.get("kind", "custom"), s.get("leather_armour", "minus_two")
    )
    applies = d.get("armour_applies", "full")
    if applies == "none":
        return 0
    if applies == "partial":
        return max(0, value - 1)
    return value


def _spell_action(
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
    if d.get(ACTION_KEY) == "counter_spell":
        power = to_int(components.get("power"), 1)
        die = counter_spell_die(to_int(components.get("caster_base_die"), 4), power, to_int(d.get("circumstances")))
        sc = request_score(d, penalty)
        out = resolve_die(sc["score"], die, rng)
        out["energy_cost"] = {"transient": 0, "lasting": 2 if components["intervention"] else 1}
        return out, outcome_msg(out)
    if target is not None and target.is_npc and components.get("nature") == "offensive":
        components.setdefault("target_die", to_int((target.sheet.get("npc") or {}).get("base_defence_die"), 8))
    built = build_spell(components, s)
    if built["errors"]:
        raise RulesError([FieldError(f"spell.{e['path']}", e["code"], Msg(**e["message"])) for e in built["errors"]])
    sc = request_score(d, penalty - built["score_penalty"])
    out = resolve_die(sc["score"], built["difficulty"], rng)
    out.update(spell=built, score_detail=sc, energy_cost=built["energy_cost"])
    if out["success"] and target is not None and built["nature"] == "offensive":
        eff = built["effect"]["effective_severity"]
        if eff >= 1:
            _wound(target, eff, d.get("wound_nature", ""), change)
    return out, outcome_msg(out)
