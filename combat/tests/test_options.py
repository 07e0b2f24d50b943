"""Declarations through the sheet: a player's options come from the rules and the sheet
(``RuleSystem.action_options``); a value the sheet does not give is refused, page and service."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from combat import services
from combat.models import Declaration
from combat.tests.test_dice_fight import duel  # noqa: F401  (fixture)


def test_the_form_offers_exactly_the_sheets_skills_and_refuses_others(duel):  # noqa: F811
    t, encounter, aldric, brigand = duel
    services.start_encounter(t.gm, encounter)
    client = Client()
    client.force_login(t.player)
    page = client.get(reverse("combat:detail", args=[encounter.pk])).content.decode()
    select = page.split(f'name="p{aldric.pk}-skill"')[1].split("</select>")[0]
    assert '<option value="epee"' in select and select.count("<option") == 2  # "—" and the sheet's one skill
    response = client.post(
        reverse("combat:declare", args=[encounter.pk, aldric.pk]),
        {f"p{aldric.pk}-action": "attack", f"p{aldric.pk}-skill": "hache", f"p{aldric.pk}-target": brigand.pk},
    )
    assert response.status_code == 400 and not Declaration.objects.exists()
    services.declare_action(t.player, aldric, data={"action": "attack", "skill": "epee"}, target=brigand)
    assert Declaration.objects.get(participant=aldric).data["skill"] == "epee"
