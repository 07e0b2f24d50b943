"""SMS's registration in the generic apps (:mod:`characters.plugins`): the wizard's
archetype chooser (step "archetype") and the race step's note (L689)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from characters import plugins
from characters.models import Character
from characters.plugins import Panel, SystemPlugin
from characters.sheetform import msg
from rules.sms import SYSTEM
from rules.sms import tables as sms_tables
from rules.sms.creation import ARCHETYPE_DEFAULT_NOTE


def _label_of(value: Any, default: str) -> str:
    if isinstance(value, dict):
        for key in ("label", "name"):
            if key in value:
                return msg(value[key])
    return msg(value) if not isinstance(value, str | int) else default


def wizard_panels(request: HttpRequest, character: Character, step: str, sheet: dict[str, Any]) -> list[Panel]:
    if step == "archetype":
        archetypes = getattr(sms_tables, "ARCHETYPES", {})
        choices = [(key, _label_of(value, key)) for key, value in archetypes.items()]
        if not choices:
            return []
        return [Panel("sms/_wizard_archetype.html", {"archetypes": choices, "note": msg(ARCHETYPE_DEFAULT_NOTE)})]
    if step == "race":
        return [Panel("sms/_wizard_race.html")]
    return []


PLUGIN = SystemPlugin(
    system=SYSTEM.slug,
    urls="systems.sms.urls",
    api_urls="systems.sms.api_urls",
    wizard_panels=wizard_panels,
)


def register() -> None:
    plugins.register(PLUGIN)
