"""Helpers shared by the character writes: locks, versions, recorded history, live events, locked paths."""

from __future__ import annotations

import copy
import json
from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _

import rules
from campaigns.access import is_gm
from characters import access
from characters.models import Character, SheetVersion
from characters.services.errors import VersionConflict
from characters.sheetform import keep_locked
from live.events import publish
from rules.base import get_path, set_path


def _check_size(sheet: Any) -> None:
    size = len(json.dumps(sheet, ensure_ascii=False).encode())
    if size > django_settings.TABLEE_MAX_SHEET_BYTES:
        raise ValidationError(
            {
                "__all__": [
                    _("This sheet is too large (%(size)s bytes, at most %(max)s).")
                    % {"size": size, "max": django_settings.TABLEE_MAX_SHEET_BYTES}
                ]
            }
        )


def _sync_name(system: rules.base.RuleSystem, sheet: dict[str, Any], name: str) -> str:
    """Systems with a ``name`` sheet field keep it equal to the character's name."""
    if any(f.path == "name" for f in system.sheet_fields()):
        sheet_name = sheet.get("name")
        if isinstance(sheet_name, str) and sheet_name.strip():
            return sheet_name.strip()[:100]
        sheet["name"] = name
    return name


# ---------------------------------------------------------------------------
# Helpers for writes
# ---------------------------------------------------------------------------
def lock_character(character: Character) -> Character:
    return Character.objects.select_for_update().select_related("campaign").get(pk=character.pk)


def check_version(locked: Character, expected_version: int | None) -> None:
    if expected_version is not None and int(expected_version) != locked.version:
        raise VersionConflict(int(expected_version), locked.version)


def record_version(character: Character, author: Any, reason: str) -> SheetVersion:
    return SheetVersion.objects.create(
        character=character,
        version=character.version,
        name=character.name,
        sheet=copy.deepcopy(character.sheet),
        schema_version=character.schema_version,
        status=character.status,
        author=author,
        reason=reason[:300],
    )


def publish_sheet(character: Character, kind: str = "sheet-changed") -> None:
    publish(f"character:{character.pk}", kind, {"character": character.pk, "version": character.version})


def require_full_sheet(actor: Any, character: Character) -> None:
    if not access.can_see_full_sheet(actor, character):
        raise Http404


def _keep_locked(actor: Any, character: Character, sheet: dict[str, Any]) -> dict[str, Any]:
    """Whatever the client sent, nobody writes what the rules lock for them
    (:meth:`rules.base.RuleSystem.locked_paths`): a non-GM never writes GM-set
    values, auction results or keys the rules keep for themselves; a GM never
    writes what only the server writes (a creation roll). Same for HTML, API and import."""
    locked = tuple(access.locked_paths(actor, character))
    stored = character.current_sheet()
    if is_gm(actor, character.campaign):
        sheet = copy.deepcopy(sheet)
        for path in locked:
            value = get_path(stored, path, _ABSENT)
            if value is _ABSENT:
                _drop_path(sheet, path)
            else:
                set_path(sheet, path, copy.deepcopy(value))
        return sheet
    return keep_locked(character.rule_system.sheet_fields(), stored, sheet, locked)


_ABSENT = object()


def _drop_path(sheet: dict[str, Any], path: str) -> None:
    parent = get_path(sheet, path.rpartition(".")[0]) if "." in path else sheet
    if isinstance(parent, dict):
        parent.pop(path.rpartition(".")[2], None)
