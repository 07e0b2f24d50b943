"""Fixtures of the combat tests: an Ambre table with the spec's reference
characters (rules/ambre.md §7.2: Ariane, Borel, Cendre)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import rules

#: Reference characters of the Ambre spec §7.2 (attribute points A, characteristics).
AMBRE_REFERENCE = {
    "Ariane": (
        {"psy": 0, "phy": 20, "end": -10, "cbt": 30},
        {
            "mental": 10,
            "concentration": 10,
            "volonte": 5,
            "force": 15,
            "dexterite": 10,
            "rapidite": 20,
            "adaptation": 5,
            "regeneration": 5,
            "resistance": 5,
            "hab_distance": 15,
            "hab_cac": 30,
            "strategie": 10,
        },
    ),
    "Borel": (
        {"psy": 40, "phy": 0, "end": 5, "cbt": -25},
        {
            "mental": 25,
            "concentration": 25,
            "volonte": 15,
            "force": 5,
            "dexterite": 10,
            "rapidite": 10,
            "adaptation": 5,
            "regeneration": 5,
            "resistance": 20,
            "hab_distance": 0,
            "hab_cac": 0,
            "strategie": 0,
        },
    ),
    "Cendre": (
        {"psy": 0, "phy": 10, "end": 15, "cbt": 25},
        {
            "mental": 10,
            "concentration": 5,
            "volonte": 10,
            "force": 10,
            "dexterite": 10,
            "rapidite": 15,
            "adaptation": 10,
            "regeneration": 10,
            "resistance": 20,
            "hab_distance": 10,
            "hab_cac": 35,
            "strategie": 5,
        },
    ),
}


def ambre_sheet(name: str) -> dict[str, Any]:
    attributes, characteristics = AMBRE_REFERENCE[name]
    sheet = rules.get_system("ambre").default_sheet()
    sheet["name"] = name
    sheet["attributes"] = dict(attributes)
    sheet["characteristics"] = dict(characteristics)
    return sheet


def make_thread(campaign: Any, user: Any, title: str = "L'embuscade") -> Any:
    from campaigns.models import Thread

    board = campaign.boards.first()
    return Thread.objects.create(board=board, campaign=campaign, title=title, created_by=user)


def make_character(campaign: Any, owner: Any, name: str, sheet: dict[str, Any], *, is_npc: bool = False) -> Any:
    from characters.models import Character

    return Character.objects.create(
        campaign=campaign,
        owner=owner,
        name=name,
        is_npc=is_npc,
        system=campaign.system,
        sheet=sheet,
        status=Character.Status.APPROVED,
    )


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    """The cast's accounts are created with a fast hasher (tests only)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class Fight:
    table: Any
    thread: Any
    encounter: Any
    cendre: Any  # the player's PC
    ariane: Any  # player2's PC
    borel: Any  # a quick NPC with GM-only stats


@pytest.fixture
def fight(table: Any) -> Fight:
    """An Ambre encounter: Cendre (player), Ariane (player2), Borel (quick NPC)."""
    from combat import services

    thread = make_thread(table.campaign, table.gm)
    encounter = services.create_encounter(table.gm, thread, title="Embuscade au Bois d'Arden")
    c_char = make_character(table.campaign, table.player, "Cendre", ambre_sheet("Cendre"))
    a_char = make_character(table.campaign, table.player2, "Ariane", ambre_sheet("Ariane"))
    (cendre,) = services.add_participant(table.gm, encounter, character=c_char, side="allies")
    (ariane,) = services.add_participant(table.gm, encounter, character=a_char, side="allies")
    borel_sheet = ambre_sheet("Borel")
    (borel,) = services.add_participant(
        table.gm,
        encounter,
        name="Borel",
        sheet={"attributes": borel_sheet["attributes"], "characteristics": borel_sheet["characteristics"]},
        side="opponents",
    )
    encounter.refresh_from_db()
    return Fight(table, thread, encounter, cendre, ariane, borel)
