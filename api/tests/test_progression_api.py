"""Ledger, balances, session awards and purchases through the API."""

from __future__ import annotations

from typing import Any

import pytest

from api.tests.conftest import assert_error, token_client
from campaigns import services as campaign_services
from characters import services as character_services
from characters.ledger import append_entry
from progression.models import PurchaseRequest

pytestmark = pytest.mark.django_db


@pytest.fixture
def hero(table: Any) -> Any:
    character = character_services.create_character(table.player, table.campaign, name="Corwin")
    append_entry(character, "karma", 100, "creation_budget", note="Budget")
    append_entry(character, "karma", -20, "purchase", note="Achat")
    return character


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("player", 200),
        ("gm", 200),
        ("cogm", 200),
        ("player2", 404),
        ("spectator", 404),
        ("outsider", 404),
        ("moderator", 404),
    ],
)
def test_it_shows_ledger_and_balances_to_owner_and_gms(table: Any, hero: Any, role: str, status: int) -> None:
    api = token_client(table.users()[role])
    ledger = api.get(f"/api/v1/characters/{hero.pk}/ledger/")
    balances = api.get(f"/api/v1/characters/{hero.pk}/balances/")
    assert ledger.status_code == status and balances.status_code == status
    if status == 200:
        assert [e["amount"] for e in ledger.json()["results"]] == [-20, 100]
        assert balances.json()["balances"]["karma"] == 80


def test_it_keeps_the_award_sheet_for_gms(table: Any, hero: Any) -> None:
    session = campaign_services.open_session(table.gm, table.campaign, title="S1")
    url = f"/api/v1/sessions/{session.pk}/awards/"
    assert_error(token_client(table.player).get(url), 404, "not_found")
    assert_error(token_client(table.outsider).get(url), 404, "not_found")
    body = assert_error(token_client(table.gm).post(url, {"entries": {}}, format="json"), 400, "invalid")
    assert body["errors"][0]["field"] == "session"  # close the session first
    assert token_client(table.gm).get(url).json()["session"] == session.pk
    assert_error(token_client(table.gm).post(url, {"entries": {"abc": {}}}, format="json"), 400, "invalid")


def test_it_refuses_purchases_for_drafts_and_others(table: Any, hero: Any) -> None:
    url = f"/api/v1/characters/{hero.pk}/purchases/"
    assert_error(token_client(table.player2).post(url, {"request": {"kind": "x"}}, format="json"), 404, "not_found")
    assert_error(token_client(table.player).post(url, {"request": {"kind": "x"}}, format="json"), 400, "invalid")
    assert_error(token_client(table.player).post(url, {"request": "x"}, format="json"), 400, "invalid", "request")
    assert PurchaseRequest.objects.count() == 0
    assert token_client(table.player).get(url).json()["count"] == 0


def test_it_shows_a_session_recap_to_each_his_own(
    table: Any, hero: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from characters.models import Character

    Character.objects.filter(pk=hero.pk).update(status="approved")
    session = campaign_services.open_session(table.gm, table.campaign, title="S1")
    with django_capture_on_commit_callbacks(execute=True):
        campaign_services.close_session(table.gm, session)
    url = f"/api/v1/sessions/{session.pk}/recap/"
    assert_error(token_client(table.outsider).get(url), 404, "not_found")
    gm_view = token_client(table.gm).get(url).json()
    mine = token_client(table.player).get(url).json()
    other = token_client(table.player2).get(url).json()
    assert gm_view["runs"] and mine["runs"] == [] and other["runs"] == []
    gm_characters = {r["character"]["id"] for r in gm_view["results"]}
    assert {r["character"]["id"] for r in mine["results"]} <= {hero.pk}
    assert other["results"] == [] and other["awards"] == []
    assert hero.pk in gm_characters


def test_it_gives_ledger_notes_in_the_readers_language(table: Any, hero: Any) -> None:
    append_entry(
        hero, "karma", 3, "gm_award", note="Belle scène", data={"note_i18n": {"fr": "Belle scène", "en": "Fine scene"}}
    )
    api = token_client(table.player)
    notes = [e["note"] for e in api.get(f"/api/v1/characters/{hero.pk}/ledger/").json()["results"]]
    assert notes == ["Belle scène", "Achat", "Budget"]
    table.player.profile.language = "en"
    table.player.profile.save()
    english = [e["note"] for e in api.get(f"/api/v1/characters/{hero.pk}/ledger/").json()["results"]]
    assert english[0] == "Fine scene" and english[1:] == ["Achat", "Budget"]  # no English given: stored note


def test_a_purchase_through_the_api_is_decided_on_its_change_request() -> None:
    from characters import ledger
    from characters import services as character_services
    from characters.models import ChangeRequest
    from conftest import make_table
    from progression.tests.conftest import make_character

    table = make_table("altaride", prefix="apipur")
    hero = make_character(table, table.player, "Héros")
    ledger.append_entry(hero, "xp", 200, "gm_award")
    url = f"/api/v1/characters/{hero.pk}/purchases/"
    response = token_client(table.player).post(url, {"request": {"kind": "talent", "talent": "HAB"}}, format="json")
    assert response.status_code == 201, response.content
    change = ChangeRequest.objects.get(pk=response.json()["change_request"])
    assert change.purchase == {"kind": "talent", "talent": "HAB"}
    assert ledger.balances(hero)["xp"] == 200  # nothing spent before the GM decides
    character_services.approve_change(table.gm, change, comment="")
    assert ledger.balances(hero)["xp"] == 170
