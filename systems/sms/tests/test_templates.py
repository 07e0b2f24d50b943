"""The SMS plug-in: the archetype chooser, the race note and the template action, for SMS sheets only."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import Http404

from api.tests.conftest import token_client
from characters.tests.conftest import client_for, make_character
from conftest import make_table
from systems.sms import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def sms() -> Any:
    return make_table("sms", prefix="tp")


def test_it_shows_its_panels_on_their_steps(sms: Any) -> None:
    hero = make_character(sms, sms.player, name="Loreval")
    client = client_for(sms.player)
    archetype = client.get(f"/characters/{hero.pk}/wizard/archetype/").content.decode()
    race = client.get(f"/characters/{hero.pk}/wizard/race/").content.decode()
    assert 'id="sms-archetype"' in archetype and f'action="/characters/{hero.pk}/template/"' in archetype
    assert 'id="sms-archetype"' not in race and "modules raciaux" in race


def test_it_applies_an_archetype_for_the_owner_only(sms: Any) -> None:
    hero = make_character(sms, sms.player, name="Loreval")
    url = f"/characters/{hero.pk}/template/"
    data = {"kind": "archetype", "key": "lancer_des_sorts_de_magie_divine", "version": hero.version}
    assert client_for(sms.player2).post(url, data).status_code == 404
    hero.refresh_from_db()
    assert not [m for m in hero.sheet.get("modules", []) if m.get("source") == "archetype"]
    response = token_client(sms.player).post(f"/api/v1/characters/{hero.pk}/template/", data, format="json")
    assert response.status_code == 200
    assert [m["name"] for m in response.json()["sheet"]["modules"] if m["source"] == "archetype"] == ["Magie divine"]


def test_it_is_refused_on_another_systems_sheet(table: Any) -> None:
    hero = make_character(table, table.player, name="Corwin")  # Ambre
    with pytest.raises(Http404):
        services.apply_template(table.player, hero, kind="race", key="elfin", expected_version=hero.version)
