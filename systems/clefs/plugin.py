"""Les Clefs de l'Aube's registration in the generic apps (:mod:`characters.plugins`):
the creation roll's panel on the wizard's "aspects" step."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from campaigns.access import is_gm
from characters import plugins
from characters.models import Character
from characters.plugins import Panel, SystemPlugin
from characters.sheetform import msg
from rules.clefs import SYSTEM
from systems.clefs.services import CREATION_ROLL_REASON

#: The creation methods offered, in this order (their names come from the sheet's choice fields).
METHODS = {
    "aspect": ["ROLL_STANDARD", "ROLL_LOW", "FIXED_10"],
    "means": ["ROLL", "ZERO"],
}
STEP = "aspects"


def roll_panel(request: HttpRequest, character: Character, sheet: dict[str, Any]) -> dict[str, Any]:
    """The creation dice: what was rolled (if anything) and the methods to roll with."""
    creation = sheet.get("creation") or {}
    # The methods' names come from the sheet's choice fields (never show the bare codes).
    choices = {f.path: dict(f.choices) for f in character.rule_system.sheet_fields() if f.kind == "choice"}
    aspect_names = choices.get("creation.aspect_method", {})
    means_names = choices.get("creation.means_method", {})
    record = creation.get("roll") or None
    return {
        "record": record,
        "record_methods": (
            f"{msg(aspect_names.get(record.get('aspect_method'))) or record.get('aspect_method')}, "
            f"{msg(means_names.get(record.get('means_method'))) or record.get('means_method')}"
            if isinstance(record, dict)
            else ""
        ),
        "aspect_methods": [(m, msg(aspect_names.get(m)) or m) for m in METHODS["aspect"]],
        "means_methods": [(m, msg(means_names.get(m)) or m) for m in METHODS["means"]],
        "aspect_method": creation.get("aspect_method", "FIXED_10"),
        "means_method": creation.get("means_method", "ZERO"),
        "can_roll": character.creation_roll_id is None or is_gm(request.user, character.campaign),
    }


def wizard_panels(request: HttpRequest, character: Character, step: str, sheet: dict[str, Any]) -> list[Panel]:
    if step != STEP:
        return []
    return [Panel("clefs/_wizard_roll.html", roll_panel(request, character, sheet))]


PLUGIN = SystemPlugin(
    system=SYSTEM.slug,
    urls="systems.clefs.urls",
    api_urls="systems.clefs.api_urls",
    wizard_panels=wizard_panels,
    version_reasons=(CREATION_ROLL_REASON,),
)


def register() -> None:
    plugins.register(PLUGIN)
