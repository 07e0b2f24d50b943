"""Quick NPCs (issue #23): the GM's stat line of an Altaride NPC or creature.

The stat line is the sheet's twelve Talents (L27-L47), whether the creature
is anthropoid (L55, L71), and one skill and one weapon from the campaign's
catalogues (the skill and weapon tables are missing, L85-L89, spec A1: they
are the GM's catalogues). An NPC is not a player character
(``is_player_character`` false: "NPCs earn no XP", spec §2), so the
creation caps and budget do not apply to it (spec A38: "NPC/creature
sheets skip caps"). No number is added here.
"""

from __future__ import annotations

from typing import Any

from rules.altaride import schema
from rules.altaride import tables as T
from rules.base import Field, Msg, RulesError, error, pick_fields


def quick_npc_fields(settings: dict[str, Any]) -> tuple[Field, ...]:
    """Talents, anthropoid, then a skill (from the catalogue) and its level, and a weapon."""
    fields = schema.sheet_fields()
    skills = schema.catalogue(settings, "skill_catalogue")
    weapons = schema.catalogue(settings, "weapon_catalogue")
    skill_items = {f.path: f for f in next(f for f in fields if f.path == "skills").item_fields}
    return (
        *pick_fields(fields, *(f"talents.{t}" for t in T.TALENTS), "is_anthropoid"),
        Field(
            "skill.key",
            "choice",
            Msg("Compétence", "Skill"),
            choices=tuple(
                (key, Msg(str(row.get("name") or key), str(row.get("name") or key))) for key, row in skills.items()
            ),
            group="skill",
        ),
        Field(
            "skill.level",
            "int",
            Msg("Niveau de la compétence", "Skill level"),
            minimum=skill_items["level"].minimum,
            maximum=skill_items["level"].maximum,
            group="skill",
        ),
        Field(
            "weapon.key",
            "choice",
            Msg("Arme", "Weapon"),
            choices=tuple(
                (key, Msg(str(row.get("name") or key), str(row.get("name") or key))) for key, row in weapons.items()
            ),
            group="skill",
        ),
    )


def quick_npc_sheet(sheet: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """Talents and anthropoid at their paths; the skill (with its level, the
    skill field's default when left empty) and the weapon as the sheet's one
    skill and one weapon; not a player character."""
    for path, value in values.items():
        if path.startswith("talents."):
            sheet.setdefault("talents", {})[path.split(".", 1)[1]] = value
        elif path == "is_anthropoid":
            sheet["is_anthropoid"] = value
    sheet["is_player_character"] = False
    if values.get("skill.level") is not None and not values.get("skill.key"):
        raise RulesError([error("skill.key", "required", "Choisissez la compétence.", "Choose the skill.")])
    if values.get("skill.key"):
        item: dict[str, Any] = {"key": values["skill.key"]}
        if values.get("skill.level") is not None:
            item["level"] = values["skill.level"]
        sheet["skills"] = [item]
    if values.get("weapon.key"):
        sheet["weapons"] = [{"key": values["weapon.key"]}]
    return sheet


def bestiary_fields() -> tuple[Field, ...]:
    """The inputs of a bestiary entry: the Talents and anthropoid (the skill and weapon come from
    catalogues that change with the campaign: the GM picks them on the quick NPC form)."""
    return pick_fields(schema.sheet_fields(), *(f"talents.{t}" for t in T.TALENTS), "is_anthropoid")
