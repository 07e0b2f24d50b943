"""An SMS "Sort" declared on the page takes its spell from the spell builder (#19 item 7):
its components reach rules.sms build_spell, and an offensive spell wounds."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

import rules
from combat import services
from combat.models import Declaration
from combat.tests.conftest import make_character, make_thread
from rules.base import ScriptedRandom, SeededRandom


@pytest.fixture
def duel(db, settings):
    from conftest import make_table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = make_table("sms", prefix="sms")
    thread = make_thread(t.campaign, t.gm, "La clairière")
    encounter = services.create_encounter(t.gm, thread, title="Duel de mages")
    sheet = rules.get_system("sms").default_sheet()
    sheet["modules"] = [{"name": "Magie arcanique", "kind": "positive", "scope": 3, "rank": 3}]
    hero = make_character(t.campaign, t.player, "Ysolde", sheet)
    (ysolde,) = services.add_participant(t.gm, encounter, character=hero)
    (garde,) = services.add_participant(t.gm, encounter, name="Garde", sheet={"npc": {"base_defence_die": 8}})
    services.start_encounter(t.gm, encounter)
    return t, encounter, ysolde, garde


def test_a_spell_declared_on_the_page_is_built_and_wounds(duel):
    t, encounter, ysolde, garde = duel
    client = Client()
    client.force_login(t.player)
    page = client.get(reverse("combat:detail", args=[encounter.pk])).content.decode()
    assert f'name="p{ysolde.pk}-spell__nature"' in page  # the builder's components are offered
    p = f"p{ysolde.pk}"
    response = client.post(
        reverse("combat:declare", args=[encounter.pk, ysolde.pk]),
        {
            f"{p}-action": "spell",
            f"{p}-timing": "action",
            f"{p}-target": garde.pk,
            f"{p}-score": "6",
            f"{p}-spell__mode": "spell",
            f"{p}-spell__magic_type": "arcane",
            f"{p}-spell__nature": "offensive",
            f"{p}-spell__power": "2",
            f"{p}-spell__severity": "serious",
            f"{p}-spell__range": "0",
            f"{p}-spell__area": "0",
            f"{p}-spell__duration": "0",
        },
    )
    body = response.content.decode()
    assert response.status_code == 302, [line for line in body.splitlines() if "error" in line or "alert" in line][:10]
    declaration = Declaration.objects.get(participant=ysolde)
    assert declaration.data["spell"]["nature"] == "offensive" and declaration.data["spell"]["power"] == 2
    services.reveal_declarations(t.gm, encounter, rng=SeededRandom(1))
    step = services.resolve_next_step(t.gm, encounter, rng=ScriptedRandom([1]))
    spell = step.detail["result"]["outcome"]["spell"]
    assert spell["nature"] == "offensive" and spell["effect"]["effective_severity"] == 2
    assert step.public["text"]["fr"] == "Le sort de Ysolde frappe Garde : blessure grave (moyenne)."
    garde.refresh_from_db()
    assert garde.state["wounds"][-1]["severity"] == "serious"
