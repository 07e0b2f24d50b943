"""Starter content (#23): a new Altaride campaign can roll a skill test at
once, from a catalogue built from what the text names, editable by the GM."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services
from campaigns.models import Roll
from characters.models import Character
from conftest import make_user
from rules import get_system

pytestmark = pytest.mark.django_db


def _new_altaride_campaign() -> Any:
    from campaigns.models import Membership, Role

    gm, player = make_user("mj-starter"), make_user("joueuse-starter")
    campaign = services.create_campaign(gm, title="Nouvelle table", system="altaride")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    return campaign, gm, player


def test_a_new_altaride_campaign_starts_with_the_skills_the_text_names() -> None:
    campaign, _gm, _player = _new_altaride_campaign()
    rows = campaign.system_settings["skill_catalogue"]
    assert [r["key"] for r in rows] == ["mains_nues"]
    assert rows[0]["formula"] == "VIG"  # the only talent the text ties to it (L75)
    assert "à compléter par le MJ" in rows[0]["description"]
    assert not campaign.system_settings.get("weapon_catalogue")  # the weapons table is missing: nothing invented


def test_a_player_rolls_a_skill_test_in_a_new_altaride_campaign_with_no_gm_set_up() -> None:
    campaign, _gm, player = _new_altaride_campaign()
    system = get_system("altaride")
    sheet = system.default_sheet()
    sheet["talents"]["VIG"] = 13
    sheet["skills"] = [{"key": "mains_nues", "level": 3}]
    character = Character.objects.create(
        campaign=campaign,
        owner=player,
        name="Aldo",
        system="altaride",
        sheet=sheet,
        schema_version=system.schema_version,
        status="approved",
    )
    thread = services.create_thread(player, campaign.boards.first(), title="Bagarre", body="Aldo serre les poings.")
    forged = {**sheet, "talents": {**sheet["talents"], "VIG": 20}}
    services.create_post(
        player,
        thread,
        body="Je frappe.",
        character=character,
        roll_requests=[
            # A player's test is built from the stored sheet (issue 15): a posted sheet or number is never read.
            {
                "sheet_test": {"test": "skill:mains_nues"},
                "character_id": character.pk,
            }
        ],
    )
    roll = Roll.objects.get(kind="system", campaign=campaign)
    # CR = floor(VIG / 2) + level = 6 + 3 (L71, L89), from the stored sheet, not the posted one.
    assert roll.request["target"] == 9 and forged["talents"]["VIG"] == 20
    assert "sheet" not in roll.request
    assert "Mains Nues" in roll.resolution["summary"]["fr"]


def test_the_catalogue_stays_the_gms_to_edit() -> None:
    campaign, gm, _player = _new_altaride_campaign()
    services.update_campaign(gm, campaign, title=campaign.title, system_settings={"skill_catalogue": []})
    campaign.refresh_from_db()
    assert campaign.system_settings["skill_catalogue"] == []


def test_the_altaride_demo_table_has_the_starter_catalogue() -> None:
    from django.core.management import call_command

    from campaigns.models import Campaign

    call_command("demo", stdout=open("/dev/null", "w"))
    campaign = Campaign.objects.get(system="altaride")
    assert campaign.system_settings["skill_catalogue"][0]["key"] == "mains_nues"
