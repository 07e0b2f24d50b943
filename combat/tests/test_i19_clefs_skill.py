"""A Clefs declaration naming a skill the character does not have is refused (issue #19 item 9)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from combat import services
from combat.models import Declaration
from combat.tests.conftest import make_character, make_thread


def test_an_unknown_skill_is_refused_with_a_field_message_and_nothing_saved(db, settings):
    from conftest import make_table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = make_table("clefs-de-l-aube", prefix="cl")
    sheet = {
        "aspects": {"PH": 12, "ME": 10, "MY": 10},
        "means": {"PU": 2, "RE": -2, "MA": 0, "PR": 0, "EX": 0, "PE": 0},
        "skills": [{"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": 12}],
    }
    hero = make_character(t.campaign, t.player, "Aubin", sheet)
    encounter = services.create_encounter(t.gm, make_thread(t.campaign, t.gm), title="Au gué")
    (pc,) = services.add_participant(t.gm, encounter, character=hero, side="allies")
    (npc,) = services.add_participant(t.gm, encounter, name="Brigand", side="opponents")
    services.start_encounter(t.gm, encounter)
    with pytest.raises(ValidationError) as exc:
        services.declare_action(t.player, pc, data={"action": "simple", "skill_name": "Hache"}, target=npc)
    assert "skill_name" in exc.value.message_dict
    assert "Hache" in exc.value.message_dict["skill_name"][0]
    assert not Declaration.objects.filter(participant=pc).exists()
    services.declare_action(t.player, pc, data={"action": "simple", "skill_name": "Épée"}, target=npc)
    assert Declaration.objects.get(participant=pc).data["skill_name"] == "Épée"


def test_a_quick_clefs_npc_follows_npc_rules_not_pc_creation(db, settings):
    """Issue #19 item 6: no ``{"creation": {"skill_package": "free"}}`` needed for a quick NPC."""
    from conftest import make_table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = make_table("clefs-de-l-aube", prefix="cn")
    encounter = services.create_encounter(t.gm, make_thread(t.campaign, t.gm), title="Embuscade")
    sheet = {
        "aspects": {"PH": 14, "ME": 8, "MY": 6},
        "skills": [{"name": "Hache", "aspect": "PH", "default_means": "PU", "nc": 15}],
    }
    (orc,) = services.add_participant(t.gm, encounter, name="Orque", sheet=sheet, side="opponents")
    assert orc.sheet["aspects"]["PH"] == 14 and orc.is_npc
    with pytest.raises(ValidationError):  # types and ranges still hold
        services.add_participant(t.gm, encounter, name="Orque", sheet={"aspects": {"PH": "fort"}}, side="opponents")


def test_only_the_gm_marks_a_roll_untrained(db, settings):
    """``skill_untrained`` is a GM input (audience "gm"): a player's is refused, the GM's accepted (G13)."""
    from conftest import make_table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = make_table("clefs-de-l-aube", prefix="cu")
    sheet = {"aspects": {"PH": 12, "ME": 10, "MY": 10}, "skills": []}
    hero = make_character(t.campaign, t.player, "Aubin", sheet)
    encounter = services.create_encounter(t.gm, make_thread(t.campaign, t.gm), title="Au gué")
    (pc,) = services.add_participant(t.gm, encounter, character=hero, side="allies")
    services.start_encounter(t.gm, encounter)
    data = {"action": "simple", "skill_name": "Hache", "skill_untrained": True}
    with pytest.raises(ValidationError) as exc:
        services.declare_action(t.player, pc, data=data)
    assert "skill_untrained" in exc.value.message_dict
    assert not Declaration.objects.filter(participant=pc).exists()
    services.declare_action(t.gm, pc, data=data)
    assert Declaration.objects.get(participant=pc).data["skill_untrained"] is True
    from django.test import Client
    from django.urls import reverse

    pages = {}
    for who in (t.player, t.gm):
        client = Client()
        client.force_login(who)
        pages[who] = client.get(reverse("combat:detail", args=[encounter.pk])).content.decode()
    assert "skill_untrained" not in pages[t.player] and "skill_untrained" in pages[t.gm]
