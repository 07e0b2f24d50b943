"""Who sees and changes a character (DESIGN.md rows: full sheet, public part, ledger)."""

from __future__ import annotations

from typing import Any

import pytest

from characters.access import can_see_full_sheet, get_character_for_user
from characters.models import Character
from characters.tests.conftest import client_for, make_character, valid_ambre_sheet

pytestmark = pytest.mark.django_db

FULL = ("player", "gm", "cogm")
PUBLIC_ONLY = ("player2", "spectator")
UNSEEN = ("outsider", "moderator_private")


@pytest.fixture
def character(table: Any) -> Character:
    c = make_character(table, sheet=valid_ambre_sheet(), status="approved")
    c.private_background = "Secret d'Oberon"
    c.public_description = "Un prince en exil."
    c.save()
    return c


@pytest.mark.parametrize("role", FULL)
def test_it_shows_the_full_sheet_to_owner_gm_and_cogm(table: Any, character: Character, role: str) -> None:
    user = getattr(table, role)
    assert can_see_full_sheet(user, character)
    html = client_for(user).get(f"/characters/{character.pk}/").content.decode()
    assert "Secret d&#x27;Oberon" in html and "Un prince en exil." in html
    assert 'data-key="life"' in html  # derived values
    for url in ("history/", "print/", "export.json", "edit/", "profile/"):
        response = client_for(user).get(f"/characters/{character.pk}/{url}")
        assert response.status_code == 200, url


@pytest.mark.parametrize("role", PUBLIC_ONLY)
def test_it_shows_only_the_public_part_to_other_members(table: Any, character: Character, role: str) -> None:
    user = getattr(table, role)
    client = client_for(user)
    html = client.get(f"/characters/{character.pk}/").content.decode()
    assert "Un prince en exil." in html and character.name in html
    assert "Secret d&#x27;Oberon" not in html and 'data-key="life"' not in html and "atouts" not in html.lower()
    for url in ("history/", "print/", "export.json", "edit/", "profile/", "wizard/"):
        assert client.get(f"/characters/{character.pk}/{url}").status_code == 404, url
    assert client.post(f"/characters/{character.pk}/validate/", {}).status_code == 404


def test_a_member_reads_a_public_description_once(table: Any, character: Character) -> None:
    """Short: under the name only. Long: its beginning under the name is cut, the whole text below."""
    client = client_for(table.player2)
    html = client.get(f"/characters/{character.pk}/").content.decode()
    assert html.count("Un prince en exil.") == 1
    character.public_description = "Un prince en exil, " + "qui attend son heure sur les routes d'Ombre. " * 5
    character.save()
    html = client.get(f"/characters/{character.pk}/").content.decode()
    assert html.count("qui attend son heure") == 5  # the whole text once, nothing repeated in the hero
    assert 'class="sheet-concept"' not in html


def test_the_owner_still_reads_a_long_public_description_under_the_name(table: Any) -> None:
    """A sheet whose concept is blank (or a system without one): the hero shows the description's beginning."""
    hero = make_character(table, table.player, name="Maëlis", status="approved")
    assert not hero.sheet.get("background")
    hero.public_description = "Une exploratrice " + "des îles d'Altaride. " * 12
    hero.save()
    html = client_for(table.player).get(f"/characters/{hero.pk}/").content.decode()
    assert 'class="sheet-concept">Une exploratrice des îles' in html


@pytest.mark.parametrize("role", ["outsider", "moderator", None])
def test_it_hides_a_private_campaigns_characters_from_outsiders(table: Any, character: Character, role: Any) -> None:
    user = getattr(table, role) if role else None
    client = client_for(user)
    status = client.get(f"/characters/{character.pk}/").status_code
    if role == "moderator":
        assert status == 200  # moderators see private campaigns' public parts (DESIGN: private campaign row)
        assert client.get(f"/characters/{character.pk}/export.json").status_code == 404
    else:
        assert status == 404
        assert client.get(f"/characters/campaign/{table.campaign.pk}/").status_code == 404


def test_it_hides_npcs_from_players(table: Any) -> None:
    npc = make_character(table, table.gm, name="Brand", is_npc=True, status="approved")
    assert client_for(table.player).get(f"/characters/{npc.pk}/").status_code == 404
    assert client_for(table.cogm).get(f"/characters/{npc.pk}/").status_code == 200
    roster = client_for(table.player).get(f"/characters/campaign/{table.campaign.pk}/").content.decode()
    assert "Brand" not in roster
    assert "Brand" in client_for(table.gm).get(f"/characters/campaign/{table.campaign.pk}/").content.decode()


@pytest.mark.parametrize("role", ["player2", "spectator", "outsider"])
def test_it_refuses_writes_from_others_and_changes_nothing(table: Any, role: str) -> None:
    character = make_character(table, sheet=valid_ambre_sheet())
    user = getattr(table, role)
    client = client_for(user)
    before = (character.version, character.sheet, character.status, character.name)
    data = {"s:name": "Usurpateur", "version": character.version, "go": "stay"}
    assert client.post(f"/characters/{character.pk}/wizard/identity/", data).status_code == 404
    assert client.post(f"/characters/{character.pk}/edit/", data).status_code == 404
    assert client.post(f"/characters/{character.pk}/submit/", {"version": character.version}).status_code == 404
    assert client.post(f"/characters/{character.pk}/approve/").status_code == 404
    assert client.post(f"/characters/{character.pk}/status/", {"status": "dead"}).status_code == 404
    assert client.post(f"/characters/{character.pk}/profile/", {"name": "X", "version": 1}).status_code == 404
    character.refresh_from_db()
    assert (character.version, character.sheet, character.status, character.name) == before


def test_it_lets_only_players_and_gms_create_characters(table: Any) -> None:
    url = f"/characters/campaign/{table.campaign.pk}/new/"
    response = client_for(table.spectator).post(url, {"name": "Spectre"})
    assert response.status_code == 200 and not Character.objects.filter(name="Spectre").exists()
    assert client_for(table.outsider).post(url, {"name": "Intrus"}).status_code == 404
    client_for(table.player).post(url, {"name": "Joueur", "is_npc": "on"})
    assert Character.objects.get(name="Joueur").is_npc is False  # players cannot make NPCs
    client_for(table.gm).post(url, {"name": "Caine", "is_npc": "on"})
    assert Character.objects.get(name="Caine").is_npc is True


def test_it_keeps_an_approved_sheet_from_direct_player_edits(table: Any, character: Character) -> None:
    client = client_for(table.player)
    response = client.post(
        f"/characters/{character.pk}/wizard/identity/", {"s:name": "Autre", "version": character.version}
    )
    assert response.status_code == 302  # redirected to the sheet: wizards are for drafts
    character.refresh_from_db()
    assert character.name == "Corwin" and character.version == 1


def test_access_helper_answers_404_for_unknown_and_unseen(table: Any, character: Character) -> None:
    from django.http import Http404

    with pytest.raises(Http404):
        get_character_for_user(table.player2, character.pk, write=True)
    with pytest.raises(Http404):
        get_character_for_user(table.player, 999999)
    with pytest.raises(Http404):
        get_character_for_user(table.player, "abc")
    assert get_character_for_user(table.cogm, character.pk, write=True) == character


def test_it_lists_my_characters_and_what_awaits_the_gms_review(table: Any) -> None:
    mine = make_character(table, name="Deirdre", status="submitted")
    other = make_character(table, table.player2, name="Gérard")
    html = client_for(table.player).get("/characters/").content.decode()
    assert "Deirdre" in html and "Gérard" not in html and "En attente de votre relecture" not in html
    html = client_for(table.gm).get("/characters/").content.decode()
    assert f"/characters/{mine.pk}/" in html and f"/characters/{other.pk}/" not in html
    assert client_for(None).get("/characters/").status_code == 302


def test_it_keeps_gm_only_fields_out_of_the_players_hands(table: Any) -> None:
    from characters.tests.conftest import form_data

    character = make_character(table, sheet=valid_ambre_sheet())
    system = character.rule_system
    sheet = dict(character.sheet, modifiers=dict(character.sheet["modifiers"], life_max=500), creation_points=300)
    data = form_data(system, sheet, None, character.version)
    page = client_for(table.player).get(f"/characters/{character.pk}/edit/").content.decode()
    assert 'name="s:modifiers.life_max"' not in page and 'name="s:creation_points"' not in page
    client_for(table.player).post(f"/characters/{character.pk}/edit/", data)
    character.refresh_from_db()
    assert character.sheet["modifiers"]["life_max"] == 0 and character.sheet["creation_points"] is None
    data["version"] = str(character.version)
    assert client_for(table.gm).post(f"/characters/{character.pk}/edit/", data).status_code == 302
    character.refresh_from_db()
    assert character.sheet["modifiers"]["life_max"] == 500 and character.sheet["creation_points"] == 300
