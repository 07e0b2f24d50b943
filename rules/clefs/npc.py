"""Quick NPCs (issue #23): the GM's stat line of a *Clefs de l'Aube* NPC.

The text gives no NPC creation rules: an NPC is tested like a character
(aspect + means + skill, one d20 roll-under). The stat line is the sheet's
three aspects, six means and one main skill (name, aspect, usual means,
NC); its numbers are the GM's, never checked against a player's creation
methods or skill package.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from rules.base import Field, Msg, RulesError, error, pick_fields
from rules.clefs import schema

ASPECTS = ("aspects.PH", "aspects.ME", "aspects.MY")
MEANS = ("means.PU", "means.RE", "means.MA", "means.PR", "means.EX", "means.PE")
SKILL_LABELS = {
    "name": Msg("Compétence principale", "Main skill"),
    "aspect": Msg("Aspect de la compétence", "Skill aspect"),
    "default_means": Msg("Moyen habituel de la compétence", "Skill's usual means"),
    "nc": Msg("NC de la compétence", "Skill NC"),
}


@cache
def quick_npc_fields() -> tuple[Field, ...]:
    """Aspects, means, then the main skill's fields (``skill.*``, not required)."""
    fields = schema.sheet_fields()
    skills = next(f for f in fields if f.path == "skills")
    items = {f.path: f for f in skills.item_fields}
    skill = tuple(
        replace(items[key], path=f"skill.{key}", label=label, required=False, default=None, group="skill")
        for key, label in SKILL_LABELS.items()
    )
    return (*pick_fields(fields, *ASPECTS, *MEANS), *skill)


def quick_npc_sheet(sheet: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """Aspects and means at their paths; a named main skill becomes the sheet's
    one skill (its aspect and usual means are then required; its NC defaults to
    the skill field's own default, 0)."""
    for path, value in values.items():
        if not path.startswith("skill."):
            group, _dot, key = path.partition(".")
            sheet.setdefault(group, {})[key] = value
    name = str(values.get("skill.name") or "").strip()
    if name:
        missing = [
            error(f"skill.{key}", "required", "Ce champ est obligatoire.", "This field is required.")
            for key in ("aspect", "default_means")
            if not values.get(f"skill.{key}")
        ]
        if missing:
            raise RulesError(missing)
        sheet["skills"] = [
            {
                "name": name,
                "aspect": values["skill.aspect"],
                "default_means": values["skill.default_means"],
                "nc": values.get("skill.nc") or 0,
            }
        ]
    return sheet
