"""Altaride tests typed by the GM in a post (#23): the extra damage modifiers
are labelled inputs (no list), a skill or talent test reads the chosen
character's sheet (no JSON input)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

import rules
from campaigns.models import Roll
from combat.tests.conftest import make_character, make_thread
from conftest import make_table

pytestmark = pytest.mark.django_db


def _gm(table: Any) -> Client:
    client = Client()
    client.force_login(table.gm)
    return client


def _reply(client: Client, thread: Any, data: dict[str, str]) -> Any:
    return client.post(
        reverse("campaigns:thread_reply", args=[thread.pk]), {"body": "Le coup porte.", "visibility": "public", **data}
    )


def test_the_damage_test_has_one_labelled_input_per_extra_modifier_of_the_text() -> None:
    table = make_table("altaride")
    thread = make_thread(table.campaign, table.gm)
    client = _gm(table)
    url = reverse("campaigns:roll_fields", args=[table.campaign.slug])
    html = client.get(url, {"test_kind": "damage"}).content.decode()
    for name in ("extra_size", "extra_enchantment", "extra_other"):
        assert f'name="test__{name}"' in html
    assert "Taille de l&#x27;arme (lutine/géante)" in html and 'name="test__extras"' not in html
    assert 'name="test__sheet"' not in html
    data = {"test_kind": "damage", "test__margin": "3", "test__damage_x": "1", "test__extra_size": "1"}
    bad = _reply(client, thread, {**data, "test__extra_other": "2"})
    assert bad.status_code in (200, 400) and "Assurez-vous que cette valeur est inférieure ou égale à 1." in (
        bad.content.decode()
    )
    assert Roll.objects.count() == 0
    response = _reply(client, thread, {**data, "test__extra_enchantment": "-1", "test__extra_other": "1"})
    assert response.status_code == 302
    roll = Roll.objects.get()
    outcome = roll.resolution["outcome"]
    assert outcome["extras"] == [1, -1, 1]
    assert outcome["damage"] == max(0, 3 + 1 + outcome["natural"] // 2 + 1)


def test_a_skill_test_reads_the_chosen_character_s_sheet() -> None:
    table = make_table("altaride")
    table.campaign.system_settings = rules.get_system("altaride").starter_settings()
    table.campaign.save(update_fields=["system_settings"])
    system = rules.get_system("altaride")
    sheet = system.default_sheet()
    sheet["talents"]["VIG"] = 9
    sheet["skills"] = [{"key": "mains_nues", "level": 3}]
    hero = make_character(table.campaign, table.gm, "Brigand", sheet, is_npc=True)
    thread = make_thread(table.campaign, table.gm)
    response = _reply(
        _gm(table),
        thread,
        {"test_kind": "skill_test", "test__skill": "mains_nues", "test_character": str(hero.pk)},
    )
    assert response.status_code == 302
    roll = Roll.objects.get()
    assert "sheet" not in roll.request.get("system_test", roll.request)
    expected = system.resolve(
        {"kind": "skill_test", "skill": "mains_nues", "sheet": hero.current_sheet()},
        rules.base.ScriptedRandom(roll.resolution["draws"]),
        table.campaign.system_settings,
    )
    assert roll.resolution["inputs"]["base_target"] == expected.inputs["base_target"]
