"""Recomputed sheets stored as new versions (history kept)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from characters.models import Character, SheetVersion
from live.events import publish, publish_many
from progression import bulk


def save_sheets(changes: list[tuple[Character, dict[str, Any]]], *, reason: str) -> None:
    """Store recomputed sheets as new versions, in bulk: one UPDATE of the characters and one
    INSERT of their versions per :data:`progression.bulk.BATCH`, one INSERT of their live events.
    The caller holds the characters' row locks."""
    if not changes:
        return
    now = timezone.now()
    versions: list[dict[str, Any]] = []
    for character, sheet in changes:
        character.sheet, character.version = sheet, character.version + 1
        character.schema_version = character.rule_system.schema_version
        character.updated = now
        versions.append(
            {
                "character_id": character.pk,
                "version": character.version,
                "name": character.name,
                "sheet": sheet,
                "schema_version": character.schema_version,
                "status": character.status,
                "author_id": None,
                "reason": reason,
            }
        )
    bulk.update_rows(
        Character,
        "id",
        [
            {"id": c.pk, "sheet": c.sheet, "version": c.version, "schema_version": c.schema_version, "updated": now}
            for c, _sheet in changes
        ],
    )
    bulk.insert_rows(SheetVersion, versions)
    publish_many([(f"character:{c.pk}", "sheet-changed", {"character": c.pk}) for c, _sheet in changes])


def save_sheet(character: Character, sheet: dict[str, Any], *, reason: str, author: Any = None) -> None:
    """Store a recomputed sheet as a new version (history kept)."""
    version = character.version + 1
    Character.objects.filter(pk=character.pk).update(
        sheet=sheet, version=version, schema_version=character.rule_system.schema_version, updated=timezone.now()
    )
    character.sheet, character.version = sheet, version
    SheetVersion.objects.create(
        character=character,
        version=version,
        name=character.name,
        sheet=sheet,
        schema_version=character.rule_system.schema_version,
        status=character.status,
        author=author,
        reason=reason,
    )
    publish(f"character:{character.pk}", "sheet-changed", {"character": character.pk})
