"""What every viewer may read of a Clefs de l'Aube step, and what a fight leaves on the sheet.

Public sentences name the winner of a confrontation (success beats failure,
then the higher °R, L1068–L1072) and the level reached in the text's words,
never a CA, an ND (which "can stay hidden", L937–L939) or a die. The supplied
text has no wound scale (gap G1): harm is a handicap the Keeper imposes
(L739–L746), and being out of the fight or dead is the Keeper's decision
(the ``unconscious`` and ``dead`` flags of the combat state).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import Combatant, CombatResult, Msg, acts_sentence, sentence
from rules.clefs import tables as t

VALUE_LABELS: dict[str, Msg] = {
    "handicaps": Msg("Handicaps", "Handicaps"),
    "advantages": Msg("Avantages", "Advantages"),
    "unconscious": Msg("Hors de combat", "Out of the fight"),
    "dead": Msg("Mort", "Dead"),
    # Parts of the values: a handicap's or advantage's value, the means' sum.
    "value": Msg("valeur", "value"),
    "means_sum": Msg("Somme des moyens", "Sum of the means"),
}


def public_outcome(result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
    out, kind = result.outcome, result.kind
    a = actor.name
    if kind == "simple":
        level = str((out.get("actor") or {}).get("level") or "")
        label = t.LEVEL_LABELS.get(level)
        verb = Msg("réussit", "succeeds") if level in t.SUCCESS_LEVELS else Msg("échoue", "fails")
        if label is None:
            return sentence(f"{a} {verb.fr}", f"{a} {verb.en}")
        return sentence(f"{a} {verb.fr} : {label.fr}", f"{a} {verb.en}: {label.en}")
    if kind == "opposed" and target is not None:
        winner = out.get("winner")
        if winner is None:
            return sentence(f"{a} et {target.name} : aucun vainqueur", f"{a} and {target.name}: no winner")
        w, lo = (actor, target) if str(winner) == actor.id else (target, actor)
        fr, en = f"{w.name} l'emporte sur {lo.name}", f"{w.name} prevails over {lo.name}"
        if out.get("harm"):
            fr, en = fr + f" : {lo.name} subit un handicap", en + f": {lo.name} suffers a handicap"
        return sentence(fr, en)
    if kind == "condition":
        who = target or actor
        return sentence(
            f"Le Gardien change les handicaps et avantages de {who.name}",
            f"The Keeper changes {who.name}'s handicaps and advantages",
        )
    return acts_sentence(a, target.name if target else None)


def carry_combat_state(sheet: dict[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    """The active handicaps and advantages of the fight become the sheet's active conditions;
    the sheet's inactive ones stay as they were."""
    out = copy.deepcopy(sheet)
    kept = [c for c in out.get("conditions") or [] if isinstance(c, dict) and c.get("active", True) is False]
    carried = []
    for key, kind in (("handicaps", "handicap"), ("advantages", "advantage")):
        for item in state.get(key) or []:
            if isinstance(item, Mapping):
                carried.append(
                    {
                        "kind": kind,
                        "value": int(item.get("value") or 0),
                        "source": str(item.get("source") or ""),
                        "note": str(item.get("note") or ""),
                        "active": True,
                    }
                )
    out["conditions"] = carried + kept
    return out
