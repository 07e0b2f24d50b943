"""Odds before rolling: the post form previews the system test being filled in (nothing is rolled)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from campaigns.models import Roll
from conftest import make_table

pytestmark = pytest.mark.django_db

SPELL = {
    "test_kind": "spell_builder",
    "test__mode": "spell",
    "test__nature": "offensive",
    "test__severity": "serious",
    "test__target_die": "6",
    "test__area": "1",
}


def _preview(client: Any, campaign: Any, params: dict[str, str]) -> Any:
    return client.get(reverse("campaigns:roll_preview", args=[campaign.slug]), params)


def test_it_shows_the_spell_builder_s_difficulty_and_energy_cost_live(client: Any) -> None:
    table = make_table("sms")
    client.force_login(table.gm)
    response = _preview(client, table.campaign, SPELL)
    assert response.status_code == 200
    text = response.content.decode()
    # D6 defence + 2 for a serious wound = D8 (L366, L376); a small area costs 1 on the score (L316).
    assert "difficulté D8, malus au score 1, coût en énergie : 1 fatigue durable" in text
    assert Roll.objects.count() == 0


def test_it_shows_the_odds_of_a_clefs_action_before_the_roll(client: Any) -> None:
    table = make_table("clefs-de-l-aube")
    client.force_login(table.gm)
    params = {"test_kind": "action", "test__aspect": "1", "test__means": "2", "test__skill_nc": "10"}
    response = _preview(client, table.campaign, params)
    assert response.status_code == 200
    assert "15 % de réussir" in response.content.decode()
    assert Roll.objects.count() == 0


def test_it_speaks_english_to_an_english_reader(client: Any) -> None:
    table = make_table("sms")
    profile = table.gm.profile
    profile.language = "en"
    profile.save()
    client.force_login(table.gm)
    text = _preview(client, table.campaign, SPELL).content.decode()
    assert "Before rolling:" in text
    assert "difficulty D8, score penalty 1, energy cost: 1 lasting fatigue" in text


def test_it_gives_the_rules_message_for_an_incomplete_spell(client: Any) -> None:
    table = make_table("sms")
    client.force_login(table.gm)
    params = {**SPELL, "test__target_die": ""}
    text = _preview(client, table.campaign, params).content.decode()
    assert "Indiquez le dé de défense de la cible" in text
    assert "difficulté" not in text


def test_it_gives_a_field_message_for_a_malformed_number(client: Any) -> None:
    table = make_table("clefs-de-l-aube")
    client.force_login(table.gm)
    params = {"test_kind": "action", "test__aspect": "beaucoup", "test__means": "2"}
    text = _preview(client, table.campaign, params).content.decode()
    assert "Aspect (valeur) : Entrez un nombre entier." in text
    assert "de réussir" not in text


def test_it_shows_nothing_without_a_test(client: Any) -> None:
    table = make_table("sms")
    client.force_login(table.player)
    response = _preview(client, table.campaign, {"test_kind": ""})
    assert response.status_code == 200
    assert response.content.decode().strip() == ""


@pytest.mark.parametrize("who", ["spectator", "outsider", "anonymous"])
def test_it_answers_404_to_those_who_cannot_post(client: Any, who: str) -> None:
    table = make_table("sms")
    if who != "anonymous":
        client.force_login(getattr(table, who))
    assert _preview(client, table.campaign, SPELL).status_code == 404


def test_the_test_fields_ask_for_the_preview(client: Any) -> None:
    table = make_table("sms")
    client.force_login(table.gm)
    url = reverse("campaigns:roll_fields", args=[table.campaign.slug]) + "?test_kind=spell_builder"
    text = client.get(url).content.decode()
    assert reverse("campaigns:roll_preview", args=[table.campaign.slug]) in text
    assert 'id="roll-preview"' in text
