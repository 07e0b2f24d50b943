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


def make_character(table: Any, owner: Any = None, *, name: str = "Corwin", status: str = "draft",
                   sheet: dict | None = None, is_npc: bool = False) -> Character:
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
