"""The SMS bestiary (#23): a structured list of entries (the rules' fields and
choices), starter classes without numbers, never JSON; bad input saves nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

import rules
from conftest import make_table

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _url(table: Any) -> str:
    return f"/campaigns/{table.campaign.slug}/settings/list/bestiary/"


def _row(index: int, **values: str) -> dict[str, str]:
    return {f"s:bestiary.{index}.{key}": value for key, value in values.items()}


def test_the_settings_page_links_the_bestiary_editor_not_a_json_box() -> None:
    table = make_table("sms")
    html = _client(table.gm).get(f"/campaigns/{table.campaign.slug}/settings/").content.decode()
    assert _url(table) in html and 'name="system__bestiary"' not in html


def test_the_starter_bestiary_is_the_classes_the_page_names_without_numbers() -> None:
    starter = rules.get_system("sms").starter_settings()["bestiary"]
    assert len(starter) == 17 and {"name": "Fauve", "creature_class": "fauve"} in starter
    assert all(set(row) == {"name", "creature_class"} for row in starter)


def test_it_adds_an_entry_with_labelled_fields_and_saves_it() -> None:
    table = make_table("sms")
    client = _client(table.gm)
    html = client.post(_url(table), {"n:bestiary": "0", "_add": "bestiary"}).content.decode()
    for name in ("name", "creature_class", "role", "method", "base_defence_die", "base_attack_die"):
        assert f'name="s:bestiary.0.{name}"' in html
    assert "Humanoïde supérieur" in html and "Récurrent" in html  # choices from the rules
    response = client.post(
        _url(table),
        {"n:bestiary": "1", **_row(0, name="Gnoll", creature_class="humanoide", role="disposable", method="simple")},
    )
    assert response.status_code == 302
    table.campaign.refresh_from_db()
    row = table.campaign.system_settings["bestiary"][0]
    assert (row["name"], row["creature_class"], row["role"]) == ("Gnoll", "humanoide", "disposable")
    entries = rules.get_system("sms").bestiary(table.campaign.system_settings)
    assert [e.key for e in entries] == ["Gnoll"]


def test_a_bad_die_or_a_duplicate_name_gets_a_field_message_and_saves_nothing() -> None:
    table = make_table("sms")
    client = _client(table.gm)
    response = client.post(_url(table), {"n:bestiary": "1", **_row(0, name="Gnoll", base_attack_die="40")})
    assert response.status_code == 400 and "Doit être au plus 30." in response.content.decode()
    response = client.post(_url(table), {"n:bestiary": "2", **_row(0, name="Gnoll"), **_row(1, name="Gnoll")})
    assert response.status_code == 400 and "Une autre entrée porte déjà ce nom." in response.content.decode()
    table.campaign.refresh_from_db()
    assert not (table.campaign.system_settings or {}).get("bestiary")


def test_a_bestiary_stored_as_a_dict_before_is_read_as_entries() -> None:
    system = rules.get_system("sms")
    merged = system.settings({"bestiary": {"Loup": {"role": "disposable"}}})
    assert merged["bestiary"] == [{"name": "Loup", "role": "disposable"}]
    assert system.validate_settings({"bestiary": {}}) == []
    assert [e.key for e in system.bestiary({"bestiary": {"Loup": {"role": "disposable"}}})] == ["Loup"]


def test_the_minion_choice_follows_the_role_unless_the_gm_says() -> None:
    system = rules.get_system("sms")
    rows = [
        {"name": "Rat", "role": "disposable", "is_minion": ""},
        {"name": "Chef rat", "role": "disposable", "is_minion": "no"},
    ]
    rat = system.quick_npc_sheet({}, {"bestiary": rows}, entry="Rat")[0]
    chief = system.quick_npc_sheet({}, {"bestiary": rows}, entry="Chef rat")[0]
    assert rat["npc"]["is_minion"] is True and chief["npc"]["is_minion"] is False
    assert rat["npc"]["base_defence_die"] == 2  # the low end of Jetable's D2–D6


@pytest.mark.parametrize(
    ("slug", "path", "value"),
    [("ambre", "attributes.psy", "10"), ("clefs-de-l-aube", "aspects.PH", "12"), ("altaride", "talents.VIG", "9")],
)
def test_every_system_has_a_bestiary_editor_with_its_quick_npc_inputs(slug: str, path: str, value: str) -> None:
    table = make_table(slug, prefix=slug[:3])
    client = _client(table.gm)
    html = client.get(f"/campaigns/{table.campaign.slug}/settings/").content.decode()
    assert _url(table) in html
    html = client.post(_url(table), {"n:bestiary": "0", "_add": "bestiary"}).content.decode()
    assert f'name="s:bestiary.0.{path}"' in html
    response = client.post(_url(table), {"n:bestiary": "1", **_row(0, name="Sbire", **{path: value})})
    assert response.status_code == 302
    table.campaign.refresh_from_db()
    entries = rules.get_system(slug).bestiary(table.campaign.system_settings)
    assert [(e.key, e.values.get(path)) for e in entries] == [("Sbire", int(value))]
    bad = client.post(_url(table), {"n:bestiary": "1", **_row(0, name="Sbire", **{path: "-100"})})
    assert bad.status_code == 400
