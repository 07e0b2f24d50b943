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
