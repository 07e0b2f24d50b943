"""Characters through the API: visibility rows, ETag/If-Match, review,
change requests, export/import, history (DESIGN.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from api.tests.conftest import assert_error, token_client, valid_ambre_sheet
from characters import services
from characters.models import ChangeRequest, Character, SheetVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def hero(table: Any) -> Character:
    return services.create_character(table.player, table.campaign, name="Corwin", public_description="Un prince.")


@pytest.fixture
def npc(table: Any) -> Character:
    return services.create_character(table.gm, table.campaign, name="Brand", is_npc=True)


@pytest.mark.parametrize(
    ("role", "full"), [("player", True), ("gm", True), ("cogm", True), ("player2", False), ("spectator", False)]
)
def test_it_shows_the_full_sheet_to_owner_and_gms_only(table: Any, hero: Character, role: str, full: bool) -> None:
    response = token_client(table.users()[role]).get(f"/api/v1/characters/{hero.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Corwin" and body["public_description"] == "Un prince." and body["full"] is full
    if full:
        assert body["sheet"]["attributes"] == {"psy": 0, "phy": 0, "end": 0, "cbt": 0}
        assert body["version"] == 1 and response["ETag"] == f'"{hero.pk}.1"'
        assert body["derived"] is not None and body["budget"] is not None
    else:
        assert body["sheet"] is None and body["private_background"] is None and body["version"] is None
        assert "ETag" not in response


def test_it_hides_characters_from_outsiders_and_npcs_from_players(table: Any, hero: Character, npc: Character) -> None:
    for client in (APIClient(), token_client(table.outsider)):
        assert_error(client.get(f"/api/v1/characters/{hero.pk}/"), 404, "not_found")
        assert_error(client.get(f"/api/v1/campaigns/{table.campaign.pk}/characters/"), 404, "not_found")
    assert_error(token_client(table.player).get(f"/api/v1/characters/{npc.pk}/"), 404, "not_found")
    names = [
        c["name"]
        for c in token_client(table.player2).get(f"/api/v1/campaigns/{table.campaign.pk}/characters/").json()["results"]
    ]
    assert names == ["Corwin"]
    names = [
        c["name"]
        for c in token_client(table.cogm).get(f"/api/v1/campaigns/{table.campaign.pk}/characters/").json()["results"]
    ]
    assert names == ["Brand", "Corwin"]
    for path in ("history", "export", "change-requests", "ledger", "balances", "purchases"):
        assert_error(token_client(table.player2).get(f"/api/v1/characters/{hero.pk}/{path}/"), 404, "not_found")


def test_it_saves_a_sheet_with_if_match_and_refuses_a_stale_one(table: Any, hero: Character) -> None:
    api = token_client(table.player)
    got = api.get(f"/api/v1/characters/{hero.pk}/")
    sheet = copy.deepcopy(got.json()["sheet"])
    sheet["background"] = "Exilé."
    saved = api.put(f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet}, format="json", HTTP_IF_MATCH=got["ETag"])
    assert saved.status_code == 200, saved.json()
    assert saved.json()["version"] == 2 and saved["ETag"] == f'"{hero.pk}.2"'
    # The GM saw version 1: their save is refused with 412 and changes nothing.
    stale = copy.deepcopy(sheet)
    stale["background"] = "Écrasé ?"
    response = token_client(table.gm).put(
        f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": stale}, format="json", HTTP_IF_MATCH=got["ETag"]
    )
    assert_error(response, 412, "precondition_failed")
    hero.refresh_from_db()
    assert hero.version == 2 and hero.sheet["background"] == "Exilé."
    # The body's version works too; no version at all is refused (428).
    assert_error(
        api.put(f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet}, format="json"), 428, "precondition_required"
    )
    assert (
        api.put(f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet, "version": 2}, format="json").status_code
        == 200
    )
    assert_error(
        api.put(f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet}, format="json", HTTP_IF_MATCH='"999.3"'),
        412,
        "precondition_failed",
    )
    assert SheetVersion.objects.filter(character=hero).count() == 3


def test_it_returns_rule_errors_per_field_and_saves_nothing(table: Any, hero: Character) -> None:
    api = token_client(table.player)
    sheet = copy.deepcopy(hero.sheet)
    sheet["attributes"]["psy"] = "beaucoup"
    response = api.put(f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet, "version": 1}, format="json")
    body = assert_error(response, 400, "invalid", "attributes.psy")
    assert body["errors"][0]["code"] == "invalid_int" and body["errors"][0]["message"] == "Entrez un nombre entier."
    assert_error(
        api.put(f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": [], "version": 1}, format="json"),
        400,
        "invalid",
        "sheet",
    )
    hero.refresh_from_db()
    assert hero.version == 1 and hero.sheet["attributes"]["psy"] == 0


@pytest.mark.parametrize(("role", "status"), [("player2", 404), ("spectator", 404), ("outsider", 404)])
def test_it_refuses_sheet_writes_from_others(table: Any, hero: Character, role: str, status: int) -> None:
    response = token_client(table.users()[role]).put(
        f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": hero.sheet, "version": 1}, format="json"
    )
    assert response.status_code == status
    hero.refresh_from_db()
    assert hero.version == 1


def test_it_edits_the_profile_with_a_version(table: Any, hero: Character) -> None:
    api = token_client(table.player)
    url = f"/api/v1/characters/{hero.pk}/"
    assert_error(api.patch(url, {"private_background": "Secret"}, format="json"), 428, "precondition_required")
    assert_error(api.patch(url, {"name": "", "version": 1}, format="json"), 400, "invalid", "name")
    response = api.patch(url, {"private_background": "Secret", "version": 1}, format="json")
    assert response.status_code == 200 and response.json()["private_background"] == "Secret"
    assert token_client(table.player2).get(url).json()["private_background"] is None


def test_it_creates_characters_for_players_and_npcs_for_gms(table: Any) -> None:
    url = f"/api/v1/campaigns/{table.campaign.pk}/characters/"
    created = token_client(table.player).post(url, {"name": "Fiona"}, format="json")
    assert created.status_code == 201 and created.json()["status"] == "draft" and created.json()["full"]
    assert_error(
        token_client(table.player).post(url, {"name": "PNJ", "is_npc": True}, format="json"), 403, "permission_denied"
    )
    assert_error(token_client(table.spectator).post(url, {"name": "X"}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(url, {"name": "X"}, format="json"), 404, "not_found")
    assert_error(token_client(table.player).post(url, {"name": ""}, format="json"), 400, "invalid", "name")
    assert token_client(table.gm).post(url, {"name": "Oberon", "is_npc": True}, format="json").status_code == 201
    assert list(Character.objects.order_by("name").values_list("name", flat=True)) == ["Fiona", "Oberon"]


def test_it_runs_the_review_and_refuses_an_invalid_submission(table: Any, hero: Character) -> None:
    body = assert_error(token_client(table.player).post(f"/api/v1/characters/{hero.pk}/submit/"), 400, "invalid")
    assert body["errors"]  # the default sheet breaks the creation rules: errors per field
    hero.refresh_from_db()
    assert hero.status == "draft"
    assert_error(token_client(table.player2).post(f"/api/v1/characters/{hero.pk}/approve/"), 404, "not_found")
    assert_error(token_client(table.player).post(f"/api/v1/characters/{hero.pk}/approve/"), 403, "permission_denied")
    assert_error(
        token_client(table.gm).post(f"/api/v1/characters/{hero.pk}/status/", {"status": "lost"}, format="json"),
        400,
        "invalid",
        "status",
    )


def test_it_exports_and_imports_a_character(table: Any, hero: Character) -> None:
    exported = token_client(table.player).get(f"/api/v1/characters/{hero.pk}/export/")
    assert exported.status_code == 200 and exported.json()["format"] == "tablee-character"
    url = f"/api/v1/campaigns/{table.campaign.pk}/characters/import/"
    imported = token_client(table.player2).post(url, {"data": exported.json()}, format="json")
    assert imported.status_code == 201, imported.json()
    assert imported.json()["name"] == "Corwin" and imported.json()["owner"]["username"] == "player2"
    assert_error(
        token_client(table.player2).post(url, {"data": {"format": "other"}}, format="json"), 400, "invalid", "data"
    )
    assert_error(token_client(table.outsider).post(url, {"data": exported.json()}, format="json"), 404, "not_found")
    assert Character.objects.filter(name="Corwin").count() == 2


def test_it_lists_the_history_for_owner_and_gms(table: Any, hero: Character) -> None:
    history = token_client(table.gm).get(f"/api/v1/characters/{hero.pk}/history/").json()
    assert history["count"] == 1 and history["results"][0]["version"] == 1


def test_it_runs_a_change_request_on_an_approved_sheet(table: Any, hero: Character) -> None:
    Character.objects.filter(pk=hero.pk).update(status="approved", sheet=valid_ambre_sheet())
    hero.refresh_from_db()
    sheet = copy.deepcopy(hero.sheet)
    sheet["background"] = "Revenu d'Avalon."
    url = f"/api/v1/characters/{hero.pk}/change-requests/"
    assert_error(token_client(table.player2).post(url, {"sheet": sheet, "version": 1}, format="json"), 404, "not_found")
    assert_error(token_client(table.player).post(url, {"sheet": sheet}, format="json"), 428, "precondition_required")
    assert_error(
        token_client(table.player).post(url, {"sheet": sheet, "version": 7}, format="json"), 412, "precondition_failed"
    )
    created = token_client(table.player).post(url, {"sheet": sheet, "version": 1, "reason": "histoire"}, format="json")
    assert created.status_code == 201, created.json()
    change_id = created.json()["id"]
    # The player cannot edit the approved sheet directly.
    assert_error(
        token_client(table.player).put(
            f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet, "version": 1}, format="json"
        ),
        403,
        "permission_denied",
    )
    assert_error(
        token_client(table.player).post(f"/api/v1/change-requests/{change_id}/approve/"), 403, "permission_denied"
    )
    assert_error(
        token_client(table.gm).post(f"/api/v1/change-requests/{change_id}/reject/", {"comment": ""}, format="json"),
        400,
        "invalid",
        "comment",
    )
    commented = token_client(table.gm).post(
        f"/api/v1/change-requests/{change_id}/comments/", {"body": "OK ?"}, format="json"
    )
    assert [c["body"] for c in commented.json()["comments"]] == ["OK ?"]
    approved = token_client(table.cogm).post(f"/api/v1/change-requests/{change_id}/approve/")
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    hero.refresh_from_db()
    assert hero.sheet["background"] == "Revenu d'Avalon." and hero.version == 2
    assert ChangeRequest.objects.get(pk=change_id).applied_version == 2


def test_it_keeps_gm_fields_and_undeclared_keys_out_of_a_players_hands(table: Any, hero: Character) -> None:
    sheet = copy.deepcopy(hero.sheet)
    sheet["creation_points"] = 500  # "Creation points (GM)": the GM's to set
    sheet["modifiers"]["life_max"] = 99  # "GM modifier"
    sheet["secret_record"] = {"forged": True}  # not a declared field
    sheet["background"] = "Exilé."
    response = token_client(table.player).put(
        f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": sheet, "version": 1}, format="json"
    )
    assert response.status_code == 200, response.json()
    hero.refresh_from_db()
    assert hero.sheet["background"] == "Exilé."
    assert hero.sheet["creation_points"] is None and hero.sheet["modifiers"]["life_max"] == 0
    assert "secret_record" not in hero.sheet
    # The GM may set them (a recorded edit).
    response = token_client(table.gm).put(
        f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": {"creation_points": 120}, "version": 2}, format="json"
    )
    assert response.status_code == 200, response.json()
    hero.refresh_from_db()
    assert hero.sheet["creation_points"] == 120 and hero.sheet["background"] == "Exilé."
