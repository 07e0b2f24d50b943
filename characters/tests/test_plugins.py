"""The system plug-in registry (:mod:`characters.plugins`): the generic apps reach a plug-in only through it."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import reverse

import rules
from characters import plugins
from characters.plugins import Panel, SheetPart, SystemPlugin
from characters.tests.conftest import client_for, make_character
from conftest import make_table

pytestmark = pytest.mark.django_db


def test_it_installs_every_plugin_package_and_registers_them_by_slug() -> None:
    installed = [app for app in settings.INSTALLED_APPS if app.startswith("systems.")]
    assert installed == ["systems.ambre", "systems.clefs", "systems.sms"]
    registered = {p.system for p in plugins.all_plugins()}
    assert registered == {"ambre", "clefs-de-l-aube", "sms"} and registered <= set(rules.SYSTEM_MODULES)
    assert plugins.plugin_for("altaride") is None  # a system needs no plug-in


def test_it_refuses_a_second_plugin_for_a_system() -> None:
    with pytest.raises(ValueError):
        plugins.register(SystemPlugin(system="ambre"))


def test_it_keeps_the_plugins_urls_and_api_routes_where_they_were() -> None:
    assert reverse("ambre:auction", args=[3]) == "/characters/auctions/3/"
    assert reverse("ambre:auction_open", args=["5"]) == "/characters/campaign/5/auction/new/"
    assert reverse("clefs:creation_roll", args=[3]) == "/characters/3/clefs-roll/"
    assert reverse("sms:template", args=[3]) == "/characters/3/template/"
    assert reverse("api:auction", args=[3]) == "/api/v1/auctions/3/"
    assert reverse("api:character-clefs-roll", args=[3]) == "/api/v1/characters/3/clefs-roll/"
    assert reverse("api:character-template", args=[3]) == "/api/v1/characters/3/template/"


def test_a_fifth_system_plugs_in_without_touching_the_generic_apps(monkeypatch: Any) -> None:
    """A plug-in registered for a system reaches the wizard, the roster and the read model."""
    table = make_table("altaride", prefix="p5")
    character = make_character(table, table.player, name="Maëlis")
    seen: list[str] = []

    def wizard(request: Any, character: Any, step: str, sheet: dict[str, Any]) -> list[Panel]:
        seen.append(step)
        return [Panel("characters/_notice.html")]

    def parts(character: Any, derived: Any) -> list[SheetPart]:
        return [SheetPart("open", {"x": 1}), SheetPart("hidden", {"y": 2}, full_only=True)]

    monkeypatch.setitem(
        plugins._plugins, "altaride", SystemPlugin(system="altaride", wizard_panels=wizard, sheet_parts=parts)
    )
    request = RequestFactory().get("/")
    request.user = table.player
    assert plugins.wizard_panels(request, character, "identity", {}) == [Panel("characters/_notice.html")]
    assert seen == ["identity"]
    owner = client_for(table.player).get(f"/api/v1/characters/{character.pk}/").json()
    other = client_for(table.player2).get(f"/api/v1/characters/{character.pk}/").json()
    assert owner["parts"] == {"open": {"x": 1}, "hidden": {"y": 2}}
    assert other["parts"] == {"open": {"x": 1}}  # full-only parts never reach the public part
