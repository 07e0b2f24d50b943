"""What every viewer may read of an Ambre exchange, and what an exchange leaves on the sheet.

Public sentences name the winner, the wound in the text's words (L424–L429:
*légère, sérieuse, grave, mortelle*) and whether the loser breaks off
(L431–L434), never a characteristic, a damage figure or a karma balance: in
a diceless game every number is a secret about attribute points (L18).
"""

from __future__ import annotations

import copy
from typing import Any

from rules.ambre import tables as T
from rules.ambre.derive import minor_keys
from rules.base import Combatant, CombatResult, Msg, acts_sentence, sentence

VALUE_LABELS: dict[str, Msg] = {
    "life": Msg("Vie", "Life"),
    "energy": Msg("Énergie", "Energy"),
    "keys": Msg("Clés mineures", "Minor keys"),
    "wounds": Msg("Blessures", "Wounds"),
    "wound_points": Msg("Points de blessure", "Wound points"),
    "determined": Msg("Déterminé", "Determined"),
    "coma": Msg("Coma", "Coma"),
    "dying": Msg("Hors de combat / mourant", "Out of action / dying"),
    "death_assured": Msg("Mort assurée", "Death assured"),
    "dead": Msg("Mort", "Dead"),
    "karma": Msg("Karma", "Karma"),
    # The wound track in the text's words (L424–L429), as the parts of the ``wounds`` value.
    **{w: Msg(f"{T.WOUND_LABELS[w].fr}s", T.WOUND_LABELS[w].en) for w in T.WOUND_ORDER},
    **{
        f"wounds.{w}": Msg(f"Blessures {T.WOUND_LABELS[w].fr}s", f"{T.WOUND_LABELS[w].en} wounds")
        for w in T.WOUND_ORDER
    },
}


def public_outcome(result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
    outcome, tags = result.outcome, result.tags
    names = {actor.id: actor.name}
    if target is not None:
        names[target.id] = target.name
    mode = outcome.get("mode")
    if mode in ("spell", "power"):
        return sentence(
            f"{actor.name} : {'sort' if mode == 'spell' else 'pouvoir'}, effet arbitré par le MJ",
            f"{actor.name}: {'spell' if mode == 'spell' else 'power'}, effect adjudicated by the GM",
        )
    if target is None:
        return acts_sentence(actor.name)
    if "stalemate" in tags:
        return sentence(
            f"{actor.name} et {target.name} se neutralisent : aucun dégât",
            f"{actor.name} and {target.name} stalemate: no damage",
        )
    if outcome.get("miss"):
        return sentence(f"{target.name} esquive le tir de {actor.name}", f"{target.name} evades {actor.name}'s shot")
    winner = names.get(str(outcome.get("winner")), actor.name)
    loser = names.get(str(outcome.get("loser")), target.name)
    if "energy_loss" in outcome:
        if outcome.get("energy_loss"):
            return sentence(
                f"{winner} l'emporte psychiquement : {loser} perd de l'énergie",
                f"{winner} wins the psychic struggle: {loser} loses energy",
            )
        return sentence(
            f"{winner} l'emporte psychiquement, sans effet sur {loser}",
            f"{winner} wins the psychic struggle, to no effect on {loser}",
        )
    wound = outcome.get("wound")
    breaks = outcome.get("determined") is False
    if wound in T.WOUND_LABELS:
        label = T.WOUND_LABELS[wound]
        fr, en = f"{winner} touche {loser} : blessure {label.fr}", f"{winner} hits {loser}: {label.en} wound"
    else:
        fr, en = f"{winner} touche {loser} sans le blesser", f"{winner} hits {loser} without wounding"
    if breaks:
        fr, en = fr + f" ; {loser} rompt le combat", en + f"; {loser} breaks off"
    return sentence(fr, en)


def carry_combat_state(sheet: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The sheet's condition (life lost, energy spent, keys used, wounds, coma, dying, dead) from the state."""
    out = copy.deepcopy(sheet)
    condition = dict(out.get("condition") or {})
    chars = out.get("characteristics") or {}
    if isinstance(state.get("life"), int) and isinstance(state.get("life_max"), int):
        condition["life_damage"] = max(0, state["life_max"] - state["life"])
    if isinstance(state.get("energy"), int) and isinstance(state.get("energy_max"), int):
        condition["energy_spent"] = max(0, state["energy_max"] - state["energy"])
    if isinstance(state.get("keys"), int):
        total = minor_keys(int(chars.get("mental") or 0), int(chars.get("volonte") or 0))
        condition["keys_used"] = max(0, total - state["keys"])
    if isinstance(state.get("wounds"), dict):
        condition["wounds"] = {w: int(state["wounds"].get(w) or 0) for w in T.WOUND_ORDER}
    for flag in ("coma", "dying", "dead"):
        if flag in state:
            condition[flag] = bool(state[flag])
    out["condition"] = condition
    return out
