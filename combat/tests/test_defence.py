"""The defender's choices are the defender's: an Altaride defender chooses parry or dodge, asked of
its player when the declarations are revealed; the step waits; a GM may decide only after the delay."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse

from combat import services
from combat.models import Declaration
from combat.tests.conftest import make_character
from combat.tests.test_dice_fight import _sheet
from rules.base import SeededRandom


@pytest.fixture
def ambush(db, settings):
    from conftest import make_table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = make_table("altaride", prefix="def")
    from combat.tests.conftest import make_thread

    thread = make_thread(t.campaign, t.gm, "Le col")
    encounter = services.create_encounter(t.gm, thread, title="Embuscade au col")
    hero = make_character(t.campaign, t.player, "Aldric", _sheet())
    (aldric,) = services.add_participant(t.gm, encounter, character=hero)
    (brigand,) = services.add_participant(
        t.gm, encounter, name="Brigand", sheet={"skills": [{"key": "epee", "level": 4, "formula": "HAB+VIG"}]}
    )
    services.start_encounter(t.gm, encounter)
    services.declare_action(
        t.gm, brigand, data={"action": "attack", "skill": "epee", "damage_x": 2, "defence": "none"}, target=aldric
    )
    services.reveal_declarations(t.gm, encounter, rng=SeededRandom(2))
    declaration = Declaration.objects.get(participant=brigand)
    return t, encounter, aldric, brigand, declaration


def test_the_defender_is_asked_and_her_choice_is_used(ambush):
    t, encounter, _aldric, _brigand, declaration = ambush
    assert declaration.defence_status == "pending"
    # The player sees the prompt on the page; the other player does not.
    client = Client()
    client.force_login(t.player)
    page = client.get(reverse("combat:detail", args=[encounter.pk])).content.decode()
    assert f'data-declaration="{declaration.pk}"' in page and "Défense de la cible" in page
    client.force_login(t.player2)
    assert (
        f'data-declaration="{declaration.pk}"'
        not in client.get(reverse("combat:detail", args=[encounter.pk])).content.decode()
    )
    # The step waits for her; another player and (within the delay) the GM cannot answer for her.
    with pytest.raises(ValidationError, match="Aldric"):
        services.resolve_next_step(t.gm, encounter)
    with pytest.raises(PermissionDenied):
        services.choose_defence(t.player2, declaration, data={"defence": "none"})
    with pytest.raises(ValidationError):
        services.choose_defence(t.gm, declaration, data={"defence": "none"})
    client.force_login(t.player)
    response = client.post(
        reverse("combat:defend", args=[encounter.pk, declaration.pk]),
        {f"d{declaration.pk}-defence": "parry", f"d{declaration.pk}-defender_skill": "epee"},
    )
    assert response.status_code == 302
    declaration.refresh_from_db()
    assert declaration.defence_status == "answered" and declaration.defence["defence"] == "parry"
    step = services.resolve_next_step(t.gm, encounter, rng=SeededRandom(3))
    assert step.detail["result"]["outcome"]["defence"] == "parry"  # her choice, not the attacker's "none"
    assert len(step.detail["draws"]) >= 2  # the parry was rolled


def test_a_gm_decides_for_a_silent_defender_after_the_delay(ambush, settings):
    t, _encounter, _aldric, _brigand, declaration = ambush
    settings.TABLEE_COMBAT_DEFENCE_MINUTES = 0
    services.choose_defence(t.gm, declaration, data={"defence": "dodge", "defender_skill": "epee"})
    declaration.refresh_from_db()
    assert declaration.defence_status == "gm" and declaration.defence["defence"] == "dodge"


def test_the_defender_is_told_and_sees_it_waiting_on_her(ambush):
    """#20: a reaction prompt is a notification to the defender's player only, and an item of her
    "waiting on you" list until she answers."""
    from campaigns.models import Notification
    from rhythm.services import waiting_on_you

    t, encounter, _aldric, _brigand, declaration = ambush
    assert Notification.objects.filter(user=t.player, kind="reaction").count() == 1
    for other in (t.player2, t.spectator, t.gm):
        assert not Notification.objects.filter(user=other, kind="reaction").exists()
    items = [i for i in waiting_on_you(t.player) if i.kind == "reaction"]
    assert len(items) == 1 and "Aldric" in items[0].label and items[0].url.endswith(f"/combat/{encounter.pk}/")
    assert not [i for i in waiting_on_you(t.player2) if i.kind == "reaction"]
    services.choose_defence(t.player, declaration, data={"defence": "parry", "defender_skill": "epee"})
    assert not [i for i in waiting_on_you(t.player) if i.kind == "reaction"]


def test_the_api_answers_the_defender_with_the_read_model(ambush):
    """The defence endpoint answers with the encounter's read model: the defender reads the attacker's
    declaration as revealed (no GM input, no number) and her own choices, never the GM's inputs."""
    from api.tests.conftest import token_client

    t, encounter, aldric, brigand, declaration = ambush
    Declaration.objects.filter(pk=declaration.pk).update(data={**declaration.data, "modifier": 7})  # the GM's input
    api = token_client(t.player)
    response = api.post(
        f"/api/v1/declarations/{declaration.pk}/defence/",
        {"data": {"defence": "parry", "defender_skill": "epee"}},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["id"] == declaration.pk and body["participant"] == brigand.pk and body["target"] == aldric.pk
    assert "modifier" not in body["data"] and "damage_x" not in body["data"]  # the GM's and the numbers
    assert body["data"]["action"] == "attack"
    assert body["defence"] == {"defence": "parry", "defender_skill": "epee"} and body["defence_status"] == "answered"
    # The same as the encounter's read model gives her, on the API and (through encounter_view) the page.
    row = {p["id"]: p for p in api.get(f"/api/v1/encounters/{encounter.pk}/").json()["participants"]}[brigand.pk]
    assert (row["declaration"], row["defence"], row["declaration_id"]) == (body["data"], body["defence"], body["id"])
    # Another player reads the revealed declaration, not the defender's choices.
    other = {
        p["id"]: p for p in token_client(t.player2).get(f"/api/v1/encounters/{encounter.pk}/").json()["participants"]
    }
    assert other[brigand.pk]["declaration"] == body["data"] and other[brigand.pk]["defence"] is None
    # The GM reads everything.
    gm = {p["id"]: p for p in token_client(t.gm).get(f"/api/v1/encounters/{encounter.pk}/").json()["participants"]}
    assert gm[brigand.pk]["declaration"]["modifier"] == 7 and gm[brigand.pk]["defence"]["defence"] == "parry"


def test_the_declaration_endpoint_keeps_a_nested_gm_input_from_the_player(fight):
    """A player re-declaring sees her declaration as the read model shows it: the GM's inputs stay the GM's."""
    from api.tests.conftest import token_client

    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(t.gm, fight.cendre, data={"mode": "melee", "actor_modifier": 613}, target=fight.borel)
    response = token_client(t.player).post(
        f"/api/v1/participants/{fight.cendre.pk}/declaration/",
        {"data": {"mode": "melee"}, "target": fight.borel.pk},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert (
        "613" not in response.content.decode() and response.json()["data"]["action"] == "melee"
    )  # the older key is read as today's
    assert response.json()["defence"] is None
