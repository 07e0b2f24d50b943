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
from dataclasses import replace
from functools import cache
from typing import Any

from rules.base import BestiaryEntry, Field, FieldError, Msg, error, set_path, validate_fields
from rules.sms import schema
from rules.sms.core import round_die, score_from_modules
from rules.sms.tables import BESTIARY_CLASSES, NPC_ROLES


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
    numbers (0–30) when noted (their declared fields); semi-modular and deluxe NPCs carry modules checked by
    their fields only (no XP budget, no creation rank cap: "pourra même
    avoir de l'expérience pour progresser", L1009).
    """
    errors = validate_fields(sheet, schema.sheet_fields())
    return errors  # an uber-simple NPC may have nothing noted: "à la demande" (L997)


# ---------------------------------------------------------------------------
# Quick NPCs and the campaign's bestiary (issue #23)
# ---------------------------------------------------------------------------
#: Bestiary entry key -> the quick NPC path it fills.
ENTRY_PATHS = {
    "creature_class": "npc.creature_class",
    "role": "npc.role",
    "method": "npc.method",
    "size_factor": "size_factor",
    "base_defence_die": "npc.base_defence_die",
    "base_attack_die": "npc.base_attack_die",
    "is_minion": "npc.is_minion",
}


@cache
def quick_npc_fields() -> tuple[Field, ...]:
    """The NPC block of the sheet and the size factor (L1025–1031); the dice and
    the minion flag may be left empty (then the role's usual values apply)."""
    by_path = {f.path: f for f in schema.sheet_fields()}
    optional = {"npc.base_defence_die", "npc.base_attack_die", "npc.is_minion", "size_factor"}
    order = ("npc.role", "npc.method", "npc.creature_class", "size_factor")
    paths = dict.fromkeys((*order, *ENTRY_PATHS.values()))
    return tuple(replace(by_path[p], default=None) if p in optional else by_path[p] for p in paths)


def quick_npc_sheet(sheet: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The values at their paths; a die left empty is the low end of the
    role's usual base die to inflict a light wound (Boss D12, Récurrent D10,
    One-shot D8, Jetable D2: L1017–1023, our reading of "D10 ou D12" as its
    lower die, spec Ambiguity 50: the GM's die is kept when noted); the
    minion flag left empty is the role's default (disposable NPCs are
    minions, L583, L1023)."""
    for path, value in values.items():
        set_path(sheet, path, value)
    npc = sheet.setdefault("npc", {})
    hint = role_hint(str(npc.get("role") or "one_shot"))
    for path in ("npc.base_defence_die", "npc.base_attack_die"):
        if values.get(path) is None:
            set_path(sheet, path, hint["min_die"])
    if values.get("npc.is_minion") is None:
        npc["is_minion"] = hint["default_minion"]
    return sheet


def bestiary(settings: Mapping[str, Any]) -> tuple[BestiaryEntry, ...]:
    """The campaign's bestiary entries (by name; entries without a name are skipped)."""
    out: list[BestiaryEntry] = []
    seen: set[str] = set()
    for row in bestiary_rows(settings.get("bestiary")):
        name = str(row.get("name") or "").strip()
        if not name or name in seen:
            continue
        seen.add(name)
        values = {path: row.get(key) for key, path in ENTRY_PATHS.items() if row.get(key) not in (None, "")}
        if "npc.is_minion" in values and not isinstance(values["npc.is_minion"], bool):
            minion = {"yes": True, "no": False}.get(str(values["npc.is_minion"]))
            if minion is None:
                del values["npc.is_minion"]
            else:
                values["npc.is_minion"] = minion
        out.append(BestiaryEntry(name, Msg(name, name), values))
    return tuple(out)


def bestiary_rows(raw: Any) -> list[dict[str, Any]]:
    """The stored bestiary as a list of entries. Before issue #23 it was a dict
    (by name or by class): read as entries named by their keys."""
    if isinstance(raw, list):
        return [row for row in raw if isinstance(row, dict)]
    rows: list[dict[str, Any]] = []
    if isinstance(raw, dict):
        for key, value in raw.items():
            if isinstance(value, dict):
                rows.append({"name": str(key), **value})
            elif isinstance(value, list):
                klass = {"creature_class": key} if key in BESTIARY_CLASSES else {}
                rows += [{**klass, **item} for item in value if isinstance(item, dict)]
    return rows


def starter_bestiary() -> list[dict[str, Any]]:
    """The classes the page names (L1039–1057), one editable entry each, with no number:
    the page gives no creature stat block (spec §3.6)."""
    return [{"name": label.fr, "creature_class": key} for key, label in BESTIARY_CLASSES.items()]


def validate_bestiary(settings: Mapping[str, Any]) -> list[FieldError]:
    """Two entries may not share a name (a quick NPC picks its entry by name)."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    raw = settings.get("bestiary")
    for index, row in enumerate(raw if isinstance(raw, list) else []):
        name = str(row.get("name") or "").strip() if isinstance(row, dict) else ""
        if name and name in seen:
            errors.append(
                error(
                    f"bestiary.{index}.name",
                    "duplicate",
                    "Une autre entrée porte déjà ce nom.",
                    "Another entry already has this name.",
                )
            )
        seen.add(name)
    return errors
