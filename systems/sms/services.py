"""The templates' write (one function, as in :mod:`characters.services`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.utils.translation import gettext as _

from characters import access
from characters.models import Character
from characters.services import SheetInvalid, require_full_sheet, save_sheet, system_settings
from rules.base import FieldError, RulesError
from rules.sms import SYSTEM
from rules.sms import creation as sms_creation


def apply_template(actor: Any, character: Character, *, kind: str, key: str, expected_version: int | None) -> Character:
    """Apply a race or an archetype template (``rules.sms.creation``) to a draft; saved as a wizard edit."""
    require_full_sheet(actor, character)
    if character.system != SYSTEM.slug:
        raise Http404
    if not access.can_edit_directly(actor, character):
        raise PermissionDenied(_("Only a draft sheet takes templates."))
    settings = system_settings(character.campaign)
    try:
        if kind == "race":
            sheet = sms_creation.apply_race(character.current_sheet(), key, settings)
        elif kind == "archetype":
            sheet = sms_creation.apply_archetype(character.current_sheet(), key, settings)
        else:
            raise ValidationError({"kind": [_("Unknown template.")]})
    except RulesError as exc:
        path = "race" if kind == "race" else "archetypes"
        raise SheetInvalid([FieldError(path, e.code, e.message) for e in exc.errors]) from exc
    return save_sheet(
        actor,
        character,
        sheet=sheet,
        expected_version=expected_version,
        reason=_("template applied: %(key)s") % {"key": key},
    )
