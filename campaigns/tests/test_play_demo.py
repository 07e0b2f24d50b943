"""The demo characters: every line of "What you can roll" builds and resolves, and the sheet page shows it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from campaigns import play
from characters.models import Character
from conftest import make_user
from rules.base import RulesError, SeededRandom

pytestmark = pytest.mark.django_db


def test_every_demo_character_s_sheet_tests_build_and_resolve(django_capture_on_commit_callbacks: Any) -> None:
    from campaigns import demo as campaigns_demo
    from characters import demo as characters_demo

    users = {name: make_user(name) for name in ("admin", "mj", "joueuse", "joueur")}
    context: dict[str, Any] = {"users": users}
    with django_capture_on_commit_callbacks(execute=True):
        campaigns_demo.populate(context)
        characters_demo.populate(context)
    checked = 0
    for character in Character.objects.select_related("campaign"):
        system = character.rule_system
        settings = system.settings(character.campaign.system_settings)
        for test in play.sheet_tests_of(character):
            if test.impossible is not None:
                continue
            declared = {f.path: 3 for f in test.declared if f.path in ("base_cost", "b_value")}
            try:
                built = system.build_test(character.current_sheet(), test.key, declared, settings, gm=True)
            except RulesError as exc:  # a declared input the GM must give (an offensive spell's defence)
                assert exc.errors[0].code in ("gm_sets_defence",), (character.name, test.key, exc)
                continue
            system.resolve(built.request, SeededRandom(3), settings)
            system.odds(built.request, settings)
            checked += 1
    assert checked > 20
    owner_character = Character.objects.filter(owner=users["joueuse"], status="approved").first()
    client = Client()
    client.force_login(users["joueuse"])
    html = client.get(f"/characters/{owner_character.pk}/").content.decode()
    assert "Ce que vous pouvez lancer" in html
