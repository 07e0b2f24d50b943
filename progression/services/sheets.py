"""Recomputed sheets stored as new versions (history kept)."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils import timezone

from characters.models import Character, SheetVersion
from live.events import publish, publish_many
from progression import bulk


def save_sheets(changes: list[tuple[Character, dict[str, Any]]], *, reason: str) -> None:
    """Store recomputed sheets as new versions, in bulk: one UPDATE of the characters per
    :data:`progression.bulk.BATCH` (the only time the sheets travel), then their versions copied
    from the rows just written by the server (``INSERT … SELECT``), one INSERT of their live
    events. The caller holds the characters' row locks."""
    if not changes:
        return
    now = timezone.now()
    for character, sheet in changes:
        character.sheet, character.version = sheet, character.version + 1
        character.schema_version = character.rule_system.schema_version
        character.updated = now
    bulk.update_rows(
        Character,
        "id",
        [
            {"id": c.pk, "sheet": c.sheet, "version": c.version, "schema_version": c.schema_version, "updated": now}
            for c, _sheet in changes
        ],
    )
    _copy_versions([c.pk for c, _sheet in changes], reason=reason, now=now)
    publish_many([(f"character:{c.pk}", "sheet-changed", {"character": c.pk}) for c, _sheet in changes])


def _copy_versions(ids: list[int], *, reason: str, now: Any) -> None:
    """Append each character's current row (name, sheet, version, schema, status) to its history."""
    quote = connection.ops.quote_name
    version_field = SheetVersion._meta.get_field
    character_field = Character._meta.get_field
    copied = ("character", "version", "name", "sheet", "schema_version", "status")
    targets = [quote(version_field(name).column) for name in (*copied, "author", "reason", "created")]
    sources = [quote(character_field("id" if name == "character" else name).column) for name in copied]
    sql = (
        f"INSERT INTO {quote(SheetVersion._meta.db_table)} ({', '.join(targets)}) "
        f"SELECT {', '.join(sources)}, NULL, %s, %s FROM {quote(Character._meta.db_table)} WHERE {sources[0]} IN "
    )
    stamp = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        for start in range(0, len(ids), bulk.BATCH):
            part = ids[start : start + bulk.BATCH]
            cursor.execute(sql + "(" + ", ".join(["%s"] * len(part)) + ")", [reason, stamp, *part])


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
