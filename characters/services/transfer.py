"""Export and import of a character (JSON)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _

from campaigns.access import role_of
from campaigns.models import Campaign, Role
from characters.models import Character
from characters.services.base import (
    _check_size,
    _keep_locked,
    record_version,
    require_full_sheet,
)
from characters.services.errors import SheetInvalid
from characters.services.evaluation import (
    system_settings,
)
from characters.services.sheets import create_character
from characters.sheetform import type_errors

EXPORT_FORMAT = "tablee-character"
EXPORT_VERSION = 1


# ---------------------------------------------------------------------------
# Export / import
# ---------------------------------------------------------------------------
def export_character(actor: Any, character: Character) -> dict[str, Any]:
    require_full_sheet(actor, character)
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "system": character.system,
        "schema_version": character.schema_version,
        "name": character.name,
        "is_npc": character.is_npc,
        "public_description": character.public_description,
        "private_background": character.private_background,
        "sheet": character.sheet,
    }


def import_character(actor: Any, campaign: Campaign, *, data: Any) -> Character:
    """A JSON export becomes a new draft in another campaign of the same system.

    The imported sheet goes through the same checks as an edit of that new
    draft: what the rules lock for the importer (GM-set values, auction
    results) keeps the default of a new sheet, and what only the server writes
    (a creation roll) is not taken from the file: the dice of this campaign's
    chain are rolled again here.
    """
    role = role_of(actor, campaign)
    if role is None:
        raise Http404
    if role not in (Role.GM, Role.COGM, Role.PLAYER):
        raise PermissionDenied(_("Only players and GMs create characters."))
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ValidationError({"file": [_("This is not a Tablée character export.")]})
    if data.get("system") != campaign.system:
        raise ValidationError({"file": [_("This character uses another rule system than this campaign.")]})
    system = campaign.rule_system
    sheet = data.get("sheet")
    if not isinstance(sheet, dict):
        raise ValidationError({"file": [_("The export holds no sheet.")]})
    _check_size(sheet)
    schema = data.get("schema_version")
    if not isinstance(schema, int) or isinstance(schema, bool):
        raise ValidationError({"file": [_("The export has no valid schema version.")]})
    try:
        sheet = system.migrate_sheet(dict(sheet), schema)
    except ValueError as exc:
        raise ValidationError({"file": [_("This export comes from a newer version of the rules.")]}) from exc
    is_npc = bool(data.get("is_npc")) and role in (Role.GM, Role.COGM)
    name = str(data.get("name") or "").strip()[:100] or _("Imported character")
    with transaction.atomic():
        character = create_character(actor, campaign, name=name, is_npc=is_npc)
        sheet = _keep_locked(actor, character, sheet)
        errors = type_errors(system.validate_sheet(sheet, system_settings(campaign)))
        if errors:
            raise SheetInvalid(errors)
        character.sheet = sheet
        character.schema_version = system.schema_version
        character.public_description = str(data.get("public_description") or "")[:10000]
        character.private_background = str(data.get("private_background") or "")[:20000]
        character.version += 1
        character.save()
        record_version(character, actor, _("imported"))
    return character
