"""Change requests on approved sheets, GM direct edits, history and the optimistic version check."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from characters import services
from characters.models import ChangeRequest, Character, LedgerEntry, SheetVersion
from characters.tests.conftest import client_for, form_data, make_character, valid_ambre_sheet

pytestmark = pytest.mark.django_db

WORDS = {"power": "mots_de_pouvoir", "level": 4, "via_marelle_brisee": False, "selections": ""}


@pytest.fixture
def character(table: Any) -> Character:
    c = make_character(table, sheet=valid_ambre_sheet(), status="approved")
    services.record_version(c, table.gm, "approved")
    return c


def _proposed(character: Character) -> dict[str, Any]:
    sheet = copy.deepcopy(character.sheet)
    sheet["powers"].append(dict(WORDS))
    return sheet


def _request(table: Any, character: Character, sheet: dict[str, Any], **extra: Any) -> Any:
    data = form_data(character.rule_system, sheet, None, character.version)
    data.update(extra)
    return client_for(table.player).post(f"/characters/{character.pk}/edit/", data)


def test_it_turns_a_player_edit_into_a_change_request_with_its_effects(table: Any, character: Character) -> None:
    response = _request(table, character, _proposed(character), reason="J'apprends les mots de pouvoir")
    change = ChangeRequest.objects.get(character=character)
    assert response.status_code == 302 and response["Location"] == f"/characters/changes/{change.pk}/"
    character.refresh_from_db()
    assert len(character.sheet["powers"]) == 1 and character.version == 1  # nothing applied yet
    assert change.status == "pending" and change.base_version == 1
    html = client_for(table.player).get(f"/characters/changes/{change.pk}/").content.decode()
    power = next(f for f in character.rule_system.sheet_fields() if f.path == "powers").item_fields[0]
    label = dict(power.choices)["mots_de_pouvoir"].fr
    assert "powers.1.power" in html and f"<ins>{label}</ins>" in html  # the diff, with the choice's label
    assert "<strong>-10 karma</strong>" in html  # ledger effect: 60 → 50 karma left
    assert "J&#x27;apprends les mots de pouvoir" in html
    # The other player does not see the request.
    assert client_for(table.player2).get(f"/characters/changes/{change.pk}/").status_code == 404


def test_it_refuses_an_invalid_change_request_with_field_errors(table: Any, character: Character) -> None:
    sheet = _proposed(character)
    sheet["powers"][1]["level"] = 1
    response = _request(table, character, sheet)
    assert response.status_code == 400
    assert 'id="e-f-powers-1-level"><li>' in response.content.decode()
    assert not ChangeRequest.objects.exists()


def test_it_applies_an_approved_change_with_its_ledger_entries(table: Any, character: Character) -> None:
    _request(table, character, _proposed(character))
    change = ChangeRequest.objects.get()
    client_for(table.player).post(f"/characters/changes/{change.pk}/comment/", {"body": "Merci de valider !"})
    response = client_for(table.cogm).post(f"/characters/changes/{change.pk}/approve/", {"comment": "D'accord."})
    assert response.status_code == 302
    character.refresh_from_db()
    change.refresh_from_db()
    assert character.sheet["powers"][1]["power"] == "mots_de_pouvoir" and character.version == 2
    assert change.status == "approved" and change.applied_version == 2 and change.decided_by == table.cogm
    entry = LedgerEntry.objects.get(character=character)
    assert (entry.amount, entry.currency, entry.kind, entry.data["change_request"]) == (
        -10,
        "karma",
        "purchase",
        change.pk,
    )
    assert SheetVersion.objects.filter(character=character, version=2).get().author == table.cogm
    assert [c.body for c in change.comments.all()] == ["Merci de valider !", "D'accord."]


def test_it_leaves_sheet_and_ledger_untouched_when_approval_fails(
    table: Any, character: Character, monkeypatch: Any
) -> None:
    _request(table, character, _proposed(character))
    change = ChangeRequest.objects.get()

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(services.changes, "append_entry", broken)
    with pytest.raises(RuntimeError):
        services.approve_change(table.gm, change)
    character.refresh_from_db()
    change.refresh_from_db()
    assert len(character.sheet["powers"]) == 1 and character.version == 1
    assert change.status == "pending"
    assert not LedgerEntry.objects.exists()
    assert SheetVersion.objects.filter(character=character).count() == 1


def test_it_refuses_to_apply_a_change_made_on_an_older_version(table: Any, character: Character) -> None:
    _request(table, character, _proposed(character))
    change = ChangeRequest.objects.get()
    # Meanwhile the GM edits the sheet directly.
    sheet = copy.deepcopy(character.sheet)
    sheet["background"] = "Réécrit par le MJ"
    data = form_data(character.rule_system, sheet, None, character.version)
    assert client_for(table.gm).post(f"/characters/{character.pk}/edit/", data).status_code == 302
    response = client_for(table.gm).post(f"/characters/changes/{change.pk}/approve/", follow=True)
    html = response.content.decode()
    assert "version 1" in html and "version 2" in html
    character.refresh_from_db()
    change.refresh_from_db()
    assert change.status == "pending" and len(character.sheet["powers"]) == 1
    assert character.sheet["background"] == "Réécrit par le MJ"
    assert (
        SheetVersion.objects.get(character=character, version=2).reason == "Modification du MJ"
        or SheetVersion.objects.get(character=character, version=2).author == table.gm
    )


def test_it_rejects_with_a_comment_and_lets_the_author_withdraw(table: Any, character: Character) -> None:
    _request(table, character, _proposed(character))
    change = ChangeRequest.objects.get()
    with pytest.raises(PermissionDenied):
        services.approve_change(table.player, change)
    with pytest.raises(PermissionDenied):
        services.withdraw_change(table.gm, change)
    client_for(table.gm).post(f"/characters/changes/{change.pk}/reject/", {"comment": ""})
    change.refresh_from_db()
    assert change.status == "pending"  # a rejection needs a reason
    client_for(table.gm).post(f"/characters/changes/{change.pk}/reject/", {"comment": "Trop tôt."})
    change.refresh_from_db()
    assert change.status == "rejected" and change.comments.get().body == "Trop tôt."
    character.refresh_from_db()
    assert len(character.sheet["powers"]) == 1
    _request(table, character, _proposed(character))
    second = ChangeRequest.objects.exclude(pk=change.pk).get()
    client_for(table.player).post(f"/characters/changes/{second.pk}/withdraw/")
    second.refresh_from_db()
    assert second.status == "withdrawn"


def test_it_does_not_silently_overwrite_concurrent_edits(table: Any) -> None:
    character = make_character(table, sheet=valid_ambre_sheet(), status="approved")
    system = character.rule_system
    first, second = copy.deepcopy(character.sheet), copy.deepcopy(character.sheet)
    first["background"] = "Version du MJ"
    second["background"] = "Version du co-MJ"
    opened = character.version
    response = client_for(table.gm).post(f"/characters/{character.pk}/edit/", form_data(system, first, None, opened))
    assert response.status_code == 302
    response = client_for(table.cogm).post(f"/characters/{character.pk}/edit/", form_data(system, second, None, opened))
    assert response.status_code == 409
    html = response.content.decode()
    assert "version 1" in html and "version 2" in html and "Version du co-MJ" in html  # the edit is kept on screen
    character.refresh_from_db()
    assert character.sheet["background"] == "Version du MJ" and character.version == 2
    with pytest.raises(services.VersionConflict):
        services.save_sheet(table.cogm, character, sheet=second, expected_version=opened)


def test_it_keeps_every_version_and_compares_two(table: Any, character: Character) -> None:
    sheet = copy.deepcopy(character.sheet)
    sheet["background"] = "Né à Ambre."
    services.save_sheet(table.gm, character, sheet=sheet, expected_version=1)
    html = client_for(table.player).get(f"/characters/{character.pk}/history/?a=1&b=2").content.decode()
    assert "Né à Ambre." in html and "background" in html
    assert client_for(table.player).get(f"/characters/{character.pk}/history/?a=1&b=9").status_code == 200
    assert client_for(table.spectator).get(f"/characters/{character.pk}/history/").status_code == 404


def test_it_records_gm_direct_edits_and_status_changes(table: Any, character: Character) -> None:
    client = client_for(table.gm)
    client.post(f"/characters/{character.pk}/status/", {"status": "dead"})
    character.refresh_from_db()
    assert character.status == "dead"
    last = SheetVersion.objects.filter(character=character).order_by("-version").first()
    assert last.author == table.gm and last.status == "dead"
    client.post(f"/characters/{character.pk}/status/", {"status": "draft"})
    character.refresh_from_db()
    assert character.status == "dead"


def test_the_sheet_page_notices_a_newer_version(table: Any, character: Character) -> None:
    client = client_for(table.player)
    assert "message" not in client.get(f"/characters/{character.pk}/notice/?v=1").content.decode()
    sheet = copy.deepcopy(character.sheet)
    sheet["background"] = "Nouveau"
    services.save_sheet(table.gm, character, sheet=sheet, expected_version=1)
    html = client.get(f"/characters/{character.pk}/notice/?v=1").content.decode()
    assert "version 2" in html
    assert client_for(table.player2).get(f"/characters/{character.pk}/notice/?v=1").status_code == 404


def test_it_names_the_author_and_commenters_by_their_display_name(table: Any, character: Character) -> None:
    profile = table.player.profile
    profile.display_name = "Iris la Rousse"
    profile.save()
    _request(table, character, _proposed(character), reason="Nouveaux mots")
    change = ChangeRequest.objects.get(character=character)
    client_for(table.player).post(f"/characters/changes/{change.pk}/comment/", {"body": "Merci !"})
    html = client_for(table.gm).get(f"/characters/changes/{change.pk}/").content.decode()
    assert html.count("Iris la Rousse") == 2  # the request's author line and the comment
    assert f"Par {table.player.username}," not in html
