"""A purchase goes through the character change request flow (issue 10 item 5, issue 8 item 3)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from campaigns import services as campaign_services
from characters import ledger
from characters import services as character_services
from characters.models import ChangeRequest, Character, LedgerEntry
from progression import services
from progression.tests.conftest import make_character

pytestmark = pytest.mark.django_db

TALENT = {"kind": "talent", "talent": "HAB"}


def _hero(table: Any, xp: int = 200) -> Character:
    hero = make_character(table, table.player, "Héros")
    ledger.append_entry(hero, "xp", xp, "gm_award")
    return hero


def _purchase_entries(hero: Character) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(character=hero, kind=LedgerEntry.Kind.PURCHASE))


def test_it_turns_a_purchase_request_into_a_change_request(altaride_table: Any) -> None:
    hero = _hero(altaride_table)
    before = hero.current_sheet()["talents"]["HAB"]
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    change = purchase.change_request
    assert change is not None
    assert change.status == ChangeRequest.Status.PENDING
    assert change.purchase == TALENT
    assert change.author == altaride_table.player
    assert change.sheet["talents"]["HAB"] == before + 1
    hero.refresh_from_db()
    assert hero.sheet["talents"]["HAB"] == before  # nothing applied before the GM decides
    assert ledger.balances(hero)["xp"] == 200
    assert purchase.preview["cost"] == 30


def test_it_applies_sheet_and_ledger_on_gm_approval(altaride_table: Any) -> None:
    hero = _hero(altaride_table)
    session = campaign_services.open_session(altaride_table.gm, altaride_table.campaign)
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    version = hero.version
    character_services.approve_change(altaride_table.gm, purchase.change_request, comment="Bien joué")
    hero.refresh_from_db()
    purchase.refresh_from_db()
    change = purchase.change_request
    assert hero.sheet["talents"]["HAB"] == 6
    assert hero.version == version + 1
    assert ledger.balances(hero)["xp"] == 170
    entries = _purchase_entries(hero)
    assert len(entries) == 1
    assert entries[0].amount == -30 and entries[0].session_id == session.pk
    assert entries[0].data["change_request"] == change.pk and entries[0].data["purchase_request"] == purchase.pk
    assert (change.status, change.applied_version) == ("approved", hero.version)
    assert (purchase.status, purchase.decided_by, purchase.comment) == ("approved", altaride_table.gm, "Bien joué")
    # The per-session limit counts what the change request wrote.
    with pytest.raises(ValidationError):
        services.request_purchase(altaride_table.player, hero, request=dict(TALENT))


def test_it_writes_nothing_when_the_approval_fails_midway(altaride_table: Any, monkeypatch: Any) -> None:
    hero = _hero(altaride_table)
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    version = hero.version

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("injected failure")

    monkeypatch.setattr(character_services.changes, "publish_sheet", boom)
    with pytest.raises(RuntimeError):
        character_services.approve_change(altaride_table.gm, purchase.change_request)
    hero.refresh_from_db()
    purchase.refresh_from_db()
    assert hero.version == version and hero.sheet["talents"]["HAB"] == 5
    assert _purchase_entries(hero) == [] and ledger.balances(hero)["xp"] == 200
    assert purchase.status == "pending" and purchase.change_request.status == "pending"


def test_it_refuses_a_purchase_no_longer_affordable_at_approval(altaride_table: Any) -> None:
    hero = _hero(altaride_table, xp=40)
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    ledger.append_entry(hero, "xp", -20, "correction")  # 20 left, the talent costs 30
    with pytest.raises(ValidationError) as info:
        character_services.approve_change(altaride_table.gm, purchase.change_request)
    text = " ".join(info.value.messages)
    assert "ne peut plus être appliqué" in text or "no longer be applied" in text
    hero.refresh_from_db()
    purchase.refresh_from_db()
    assert hero.sheet["talents"]["HAB"] == 5 and _purchase_entries(hero) == []
    assert ledger.balances(hero)["xp"] == 20
    assert purchase.status == "pending" and purchase.change_request.status == "pending"


def test_it_reprices_on_the_current_sheet_at_approval(altaride_table: Any) -> None:
    hero = _hero(altaride_table, xp=500)
    first = services.request_purchase(altaride_table.player, hero, request={"kind": "talent", "talent": "PER"})
    second = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    character_services.approve_change(altaride_table.gm, first.change_request)
    character_services.approve_change(altaride_table.gm, second.change_request)  # no version conflict: re-priced
    hero.refresh_from_db()
    assert hero.sheet["talents"]["PER"] == 6 and hero.sheet["talents"]["HAB"] == 6
    assert len(_purchase_entries(hero)) == 2


def test_a_player_cannot_approve_a_purchase(altaride_table: Any, client: Any) -> None:
    hero = _hero(altaride_table)
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    with pytest.raises(PermissionDenied):
        character_services.approve_change(altaride_table.player, purchase.change_request)
    with pytest.raises(PermissionDenied):
        services.decide_purchase(altaride_table.player, purchase, approve=True)
    client.force_login(altaride_table.player)
    url = reverse("characters:change_action", kwargs={"pk": purchase.change_request_id, "action": "approve"})
    assert client.post(url).status_code == 302
    purchase.refresh_from_db()
    assert purchase.status == "pending" and purchase.change_request.status == "pending"
    assert _purchase_entries(hero) == [] and ledger.balances(hero)["xp"] == 200


def test_rejecting_the_change_request_rejects_the_purchase(altaride_table: Any) -> None:
    hero = _hero(altaride_table)
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    character_services.reject_change(altaride_table.gm, purchase.change_request, comment="Pas maintenant")
    purchase.refresh_from_db()
    assert (purchase.status, purchase.comment) == ("rejected", "Pas maintenant")
    assert _purchase_entries(hero) == []


def test_the_pages_show_the_purchase_and_link_to_the_change_request(altaride_table: Any, client: Any) -> None:
    hero = _hero(altaride_table)
    purchase = services.request_purchase(altaride_table.player, hero, request=dict(TALENT))
    change_url = reverse("characters:change", kwargs={"pk": purchase.change_request_id})
    client.force_login(altaride_table.player)
    page = client.get(reverse("progression:character", kwargs={"character_id": hero.pk})).content.decode()
    assert f'href="{change_url}"' in page
    client.force_login(altaride_table.gm)
    page = client.get(change_url).content.decode()
    assert 'id="purchase"' in page and "Talent" in page
    assert "-30 xp" in page  # the ledger entry it will write
    client.force_login(altaride_table.player2)
    assert client.get(change_url).status_code == 404
