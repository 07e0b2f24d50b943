"""Award screen, recap, balances and purchases through HTTP, with permissions."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from characters import ledger
from characters.models import LedgerEntry
from progression.models import PurchaseRequest, RecalculationRun, SessionAward
from progression.tests.conftest import make_character, make_roll, make_session

pytestmark = pytest.mark.django_db


def _post_awards(client: Any, session: Any, character: Any, extra: str, **more: str) -> Any:
    data = {
        "action": "confirm",
        f"row-{character.pk}": "1",
        f"present-{character.pk}": "on",
        f"extra-{character.pk}": extra,
        f"extra_note-{character.pk}": "Bravo",
        **more,
    }
    return client.post(reverse("progression:session_awards", kwargs={"session_id": session.pk}), data)


def test_it_shows_the_award_screen_to_gms_only(table: Any, client: Any) -> None:
    make_character(table, table.player, "Alice")
    session = make_session(table)
    url = reverse("progression:session_awards", kwargs={"session_id": session.pk})
    for name in ("gm", "cogm"):
        client.force_login(getattr(table, name))
        response = client.get(url)
        assert response.status_code == 200
        assert "Alice" in response.content.decode()
    for name in ("player", "player2", "spectator", "outsider", "moderator"):
        client.force_login(getattr(table, name))
        assert client.get(url).status_code == 404, name
    client.logout()
    assert client.get(url).status_code == 302


def test_it_does_not_let_a_player_award_himself(
    table: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice = make_character(table, table.player, "Alice")
    session = make_session(table)
    client.force_login(table.player)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post_awards(client, session, alice, "50")
    assert response.status_code == 404
    assert SessionAward.objects.count() == 0
    assert LedgerEntry.objects.count() == 0 and RecalculationRun.objects.count() == 0
    # Through the service too: a visible but forbidden write.
    from django.core.exceptions import PermissionDenied

    from progression import services

    entries = {alice.pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": 50}}
    with pytest.raises(PermissionDenied):
        services.confirm_session_awards(table.player, session, entries=entries)
    from django.http import Http404

    with pytest.raises(Http404):
        services.confirm_session_awards(table.outsider, session, entries=entries)
    assert SessionAward.objects.count() == 0


def test_it_confirms_awards_from_the_form(table: Any, client: Any, django_capture_on_commit_callbacks: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    session = make_session(table)
    client.force_login(table.gm)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post_awards(client, session, alice, "12")
    assert response.status_code == 302
    assert ledger.balances(alice)["karma"] == 12
    page = client.get(reverse("progression:session_awards", kwargs={"session_id": session.pk})).content.decode()
    assert "Rouvrir pour corriger" in page
    recap = client.get(reverse("progression:session_recap", kwargs={"session_id": session.pk})).content.decode()
    assert "Bravo" in recap and "+12" in recap


def test_it_shows_french_field_errors_and_saves_nothing(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    session = make_session(table)
    client.force_login(table.gm)
    response = _post_awards(client, session, alice, "douze")
    assert response.status_code == 400
    assert "Entrez un nombre entier" in response.content.decode()
    assert SessionAward.objects.count() == 0 and RecalculationRun.objects.count() == 0


def test_it_refuses_awards_for_an_open_session(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    session = make_session(table, closed=False)
    client.force_login(table.gm)
    response = _post_awards(client, session, alice, "3")
    assert response.status_code == 400
    assert SessionAward.objects.count() == 0


def test_it_shows_the_progress_fragment(table: Any, client: Any) -> None:
    session = make_session(table)
    RecalculationRun.objects.create(campaign=table.campaign, session=session, status="running", total=4, done=1)
    url = reverse("progression:session_progress", kwargs={"session_id": session.pk})
    client.force_login(table.gm)
    body = client.get(url).content.decode()
    assert 'aria-valuenow="25"' in body and "every 1s" in body
    client.force_login(table.player)
    assert client.get(url).status_code == 404


def test_it_hides_other_characters_and_gm_flags_in_the_recap(
    table: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    sheet = {"condition": {"life_damage": 0, "energy_spent": 0, "wounds": {"mortal": 1}}}
    alice = make_character(table, table.player, "Alice", sheet=sheet)
    make_character(table, table.player2, "Bruno")
    ledger.append_entry(alice, "karma", -3, "purchase")
    session = make_session(table)
    from progression import services

    with django_capture_on_commit_callbacks(execute=True):
        services.start_session_review(session)
    url = reverse("progression:session_recap", kwargs={"session_id": session.pk})
    client.force_login(table.gm)
    gm_page = client.get(url).content.decode()
    assert "Alice" in gm_page and "Bruno" in gm_page and "Blessure mortelle" in gm_page
    client.force_login(table.player)
    page = client.get(url).content.decode()
    assert "Alice" in page and "Bruno" not in page and "Blessure mortelle" not in page
    client.force_login(table.outsider)
    assert client.get(url).status_code == 404


def test_it_shows_balance_history_and_affordable_to_owner_and_gms(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    ledger.append_entry(alice, "karma", 40, "gm_award", note="Belle séance")
    url = reverse("progression:character", kwargs={"character_id": alice.pk})
    for user in (table.player, table.gm, table.cogm):
        client.force_login(user)
        response = client.get(url)
        assert response.status_code == 200
        assert "Belle séance" in response.content.decode()
    page = response.content.decode()
    assert 'data-currency="karma">40<' in page
    assert "?kind=power" in page  # a power within 40 karma is offered
    for user in (table.player2, table.spectator, table.outsider):
        client.force_login(user)
        assert client.get(url).status_code == 404


def test_it_requests_and_approves_a_purchase(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    ledger.append_entry(alice, "karma", 40, "gm_award")
    client.force_login(table.player)
    url = reverse("progression:purchase_create", kwargs={"character_id": alice.pk})
    response = client.post(url, {"kind": "attribute", "p-attribute": "phy", "p-points": "5", "p-allocation.force": "2"})
    assert response.status_code == 400
    assert "Répartissez exactement" in response.content.decode()
    assert PurchaseRequest.objects.count() == 0
    response = client.post(url, {"kind": "attribute", "p-attribute": "phy", "p-points": "5", "p-allocation.force": "5"})
    assert response.status_code == 302
    purchase = PurchaseRequest.objects.get()
    decide = reverse("progression:purchase_decide", kwargs={"request_id": purchase.pk})
    assert client.post(decide, {"decision": "approve"}).status_code == 403  # the owner cannot approve
    purchase.refresh_from_db()
    assert purchase.status == "pending" and ledger.balances(alice)["karma"] == 40
    client.force_login(table.gm)
    assert client.post(decide, {"decision": "approve", "comment": "OK"}).status_code == 302
    purchase.refresh_from_db()
    alice.refresh_from_db()
    assert purchase.status == "approved"
    assert ledger.balances(alice)["karma"] == 35
    assert alice.sheet["attributes"]["phy"] == 5


def test_it_counts_natural_ones_on_the_award_screen(altaride_table: Any, client: Any) -> None:
    table = altaride_table
    hero = make_character(table, table.player, "Héros")
    session = make_session(table)
    make_roll(table, hero, session, ["natural_1"])
    client.force_login(table.gm)
    page = client.get(reverse("progression:session_awards", kwargs={"session_id": session.pk})).content.decode()
    assert (
        f'name="amount-{hero.pk}-system_award:natural_ones" id="amount-{hero.pk}-system_award:natural_ones" value="1"'
        in page
    )
