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
from rules.base import Msg

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


def test_starter_entries_are_marked_and_rules_check_them() -> None:
    system = get_system("altaride")
    starter = system.starter_settings()
    assert system.validate_settings(starter) == []  # the starter formula passes the rules' own check
    assert all(row["starter"] is True for row in starter["skill_catalogue"])
    # A bad formula is still refused; a blank one is the GM's to fix (not an error).
    bad = {"skill_catalogue": [{"key": "x", "name": "X", "formula": "FOO"}]}
    assert [e.code for e in system.validate_settings(bad)] == ["invalid_formula"]
    assert system.validate_settings({"skill_catalogue": [{"key": "x", "name": "X", "formula": ""}]}) == []


def test_a_player_buys_the_starter_skill_then_rolls_it_from_the_sheet(client: Any) -> None:
    """A fresh campaign, no GM set-up: the player buys a level of Mains Nues with XP (the
    ledger, L79), then rolls it from the sheet; the target is floor(VIG / 2) + level (L71, L89)."""
    from characters import ledger
    from progression import services as progression_services

    campaign, gm, player = _new_altaride_campaign()
    system = get_system("altaride")
    sheet = system.default_sheet()
    sheet["talents"]["VIG"] = 11
    character = Character.objects.create(
        campaign=campaign,
        owner=player,
        name="Aldo",
        system="altaride",
        sheet=sheet,
        schema_version=system.schema_version,
        status="approved",
    )
    ledger.append_entry(character, "xp", 10, "gm_award")
    services.open_session(gm, campaign, title="Première")
    purchase = progression_services.request_purchase(
        player, character, request={"kind": "skill", "skill": "mains_nues"}
    )
    progression_services.decide_purchase(gm, purchase, approve=True)
    character.refresh_from_db()
    assert character.sheet["skills"] == [{"key": "mains_nues", "level": 1, "formula": ""}]
    assert ledger.balances(character)["xp"] == 9  # level 1 costs 1 XP (L79)

    thread = services.create_thread(player, campaign.boards.first(), title="Bagarre", body="Aldo serre les poings.")
    client.force_login(player)
    page = client.get(f"/characters/{character.pk}/").content.decode()
    assert 'value="skill:mains_nues"' in page and "<strong>Mains Nues</strong>" in page  # "What you can roll"
    # The sheet's skill list names the skill as the catalogue does, never by its key.
    assert "<li><strong>Mains Nues</strong>" in page and "mains_nues" not in page.replace("skill:mains_nues", "")
    services.create_post(
        player,
        thread,
        body="Je frappe.",
        character=character,
        roll_requests=[{"sheet_test": {"test": "skill:mains_nues"}, "character_id": character.pk}],
    )
    roll = Roll.objects.get(kind="system", campaign=campaign)
    assert roll.request["target"] == 11 // 2 + 1 == 6
    assert roll.resolution["inputs"]["base_target"] == 6
    natural = roll.resolution["draws"][0]
    assert roll.resolution["outcome"]["success"] is (natural == 1 or (natural != 20 and natural <= 6))


def test_a_skill_whose_formula_the_gm_has_not_set_rolls_its_level() -> None:
    """A catalogue skill with a blank formula: Formule 0 until the GM sets it, CR = level,
    and the sheet's test says the formula is the GM's to fix."""
    system = get_system("altaride")
    settings = system.settings({"skill_catalogue": [{"key": "pister", "name": "Pister", "formula": ""}]})
    sheet = system.default_sheet()
    sheet["skills"] = [{"key": "pister", "level": 7, "formula": ""}]
    (test,) = [t for t in system.sheet_tests(sheet, settings) if t.key == "skill:pister"]
    assert [(r.label.fr, r.value) for r in test.reads] == [
        ("Formule à fixer par le MJ : table absente du texte", 0),
        ("Pister (niveau)", 7),
    ]
    request, _reads = system.sheet_test_request(sheet, test, {}, settings, {})
    assert request["target"] == 7
    assert system.derive(sheet, settings)["skills"][0]["cr"] == 7
    # No Talent is known, so none caps the level (L61); the creation cap of 15 (L83) still holds.
    sheet["skills"][0]["level"] = 16
    assert "skill_creation_level" in [e.code for e in system.validate_sheet(sheet, settings)]


def test_only_the_gm_edits_the_starter_catalogue(client: Any) -> None:
    from django.core.exceptions import PermissionDenied

    campaign, gm, player = _new_altaride_campaign()
    url = f"/campaigns/{campaign.slug}/settings/list/skill_catalogue/"
    client.force_login(gm)
    page = client.get(url).content.decode()
    assert "Entrée de départ — à modifier" in page and "Mains Nues" in page
    assert "Vide : formule à fixer par le MJ (table absente du texte)" in page
    # The GM edits the starter entry: completes the formula and unticks "starter".
    row = {**campaign.system_settings["skill_catalogue"][0], "formula": "HAB+VIG", "starter": False}
    services.update_campaign(gm, campaign, title=campaign.title, system_settings={"skill_catalogue": [row]})
    campaign.refresh_from_db()
    assert campaign.system_settings["skill_catalogue"][0]["formula"] == "HAB+VIG"
    assert campaign.system_settings["skill_catalogue"][0]["starter"] is False

    before = dict(campaign.system_settings)
    client.force_login(player)
    assert client.get(url).status_code == 404
    assert client.post(url, {"skill_catalogue__0__formula": "DOM"}).status_code == 404
    with pytest.raises(PermissionDenied):
        services.update_campaign(player, campaign, title=campaign.title, system_settings={"skill_catalogue": []})
    campaign.refresh_from_db()
    assert campaign.system_settings == before


def test_the_demo_heroes_have_a_starter_skill_to_roll_and_declare() -> None:
    from django.core.management import call_command

    from combat.models import Participant

    call_command("demo", stdout=open("/dev/null", "w"))
    system = get_system("altaride")
    for name, cr in (("Maëlis", 10 // 2 + 4), ("Tordek", 13 // 2 + 6)):
        character = Character.objects.get(campaign__system="altaride", name=name)
        settings = system.settings(character.campaign.system_settings)
        keys = [t.key for t in system.sheet_tests(character.sheet, settings)]
        assert "skill:mains_nues" in keys
        assert system.derive(character.sheet, settings)["skills"][0]["cr"] == cr
    hero = Participant.objects.get(character__name="Maëlis", encounter__campaign__system="altaride")
    options = system.action_options(hero.character.sheet, {}, system.settings(hero.encounter.campaign.system_settings))
    assert options["skill"] == (("mains_nues", Msg("Mains Nues", "Mains Nues")),)
