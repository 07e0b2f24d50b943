"""The characters app's part of "my data": the member's characters, each with its ledger."""

from __future__ import annotations

from typing import Any

from characters.models import Character, LedgerEntry
from config.exporters import rows


def export_user_data(user: Any) -> dict[str, Any]:
    characters = rows(
        Character.objects.filter(owner=user, is_npc=False),
        "id", "campaign__slug", "name", "system", "status", "sheet", "schema_version", "public_description",
        "private_background", "created", "updated",
    )  # fmt: skip
    ledger: dict[int, list[dict[str, Any]]] = {}
    for row in rows(
        LedgerEntry.objects.filter(character__owner=user, character__is_npc=False).order_by("id"),
        "character_id", "currency", "amount", "kind", "note", "approval", "created",
    ):  # fmt: skip
        ledger.setdefault(row.pop("character_id"), []).append(row)
    for character in characters:
        character["ledger"] = ledger.get(character["id"], [])
    return {"characters": characters}
