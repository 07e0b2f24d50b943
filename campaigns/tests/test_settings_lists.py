"""Structured editors of list settings (#23): catalogues are forms with the
rules' fields, never JSON; bad input gets a field message and saves nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from conftest import make_table

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _url(table: Any, path: str = "skill_catalogue") -> str:
    return f"/campaigns/{table.campaign.slug}/settings/list/{path}/"


def _row(index: int, **values: str) -> dict[str, str]:
    return {f"s:skill_catalogue.{index}.{key}": value for key, value in values.items()}


def test_it_lists_the_catalogues_on_the_settings_page_instead_of_json() -> None:
    table = make_table("altaride")
    html = _client(table.gm).get(f"/campaigns/{table.campaign.slug}/settings/").content.decode()
    assert _url(table) in html and _url(table, "weapon_catalogue") in html
    assert 'name="system__skill_catalogue"' not in html


def test_it_adds_an_entry_with_a_form_per_field_and_saves_it() -> None:
    table = make_table("altaride")
    client = _client(table.gm)
    html = client.post(_url(table), {"n:skill_catalogue": "0", "_add": "skill_catalogue"}).content.decode()
    for name in ("key", "name", "category", "formula"):
        assert f'name="s:skill_catalogue.0.{name}"' in html
    assert "<select" in html  # the category comes from the rules' choices
    response = client.post(
        _url(table),
        {
            "n:skill_catalogue": "1",
            **_row(0, key="savoir", name="Savoir", category="intellectuelle", formula="GEN+SCI"),
        },
    )
    assert response.status_code == 302
    table.campaign.refresh_from_db()
    assert table.campaign.system_settings["skill_catalogue"][0]["formula"] == "GEN+SCI"
    assert table.campaign.system_settings["skill_catalogue"][0]["name"] == "Savoir"


def test_it_refuses_an_invalid_formula_with_a_field_message_in_french_and_saves_nothing() -> None:
    table = make_table("altaride")
    response = _client(table.gm).post(
        _url(table),
        {
            "n:skill_catalogue": "1",
            **_row(0, key="savoir", name="Savoir", category="intellectuelle", formula="FOR+XYZ"),
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Formule invalide : codes de Talents attendus" in html
    assert "Rien n’a été enregistré : 1 problème" in html and "<title>Erreur" in html
    assert 'id="e-' in html and "FOR+XYZ" in html  # the typed value is kept, next to its message
    table.campaign.refresh_from_db()
    assert not table.campaign.system_settings.get("skill_catalogue")


def test_it_refuses_a_missing_name_and_saves_nothing() -> None:
    table = make_table("altaride")
    response = _client(table.gm).post(
        _url(table), {"n:skill_catalogue": "1", **_row(0, key="x", name="", formula="HAB")}
    )
    assert response.status_code == 400
    table.campaign.refresh_from_db()
    assert not table.campaign.system_settings.get("skill_catalogue")


def test_the_main_settings_form_keeps_the_catalogues() -> None:
    table = make_table("altaride")
    table.campaign.system_settings = {"skill_catalogue": [{"key": "savoir", "name": "Savoir", "formula": "GEN+SCI"}]}
    table.campaign.save()
    response = _client(table.gm).post(
        f"/campaigns/{table.campaign.slug}/settings/", {"title": "Nouveau titre", "language": "fr", "is_public": ""}
    )
    assert response.status_code == 302
    table.campaign.refresh_from_db()
    assert table.campaign.title == "Nouveau titre"
    assert table.campaign.system_settings["skill_catalogue"][0]["key"] == "savoir"


@pytest.mark.parametrize("role", ["player", "spectator", "outsider"])
def test_only_the_gms_open_or_change_a_catalogue(role: str) -> None:
    table = make_table("altaride")
    client = _client(getattr(table, role))
    assert client.get(_url(table)).status_code in (403, 404)
    client.post(_url(table), {"n:skill_catalogue": "1", **_row(0, key="a", name="A", formula="HAB")})
    table.campaign.refresh_from_db()
    assert not table.campaign.system_settings.get("skill_catalogue")


def test_an_unknown_list_is_not_found() -> None:
    table = make_table("altaride")
    assert _client(table.gm).get(_url(table, "dodge_skill")).status_code == 404
