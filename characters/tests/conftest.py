"""Fixtures of the characters tests: a character per role and helpers."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from characters.models import Character


def client_for(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def make_character(
    table: Any,
    owner: Any = None,
    *,
    name: str = "Corwin",
    status: str = "draft",
    sheet: dict | None = None,
    is_npc: bool = False,
) -> Character:
    campaign = table.campaign
    system = campaign.rule_system
    return Character.objects.create(
        campaign=campaign,
        owner=owner or table.player,
        name=name,
        system=system.slug,
        sheet=sheet if sheet is not None else system.default_sheet(),
        schema_version=system.schema_version,
        status=status,
        is_npc=is_npc,
    )


def valid_ambre_sheet(name: str = "Corwin") -> dict:
    from rules import get_system

    sheet = get_system("ambre").default_sheet()
    sheet["name"] = name
    sheet["powers"] = [{"power": "atouts", "level": 5, "via_marelle_brisee": False, "selections": ""}]
    return sheet


@pytest.fixture
def ambre_character(table: Any) -> Character:
    return make_character(table, sheet=valid_ambre_sheet(), status="approved")


def form_data(system: Any, sheet: dict, paths: Any = None, version: int | None = None) -> dict[str, str]:
    """The POST a browser would send for ``paths`` of ``sheet`` (inverse of sheetform.parse_sheet)."""
    from rules.base import get_path

    data: dict[str, str] = {}

    def put(field: Any, full: str, value: Any) -> None:
        if field.kind == "list":
            items = value if isinstance(value, list) else []
            data[f"n:{full}"] = str(len(items))
            for index, item in enumerate(items):
                for sub in field.item_fields:
                    put(sub, f"{full}.{index}.{sub.path}", get_path(item, sub.path, None))
        elif field.kind == "bool":
            data[f"h:{full}"] = "1"
            if value:
                data[f"s:{full}"] = "on"
        elif field.kind == "dict":
            return
        else:
            data[f"s:{full}"] = "" if value is None else str(value)

    wanted = set(paths) if paths is not None else None
    for field in system.sheet_fields():
        if wanted is None or field.path in wanted:
            put(field, field.path, get_path(sheet, field.path, None))
    if version is not None:
        data["version"] = str(version)
    return data


def run_wizard(client: Client, character: Character, sheet: dict, *, go: str = "next") -> list[Any]:
    """Post every creation step of ``sheet`` in order; returns the responses."""
    system = character.rule_system
    responses = []
    for step in system.creation_steps():
        character.refresh_from_db()
        data = form_data(system, sheet, step.paths, character.version)
        data["go"] = go
        responses.append(client.post(f"/characters/{character.pk}/wizard/{step.key}/", data))
    character.refresh_from_db()
    return responses


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """Test users are created by the dozen: hash their passwords cheaply."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
