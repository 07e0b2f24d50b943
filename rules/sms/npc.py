"""NPCs and creatures (L987–1035): definition methods, roles, difficulties.

Only PCs roll (L103): an NPC's values are difficulties.

* uber-simple / simple (L995–1001): the GM notes plain numbers («3», «5/5»); they become dice through the
  round-up rule (3 → D4, 5 → D6; spec Ambiguity 47);
* semi-modular (L1005): a fixed difficulty + the ranks of the modules the action activates («par une simple
  somme»);
* deluxe (L1009): a full module sheet; the NPC's action score is a raw difficulty;
* roles (L1013–1023) give the usual base die to inflict a light wound; they are hints, the GM's die is kept
  (spec Ambiguity 50). Disposable NPCs are minions by default (L583, L1023).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.base import FieldError, error, validate_fields
from rules.sms import schema
from rules.sms.core import round_die, score_from_modules
from rules.sms.tables import NPC_ROLES


def role_hint(role: str) -> dict[str, Any]:
    """Suggested base dice of a role (L1017–1023)."""
    data = NPC_ROLES[role]
    low, high = data["dice"]
    return {
        "role": role,
        "min_die": low,
        "max_die": high,
        "open_ended": data["open_ended"],
        "default_minion": role == "disposable",
        "line": data["line"],
    }


def npc_difficulty(method: str, base: int = 0, modules: Iterable[Mapping[str, Any]] = (), modifier: int = 0) -> int:
    """The die an NPC opposes to a PC for one action.

    ``uber_simple``/``simple``: the noted number, rounded to a die; ``semi_modular``: the noted number +
    Σ ranks of the activated modules; ``deluxe``: the action score of its modules (+ ``modifier``).
    The result is rounded like any die (L264) and may exceed 12 (bosses, L1017).
    """
    mods = list(modules)
    if method in ("uber_simple", "simple"):
        return round_die(int(base) + int(modifier))
    if method == "semi_modular":
        return round_die(int(base) + score_from_modules(mods, modifier)["raw"])
    if method == "deluxe":
        return round_die(score_from_modules(mods, modifier)["score"])
    raise ValueError(f"unknown NPC definition method {method!r}")


def validate_npc(sheet: dict[str, Any]) -> list[FieldError]:
    """NPCs follow the definition methods of L987–1035, not the PC creation budget.

    Uber-simple and simple NPCs are noted difficulties ("la difficulté pour
    lui résister est de 3", L997), so ``npc.difficulties`` must hold whole
    numbers (0–30) when noted; semi-modular and deluxe NPCs carry modules checked by
    their fields only (no XP budget, no creation rank cap: "pourra même
    avoir de l'expérience pour progresser", L1009).
    """
    noted: list[FieldError] = []
    raw = sheet.get("npc")
    npc: dict[str, Any] = raw if isinstance(raw, dict) else {}
    difficulties = npc.get("difficulties")
    if isinstance(difficulties, dict):
        for key, value in difficulties.items():
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 30:
                noted.append(
                    error(
                        f"npc.difficulties.{key}",
                        "invalid_difficulty",
                        "Une difficulté notée est un nombre entier de 0 à 30 (L997).",
                        "A noted difficulty is a whole number from 0 to 30 (L997).",
                    )
                )
    # Where both speak of one difficulty this message is kept, beside "enter a whole number" when the
    # value is not one (a type error: such a sheet is not stored).
    said = {e.path for e in noted}
    errors = [
        e for e in validate_fields(sheet, schema.sheet_fields()) if e.path not in said or e.code == "invalid_int"
    ] + noted
    return errors  # an uber-simple NPC may have nothing noted: "à la demande" (L997)
