"""A player's GM-only declaration input (``Field.audience == "gm"``) is refused, HTML and API,
and nothing is saved; what the GM set on a declaration stays when the player changes it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

import rules
from api.tests.conftest import token_client
from combat import services
from combat.models import Declaration
from rules.base import gm_only_paths


@pytest.mark.parametrize(
    ("system", "path"),
    [("ambre", "actor_modifier"), ("clefs-de-l-aube", "harm"), ("sms", "circumstances"), ("altaride", "modifier")],
)
def test_each_system_declares_its_gm_only_inputs(system, path):
    assert path in gm_only_paths(rules.get_system(system).action_fields())


def _start(fight):
    services.start_encounter(fight.table.gm, fight.encounter)


def test_a_player_gm_modifier_is_refused_through_the_page(fight):
    _start(fight)
    client = Client()
    client.force_login(fight.table.player)
    prefix = f"p{fight.cendre.pk}"
    response = client.post(
        reverse("combat:declare", args=[fight.encounter.pk, fight.cendre.pk]),
        {f"{prefix}-action": "melee", f"{prefix}-target": fight.borel.pk, f"{prefix}-actor_modifier": "100"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Seul le MJ peut fixer cette valeur" in html and "Modificateur MJ (attaquant)" in html
    assert not Declaration.objects.exists()


def test_the_player_form_offers_no_gm_input(fight):
    _start(fight)
    client = Client()
    client.force_login(fight.table.player)
    html = client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert "Modificateur MJ (attaquant)" not in html
    client.force_login(fight.table.gm)
    assert (
        "Modificateur MJ (attaquant)"
        in client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    )


def test_a_player_gm_modifier_is_refused_through_the_api(fight):
    _start(fight)
    api = token_client(fight.table.player)
    response = api.post(
        f"/api/v1/participants/{fight.cendre.pk}/declaration/",
        {"data": {"action": "melee", "actor_modifier": 100}, "target": fight.borel.pk},
        format="json",
    )
    assert response.status_code == 400
    assert "actor_modifier" in str(response.json())
    assert not Declaration.objects.exists()


def test_what_the_gm_set_stays_when_the_player_changes_the_declaration(fight):
    _start(fight)
    t = fight.table
    services.declare_action(t.gm, fight.cendre, data={"action": "melee", "actor_modifier": 5}, target=fight.borel)
    services.declare_action(t.player, fight.cendre, data={"action": "ranged"}, target=fight.borel)
    declaration = Declaration.objects.get(participant=fight.cendre)
    assert declaration.data["action"] == "ranged" and declaration.data["actor_modifier"] == 5
    # Re-sending the GM's own value is not a change; another value is refused.
    services.declare_action(t.player, fight.cendre, data={"action": "melee", "actor_modifier": 5}, target=fight.borel)
    with pytest.raises(ValidationError) as exc:
        services.declare_action(
            t.player, fight.cendre, data={"action": "melee", "actor_modifier": 6}, target=fight.borel
        )
    assert "actor_modifier" in exc.value.message_dict
    declaration.refresh_from_db()
    assert declaration.data["actor_modifier"] == 5
