"""Services enforce the fields a player may not write, whatever the client sends."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import rules
from characters import services
from characters.models import Character


@pytest.fixture
def draft(table: Any) -> Character:
    sheet = rules.get_system("ambre").default_sheet()
    sheet["ladder"] = {"phy": {"true_position": 2, "public_position": 2}}
    return Character.objects.create(
        campaign=table.campaign, owner=table.player, system="ambre", name="Fiona", sheet=sheet
    )


@pytest.mark.django_db
def test_a_player_cannot_write_the_ladder_through_the_service(table: Any, draft: Character) -> None:
    forged = copy.deepcopy(draft.sheet)
    forged["ladder"] = {"phy": {"true_position": 1, "public_position": 1}}
    forged["name"] = "Fiona d'Ambre"
    services.save_sheet(table.player, draft, sheet=forged, expected_version=draft.version)
    draft.refresh_from_db()
    assert draft.sheet["ladder"] == {"phy": {"true_position": 2, "public_position": 2}}
    assert draft.sheet["name"] == "Fiona d'Ambre"  # what the player may edit is saved


@pytest.mark.django_db
def test_a_gm_may_write_the_ladder(table: Any, draft: Character) -> None:
    forged = copy.deepcopy(draft.sheet)
    forged["ladder"] = {"phy": {"true_position": 1, "public_position": 2}}
    services.save_sheet(table.gm, draft, sheet=forged, expected_version=draft.version)
    draft.refresh_from_db()
    assert draft.sheet["ladder"]["phy"]["true_position"] == 1
