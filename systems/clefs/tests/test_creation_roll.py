"""The Clefs plug-in: the creation roll's panel, page action and API route, for Clefs sheets only."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import Http404

from api.tests.conftest import token_client
from characters.tests.conftest import client_for, make_character
from conftest import make_table
from systems.clefs import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def clefs() -> Any:
    return make_table("clefs-de-l-aube", prefix="cr")


def test_it_shows_the_roll_panel_on_the_aspects_step_only(clefs: Any) -> None:
    hero = make_character(clefs, clefs.player, name="Aube")
    client = client_for(clefs.player)
    assert 'id="clefs-roll"' in client.get(f"/characters/{hero.pk}/wizard/aspects/").content.decode()
    assert 'id="clefs-roll"' not in client.get(f"/characters/{hero.pk}/wizard/identity/").content.decode()
    other = make_table("sms", prefix="crs")
    sms_hero = make_character(other, other.player, name="Loreval")
    steps = [s.key for s in sms_hero.rule_system.creation_steps()]
    for step in steps:
        assert (
            'id="clefs-roll"'
            not in client_for(other.player).get(f"/characters/{sms_hero.pk}/wizard/{step}/").content.decode()
        )


def test_it_rolls_for_the_owner_once_and_refuses_others(clefs: Any) -> None:
    hero = make_character(clefs, clefs.player, name="Aube")
    url = f"/characters/{hero.pk}/clefs-roll/"
    data = {"aspect_method": "ROLL_STANDARD", "means_method": "ROLL", "version": hero.version}
    assert client_for(clefs.player2).post(url, data).status_code == 404  # another player's sheet
    assert client_for(clefs.spectator).post(url, data).status_code == 404
    hero.refresh_from_db()
    assert hero.creation_roll_id is None
    assert client_for(clefs.player).post(url, data).status_code == 302
    hero.refresh_from_db()
    assert hero.creation_roll_id is not None and hero.sheet["creation"]["roll"]["draws"]


def test_it_is_refused_on_another_systems_sheet() -> None:
    other = make_table("sms", prefix="cro")
    hero = make_character(other, other.player, name="Loreval")
    with pytest.raises(Http404):
        services.clefs_creation_roll(
            other.player, hero, aspect_method="ROLL_STANDARD", means_method="ROLL", expected_version=hero.version
        )
    response = token_client(other.player).post(
        f"/api/v1/characters/{hero.pk}/clefs-roll/",
        {"aspect_method": "ROLL_STANDARD", "means_method": "ROLL", "version": hero.version},
        format="json",
    )
    assert response.status_code == 404
