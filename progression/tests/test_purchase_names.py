"""Purchases name the thing bought, never its index or a raw object (#23)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

import rules
from characters.ledger import append_entry
from characters.sheetform import purchase_summary
from combat.tests.conftest import ambre_sheet, make_character
from conftest import make_table
from progression import services

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_ambre_artefact_purchase_shows_its_name_on_the_change_and_the_progression_pages(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    table = make_table("ambre")
    hero = make_character(table.campaign, table.player, "Cendre", ambre_sheet("Cendre"))
    append_entry(hero, "karma", 20, "gm_award", note="Karma")
    item = {"name": "Arc long elfique", "kind": "artefact", "qualities": {"degats": 1}}
    purchase = services.request_purchase(table.player, hero, request={"kind": "artefact", "item": item})
    for user in (table.gm, table.player):
        change = _client(user).get(f"/characters/changes/{purchase.change_request_id}/").content.decode()
        section = change[change.index('id="purchase"') :][:600]
        assert "Arc long elfique" in section and "{&#x27;name&#x27;" not in section and "qualities" not in section
        page = _client(user).get(f"/progression/characters/{hero.pk}/").content.decode()
        assert "Artefact : Arc long elfique" in page


def test_a_raised_sms_module_is_named_not_indexed() -> None:
    system = rules.get_system("sms")
    sheet = system.default_sheet()
    sheet["modules"] = [{"name": "Escrime", "rank": 2}, {"name": "Pistage", "rank": 1}]
    fields = system.purchase_fields()["raise_module"]
    pairs = purchase_summary(fields, {"kind": "raise_module", "module": 1, "scenario": "Les loups"}, sheet)
    values = [v for _label, v in pairs]
    assert "Pistage" in values and 1 not in values


def test_an_altaride_talent_purchase_shows_the_talent_s_name_and_drops_internal_lists() -> None:
    system = rules.get_system("altaride")
    fields = system.purchase_fields()["talent"]
    request = {"kind": "talent", "talent": "VIG", "already_bought": [{"k": 1}], "gm_confirmed": False}
    assert [v for _label, v in purchase_summary(fields, request, system.default_sheet())] == ["Vigueur"]


def test_an_altaride_skill_purchase_line_names_the_skill_from_the_catalogue() -> None:
    system = rules.get_system("altaride")
    settings = system.starter_settings()
    sheet = system.default_sheet()
    sheet["creation_complete"] = True
    result = system.purchase(sheet, {"kind": "skill", "skill": "mains_nues"}, {"xp": 100}, settings)
    assert [e.note.fr for e in result.entries] == ["Compétence Mains Nues 0 → 1"]


def test_an_ambre_artefact_is_bought_with_labelled_inputs_never_json(settings: Any) -> None:
    """The item of an artefact purchase is described with the sheet's artefact fields (name, kind,
    qualities, powers, a few transfer rows): no JSON box; bad input is refused at its field, nothing saved."""
    from progression.models import PurchaseRequest

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    table = make_table("ambre")
    hero = make_character(table.campaign, table.player, "Cendre", ambre_sheet("Cendre"))
    append_entry(hero, "karma", 40, "gm_award", note="Karma")
    url = f"/progression/characters/{hero.pk}/"
    page = _client(table.player).get(url + "?kind=artefact").content.decode()
    assert 'name="p-item.name"' in page and 'name="p-item.qualities.degats"' in page
    assert 'name="p-item.transfers.0.kind"' in page and 'name="p-item"' not in page
    assert "<textarea" not in page.split('name="kind" value="artefact"')[1].split("</form>")[0].replace(
        'name="p-item.description"', ""
    ).replace("<textarea", "", 1)  # the description is the only text area
    post = {
        "kind": "artefact",
        "p-item.name": "Arc long elfique",
        "p-item.kind": "artefact",
        "p-item.qualities.degats": "double",
        "p-item.transfers.0.kind": "",
        "p-item.quantity": "unique",
    }
    base = {k: v for k, v in post.items()}
    response = _client(table.player).post(f"/progression/characters/{hero.pk}/purchases/", base)
    assert response.status_code == 302, re.findall(r"errorlist[^>]*>(.*?)</ul>", response.content.decode(), re.S)
    bought = PurchaseRequest.objects.get(character=hero)
    item = bought.request["item"]
    assert item["name"] == "Arc long elfique" and item["qualities"]["degats"] == "double" and item["transfers"] == []
    # Bad input: no name. A field message, and nothing more saved.
    response = _client(table.player).post(f"/progression/characters/{hero.pk}/purchases/", {**base, "p-item.name": ""})
    assert response.status_code == 400
    assert PurchaseRequest.objects.filter(character=hero).count() == 1
