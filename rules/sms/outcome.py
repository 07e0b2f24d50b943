"""What every viewer may read of an SMS combat step, and what a fight leaves on the sheet.

Public sentences say who touches whom and the wound in the text's words
(L133–L142), or the stake of a failure (*enjeu*, L105), never the score,
the die or an NPC's die (L103: the GM's dice stay his).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import Combatant, CombatResult, Msg, acts_sentence, sentence
from rules.sms.health import severity_id
from rules.sms.tables import SEVERITIES, STAKES, STATUSES

#: An NPC's attack on a PC: the PC's defence (score or modules engaged, shield) is the player's (L103).
DEFENCE_PATHS = ("score", "modules", "shield")

VALUE_LABELS: dict[str, Msg] = {
    "initiative": Msg("Initiative", "Initiative"),
    "reactions": Msg("Réactions ce tour", "Reactions this turn"),
    "interventions_used": Msg("Interventions utilisées", "Interventions used"),
    "spell_cast": Msg("Sort lancé", "Spell cast"),
    "wounds": Msg("Blessures", "Wounds"),
    "fatigue": Msg("Fatigue", "Fatigue"),
    "fatigue.transient": Msg("Fatigue passagère", "Transient fatigue"),
    "fatigue.lasting": Msg("Fatigue durable", "Lasting fatigue"),
    "fatigue.persistent": Msg("Fatigue persistante", "Persistent fatigue"),
    "status": Msg("État", "Status"),
    **{f"status.{key}": label for key, label in STATUSES},
    # Parts of the values: a wound's severity, the kinds of fatigue (L133-L160).
    "light": Msg("légères", "light"),
    "serious": Msg("sérieuses", "serious"),
    "mortal": Msg("mortelles", "mortal"),
    "transient": Msg("passagère", "transient"),
    "lasting": Msg("durable", "lasting"),
    "persistent": Msg("persistante", "persistent"),
}


def _wound(value: Any) -> Msg | None:
    try:
        label: Msg = SEVERITIES[severity_id(value)]["label"]
    except (ValueError, KeyError):
        return None
    return Msg(label.fr[:1].lower() + label.fr[1:], label.en[:1].lower() + label.en[1:])


def _stake(out: Mapping[str, Any]) -> Msg:
    return STAKES.get(str(out.get("stake") or "none"), STAKES["none"])


def public_outcome(result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
    out, kind, decl = result.outcome, result.kind, result.inputs
    a, t = actor.name, target.name if target else ""
    if kind == "catch_breath":
        return sentence(f"{a} reprend son souffle", f"{a} catches their breath")
    if kind == "end_sequence":
        return sentence(f"{a} termine sa séquence", f"{a} ends their sequence")
    if kind == "attack" and target is not None:
        wound = _wound(decl.get("severity", "light")) or Msg("blessure", "wound")
        direction = out.get("direction")
        if direction == "npc_to_pc":
            if out.get("success"):
                return sentence(f"{t} pare l'attaque de {a}", f"{t} wards off {a}'s attack")
            return sentence(f"{a} touche {t} : {wound.fr}", f"{a} hits {t}: {wound.en}")
        if direction == "pc_to_pc":
            if out.get("success"):
                return sentence(f"{a} touche {t}, qui peut se défendre", f"{a} hits {t}, who may defend")
            return sentence(f"{a} manque {t}", f"{a} misses {t}")
        if out.get("success"):
            return sentence(f"{a} touche {t} : {wound.fr}", f"{a} hits {t}: {wound.en}")
        stake = _stake(out)
        return sentence(f"{a} manque {t} : {stake.fr}", f"{a} misses {t}: {stake.en}")
    if kind in ("spell", "counter_spell"):
        if not out.get("success"):
            stake = _stake(out)
            return sentence(f"{a} rate son sort : {stake.fr}", f"{a}'s spell fails: {stake.en}")
        effect = (out.get("spell") or {}).get("effect") or {}
        hurt = _wound(effect.get("effective_severity")) if target is not None else None
        if hurt is not None and (out.get("spell") or {}).get("nature") == "offensive":
            return sentence(f"Le sort de {a} frappe {t} : {hurt.fr}", f"{a}'s spell strikes {t}: {hurt.en}")
        return sentence(f"{a} réussit son sort", f"{a}'s spell succeeds")
    if "success" in out:
        if out.get("success"):
            return sentence(f"{a} réussit", f"{a} succeeds")
        stake = _stake(out)
        return sentence(f"{a} échoue : {stake.fr}", f"{a} fails: {stake.en}")
    return acts_sentence(a, t or None)


def combat_condition(state: Mapping[str, Any]) -> str:
    """Dead, or out of the fight (out of combat, dying, stabilised: L140), else active."""
    status = str(state.get("status") or "active")
    if status == "dead":
        return "dead"
    if status in ("out_of_combat", "dying", "stabilised"):
        return "unconscious"
    return "active"


def carry_combat_state(sheet: dict[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    """Wounds, fatigue and status go back to the sheet (they last beyond the fight, L133–L158)."""
    out = copy.deepcopy(sheet)
    if isinstance(state.get("wounds"), list):
        out["wounds"] = copy.deepcopy(state["wounds"])
    if isinstance(state.get("fatigue"), Mapping):
        out["fatigue"] = {**(out.get("fatigue") or {}), **{k: int(v or 0) for k, v in state["fatigue"].items()}}
    if state.get("status"):
        out["status"] = state["status"]
    return out


def action_options(
    sheet: dict[str, Any],
    state: dict[str, Any],
    settings: dict[str, Any],
    *,
    defending: bool = False,
) -> dict[str, tuple[tuple[str, Msg], ...]]:
    """The sheet's weapons (L597: an unsuited weapon costs the size difference)."""
    if defending:
        return {}
    # A sheet without weapons offers none: the form shows an empty choice, never a bare index.
    weapons = [w for w in sheet.get("weapons") or [] if isinstance(w, Mapping)]
    return {
        "weapon": tuple((str(i), Msg(str(w.get("name") or i), str(w.get("name") or i))) for i, w in enumerate(weapons))
    }
