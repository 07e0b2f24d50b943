"""The Ambre attribute auction through the API: state, bid, pass, GM controls."""

from __future__ import annotations

from typing import Any

import pytest

from api.tests.conftest import assert_error, token_client
from characters import services
from systems.ambre.models import Auction

pytestmark = pytest.mark.django_db


@pytest.fixture
def auction(table: Any) -> dict[str, Any]:
    corwin = services.create_character(table.player, table.campaign, name="Corwin")
    eric = services.create_character(table.player2, table.campaign, name="Eric")
    opened = token_client(table.gm).post(
        f"/api/v1/campaigns/{table.campaign.pk}/auctions/", {"characters": [corwin.pk, eric.pk]}, format="json"
    )
    assert opened.status_code == 201, opened.json()
    return {"id": opened.json()["id"], "corwin": corwin, "eric": eric}


def test_it_opens_auctions_for_gms_only(table: Any) -> None:
    corwin = services.create_character(table.player, table.campaign, name="Corwin")
    url = f"/api/v1/campaigns/{table.campaign.pk}/auctions/"
    assert_error(
        token_client(table.player).post(url, {"characters": [corwin.pk]}, format="json"), 403, "permission_denied"
    )
    assert_error(token_client(table.outsider).post(url, {"characters": [corwin.pk]}, format="json"), 404, "not_found")
    assert_error(token_client(table.gm).post(url, {"characters": []}, format="json"), 400, "invalid", "characters")
    assert Auction.objects.count() == 0


def test_it_shows_the_auction_to_members_only(table: Any, auction: dict[str, Any]) -> None:
    url = f"/api/v1/auctions/{auction['id']}/"
    body = token_client(table.spectator).get(url).json()
    assert [c["name"] for c in body["characters"]] == ["Corwin", "Eric"] and body["status"] == "running"
    assert body["view"]
    assert_error(token_client(table.outsider).get(url), 404, "not_found")
    assert_error(token_client(table.moderator).get(url), 404, "not_found")


def test_it_lets_players_bid_only_for_their_own_characters(table: Any, auction: dict[str, Any]) -> None:
    act = f"/api/v1/auctions/{auction['id']}/act/"
    corwin, eric = auction["corwin"], auction["eric"]
    before = Auction.objects.get(pk=auction["id"]).state
    bid = {"character": corwin.pk, "type": "bid", "amount": 5}
    assert_error(token_client(table.player2).post(act, bid, format="json"), 403, "permission_denied")
    assert_error(token_client(table.spectator).post(act, bid, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(act, bid, format="json"), 404, "not_found")
    assert_error(token_client(table.player).post(act, {**bid, "type": "steal"}, format="json"), 400, "invalid", "type")
    assert_error(
        token_client(table.player).post(act, {**bid, "character": 999999}, format="json"), 400, "invalid", "character"
    )
    assert Auction.objects.get(pk=auction["id"]).state == before
    placed = token_client(table.player).post(act, bid, format="json")
    assert placed.status_code == 200, placed.json()
    state = Auction.objects.get(pk=auction["id"]).state
    assert state["seq"] > before.get("seq", 0)
    passed = token_client(table.player2).post(act, {"character": eric.pk, "type": "pass"}, format="json")
    assert passed.status_code == 200, passed.json()


def test_it_lets_only_gms_pause_the_auction(table: Any, auction: dict[str, Any]) -> None:
    control = f"/api/v1/auctions/{auction['id']}/control/"
    assert_error(token_client(table.player).post(control, {"action": "pause"}, format="json"), 403, "permission_denied")
    assert token_client(table.cogm).post(control, {"action": "pause"}, format="json").json()["status"] == "paused"
    act = f"/api/v1/auctions/{auction['id']}/act/"
    bid = {"character": auction["corwin"].pk, "type": "bid", "amount": 5}
    assert_error(token_client(table.player).post(act, bid, format="json"), 400, "invalid")
    assert_error(
        token_client(table.gm).post(control, {"action": "timeout", "seconds": -1}, format="json"),
        400,
        "invalid",
        "seconds",
    )
