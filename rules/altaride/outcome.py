"""What every viewer may read of an Altaride step, and what a fight leaves on the sheet.

Public sentences say who touches whom, how the defender defended (parry or
dodge, L105–L109) and which Endurance the blow strikes (L117–L119), never a
target number, a margin or a die lowering spent in experience.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.altaride import tables as T
from rules.altaride.schema import catalogue, skill_name
from rules.base import Combatant, CombatResult, Msg, acts_sentence, sentence

VALUE_LABELS: dict[str, Msg] = {
    "endurance": Msg("Endurance", "Endurance"),
    **{f"endurance.{p}": label for p, label in T.POOL_LABELS.items()},
    "unconscious": Msg("Inconscient", "Unconscious"),
    "unconscious_cause": Msg("Cause de l'inconscience", "Cause of unconsciousness"),
    "dead": Msg("Mort", "Dead"),
    "actions_taken": Msg("Actions de l'assaut", "Actions this round"),
    "dodge": Msg("Esquive de l'assaut", "Dodge this round"),
}

#: Inputs of an attack that are the defender's (L105–L109): parry or dodge, the weapon or skill, a die lowering.
DEFENCE_PATHS = ("defence", "defender_weapon", "defender_skill", "defender_xp_lowering")

_DEFENCES = {"parry": Msg("pare", "parries"), "dodge": Msg("esquive", "dodges")}


def action_options(
    sheet: dict[str, Any], settings: dict[str, Any], *, defending: bool = False
) -> dict[str, tuple[tuple[str, Msg], ...]]:
    """The sheet's skills (L71) and the campaign's weapon catalogue, for the attacker or the defender."""
    known = catalogue(settings, "skill_catalogue")
    skills: list[tuple[str, Msg]] = []
    for s in sheet.get("skills") or []:
        if isinstance(s, dict) and s.get("key"):
            key = str(s["key"])
            # The catalogue's name (e.g. "Mains Nues"), else the item's own name, else its key.
            name = skill_name(key, settings) if key in known else str(s.get("name") or key)
            skills.append((key, Msg(name, name)))
    weapons = tuple(
        (str(w["key"]), Msg(str(w.get("name") or w["key"]), str(w.get("name") or w["key"])))
        for w in settings.get("weapon_catalogue") or []
        if isinstance(w, dict) and w.get("key")
    )
    # Always both keys: with no skill or no weapon the form offers an empty choice, never a free key to type.
    skill_path, weapon_path = ("defender_skill", "defender_weapon") if defending else ("skill", "weapon")
    return {skill_path: tuple(skills), weapon_path: weapons}


def public_outcome(result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
    out, kind = result.outcome, result.kind
    a, t = actor.name, target.name if target else ""
    if kind == "attack" and target is not None:
        pool = T.POOL_LABELS["EL" if out.get("damage_type") == "lucidite" else "EP"]
        if out.get("hit"):
            amount = int((out.get("damage") or {}).get("amount") or 0)
            if amount <= 0:
                return sentence(f"{a} touche {t} sans dommage", f"{a} hits {t} to no damage")
            return sentence(
                f"{a} touche {t} : {amount} points d'{pool.fr}", f"{a} hits {t}: {amount} points of {pool.en}"
            )
        verb = _DEFENCES.get(str(out.get("defence") or ""))
        if verb is not None:
            return sentence(f"{t} {verb.fr} : {a} ne touche pas", f"{t} {verb.en}: {a} does not hit")
        return sentence(f"{a} ne touche pas {t}", f"{a} does not hit {t}")
    if kind == "magic_attack" and target is not None:
        if out.get("target_affected"):
            return sentence(f"L'attaque magique de {a} atteint {t}", f"{a}'s magic attack reaches {t}")
        return sentence(f"{t} résiste à l'attaque magique de {a}", f"{t} resists {a}'s magic attack")
    if kind == "cast":
        success = bool((out.get("roll") or {}).get("success"))
        if success:
            return sentence(f"{a} lance son sort", f"{a} casts the spell")
        return sentence(f"{a} échoue à lancer son sort", f"{a} fails to cast the spell")
    if kind == "recover":
        if out.get("woke"):
            return sentence(f"{a} se réveille", f"{a} wakes up")
        return sentence(f"{a} récupère", f"{a} recovers")
    if kind == "heal":
        return sentence(f"{t or a} récupère de l'Endurance", f"{t or a} recovers Endurance")
    if kind == "damage":
        return sentence(f"{t or a} subit des dommages", f"{t or a} takes damage")
    if kind == "sleep":
        return sentence(f"{a} regagne son Endurance Occulte", f"{a} regains Occult Endurance")
    return acts_sentence(a, t or None)


def carry_combat_state(sheet: dict[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    """Current Endurance pools and the unconscious / dead conditions go back to the sheet (L117–L119)."""
    out = copy.deepcopy(sheet)
    pools = state.get("endurance")
    maxima = state.get("endurance_max") or {}
    if isinstance(pools, Mapping):
        current = dict(out.get("endurance_current") or {})
        for pool, value in pools.items():
            if isinstance(value, int):
                # ``null`` means full (derive.endurance_current).
                current[pool] = None if value >= int(maxima.get(pool, value)) else value
        out["endurance_current"] = current
    conditions = dict(out.get("conditions") or {})
    for key in ("unconscious", "dead"):
        if key in state:
            conditions[key] = bool(state[key])
    if "unconscious_cause" in state:
        conditions["unconscious_cause"] = str(state.get("unconscious_cause") or "")
    out["conditions"] = conditions
    return out
