"""The Ambre attribute auction: GM controls, player events, results to sheets and the karma ledger."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from characters import services
from characters.models import Character, LedgerEntry
from characters.tests.conftest import client_for, make_character, valid_ambre_sheet
from live.models import LiveEvent
from systems.ambre import services as auction_services
from systems.ambre.models import Auction

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(table: Any) -> dict[str, Any]:
    corwin = make_character(table, table.player, name="Corwin", sheet=valid_ambre_sheet("Corwin"))
    eric = make_character(table, table.player2, name="Eric", sheet=valid_ambre_sheet("Eric"))
    response = client_for(table.gm).post(
        f"/characters/campaign/{table.campaign.pk}/auction/new/",
        {"characters": [corwin.pk, eric.pk], "mode": "open"},
    )
    auction = Auction.objects.get(campaign=table.campaign)
    assert response.status_code == 302 and response["Location"] == f"/characters/auctions/{auction.pk}/"
    return {"corwin": corwin, "eric": eric, "auction": auction}


def _act(client: Any, auction: Auction, character: Character, **data: Any) -> Any:
    return client.post(
        f"/characters/auctions/{auction.pk}/act/", {"character": character.pk, **data}, HTTP_HX_REQUEST="true"
    )


def test_it_runs_an_attribute_and_writes_results_to_sheets_and_ledger(table: Any, cast: dict[str, Any]) -> None:
    auction, corwin, eric = cast["auction"], cast["corwin"], cast["eric"]
    p1, p2 = client_for(table.player), client_for(table.player2)
    html = _act(p1, auction, corwin, type="bid", attribute="psy", amount="10").content.decode()
    assert "<strong>10</strong> — Corwin" in html
    html = _act(p2, auction, eric, type="bid", attribute="psy", amount="10").content.decode()
    assert "L&#x27;enchère doit dépasser 10." in html  # the engine's message, in French
    _act(p2, auction, eric, type="bid", attribute="psy", amount="15")
    assert LiveEvent.objects.filter(channel=f"auction:{auction.pk}", kind="auction-updated").count() >= 3
    _act(p1, auction, corwin, type="pass", attribute="psy")
    auction.refresh_from_db()
    assert (
        auction.state["lots"]["psy"]["status"] == "closed"
        and auction.state["attributes"][auction.state["current"]] == "phy"
    )
    corwin.refresh_from_db()
    eric.refresh_from_db()
    assert corwin.sheet["attributes"]["psy"] == 10 and eric.sheet["attributes"]["psy"] == 15
    assert eric.sheet["ladder"]["psy"] == {"public_position": 1, "public_points": 15}
    assert corwin.sheet["ladder"]["psy"] == {"public_position": 2, "public_points": 10}
    assert [(e.amount, e.kind) for e in LedgerEntry.objects.filter(character=corwin)] == [(-10, "auction_bid")]
    assert [(e.amount, e.kind) for e in LedgerEntry.objects.filter(character=eric)] == [(-15, "auction_bid")]
    # Downgrade the next attribute: +25 karma for a human rank.
    _act(p1, auction, corwin, type="downgrade", attribute="phy", rank="human")
    _act(p2, auction, eric, type="pass", attribute="phy")
    corwin.refresh_from_db()
    assert corwin.sheet["attributes"]["phy"] == -25
    assert sorted(e.amount for e in LedgerEntry.objects.filter(character=corwin)) == [-10, 25]
    # The roster shows the public ladder; the public sheet shows the rank.
    roster = client_for(table.spectator).get(f"/characters/campaign/{table.campaign.pk}/").content.decode()
    ladder = roster.split("sf-ladder")[1] if "sf-ladder" in roster else roster.split("Classement public")[1]
    assert ladder.index("Eric") < ladder.index("Corwin")
    public = client_for(table.spectator).get(f"/characters/{eric.pk}/").content.decode()
    assert "#1" in public


def test_it_lets_players_act_only_for_their_own_characters(table: Any, cast: dict[str, Any]) -> None:
    auction, corwin = cast["auction"], cast["corwin"]
    html = _act(client_for(table.player2), auction, corwin, type="bid", attribute="psy", amount="50").content.decode()
    assert "vos propres personnages" in html or "your own characters" in html
    assert _act(client_for(table.outsider), auction, corwin, type="bid", amount="5").status_code == 404
    with pytest.raises(PermissionDenied):
        auction_services.auction_act(table.gm, auction, character=corwin, event={"type": "bid", "amount": 5})
    with pytest.raises(PermissionDenied):
        auction_services.auction_gm(table.player, auction, action="close")
    auction.refresh_from_db()
    assert auction.state["lots"]["psy"]["bids"] == {}
    # Spectators watch; outsiders do not see the auction.
    assert client_for(table.spectator).get(f"/characters/auctions/{auction.pk}/").status_code == 200
    assert client_for(table.outsider).get(f"/characters/auctions/{auction.pk}/").status_code == 404


def test_it_pauses_resumes_times_out_and_closes(table: Any, cast: dict[str, Any]) -> None:
    auction, corwin, eric = cast["auction"], cast["corwin"], cast["eric"]
    gm = client_for(table.gm)
    gm.post(f"/characters/auctions/{auction.pk}/control/", {"action": "pause"})
    auction.refresh_from_db()
    assert auction.status == "paused"
    html = _act(client_for(table.player), auction, corwin, type="bid", amount="5").content.decode()
    assert "pause" in html
    gm.post(f"/characters/auctions/{auction.pk}/control/", {"action": "resume"})
    gm.post(f"/characters/auctions/{auction.pk}/control/", {"action": "timeout", "seconds": "60"})
    auction.refresh_from_db()
    assert auction.status == "running" and auction.timeout_seconds == 60 and auction.deadline is not None
    _act(client_for(table.player2), auction, eric, type="bid", amount="7")
    Auction.objects.filter(pk=auction.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    client_for(table.spectator).get(f"/characters/auctions/{auction.pk}/panel/")
    auction.refresh_from_db()
    assert auction.state["lots"]["psy"]["status"] == "closed"
    assert auction.state["log"][-1]["type"] == "close"
    gm.post(f"/characters/auctions/{auction.pk}/control/", {"action": "close", "attribute": "phy"})
    gm.post(f"/characters/auctions/{auction.pk}/control/", {"action": "close", "attribute": "end"})
    gm.post(f"/characters/auctions/{auction.pk}/control/", {"action": "close", "attribute": "cbt"})
    auction.refresh_from_db()
    assert auction.status == "closed" and auction.results_applied
    eric.refresh_from_db()
    assert eric.sheet["attributes"] == {"psy": 7, "phy": 0, "end": 0, "cbt": 0}
    with pytest.raises(ValidationError):
        auction_services.auction_gm(table.gm, auction, action="timeout", seconds=-3)


def test_it_keeps_secret_ranks_for_their_owner_and_the_gms(table: Any, cast: dict[str, Any]) -> None:
    auction, corwin, eric = cast["auction"], cast["corwin"], cast["eric"]
    p1, p2 = client_for(table.player), client_for(table.player2)
    _act(p1, auction, corwin, type="bid", attribute="psy", amount="10")
    _act(p2, auction, eric, type="bid", attribute="psy", amount="15")
    _act(p1, auction, corwin, type="pass", attribute="psy")
    # After closing, Corwin privately buys up Psyche past Eric: his rank becomes secret (L18).
    _act(p1, auction, corwin, type="buy_up", attribute="psy", amount="8")
    corwin.refresh_from_db()
    assert corwin.sheet["attributes"]["psy"] == 18 and corwin.sheet["ladder"]["psy"]["public_position"] == 2
    assert sum(e.amount for e in LedgerEntry.objects.filter(character=corwin)) == -18
    mine = p1.get(f"/characters/auctions/{auction.pk}/").content.decode()
    assert "rang secret" in mine or "secret rank" in mine
    theirs = p2.get(f"/characters/auctions/{auction.pk}/").content.decode()
    assert "secret" not in theirs.replace("secrets", "")
    assert "18" not in theirs.split("auction-lots")[1].split("</table>")[0]
    gm_page = client_for(table.gm).get(f"/characters/auctions/{auction.pk}/").content.decode()
    assert ("rangs secrets" in gm_page or "secret ranks" in gm_page) and "Corwin" in gm_page
    # The public ladder still shows Eric first until the GM records a comparison.
    from rules.ambre import auction as rules_auction

    assert rules_auction.ladders(auction.refresh_from_db() or Auction.objects.get(pk=auction.pk).state)["psy"][
        "public"
    ] == [str(eric.pk), str(corwin.pk)]


def test_approval_after_the_auction_does_not_charge_attributes_twice(table: Any, cast: dict[str, Any]) -> None:
    auction, corwin = cast["auction"], cast["corwin"]
    _act(client_for(table.player), auction, corwin, type="bid", attribute="psy", amount="10")
    for attr in ("psy", "phy", "end", "cbt"):
        auction_services.auction_gm(table.gm, Auction.objects.get(pk=auction.pk), action="close", attribute=attr)
    corwin.refresh_from_db()
    sheet = dict(corwin.sheet)
    sheet["characteristics"] = dict(sheet["characteristics"], mental=19)  # 35 points for Psyche
    services.save_sheet(table.player, corwin, sheet=sheet, expected_version=corwin.version)
    corwin.refresh_from_db()
    services.submit_character(table.player, corwin)
    services.approve_character(table.gm, Character.objects.get(pk=corwin.pk))
    total = sum(e.amount for e in LedgerEntry.objects.filter(character=corwin))
    assert total == corwin.rule_system.creation_budget(corwin.sheet).remaining == 100 - 10 - 40
    # Attributes are locked in the player's wizard once the auction gave them.
    page = client_for(table.player).get(f"/characters/{corwin.pk}/edit/").content.decode()
    assert 'name="s:attributes.psy"' not in page


def test_only_gms_open_an_auction_and_only_in_ambre(table: Any) -> None:
    character = make_character(table)
    url = f"/characters/campaign/{table.campaign.pk}/auction/new/"
    assert client_for(table.player).post(url, {"characters": [character.pk]}).status_code == 404
    assert not Auction.objects.exists()
    from conftest import make_table

    sms = make_table("sms", prefix="s")
    with pytest.raises(ValidationError):
        auction_services.open_auction(sms.gm, sms.campaign, characters=[])
    auction_services.open_auction(table.gm, table.campaign, characters=[character])
    with pytest.raises(ValidationError):
        auction_services.open_auction(table.gm, table.campaign, characters=[character])


def test_live_channels_follow_the_visibility_rules(table: Any, cast: dict[str, Any]) -> None:
    from live.registry import authorize

    auction, corwin = cast["auction"], cast["corwin"]
    assert authorize("auction", table.spectator, auction.pk) is not None
    assert authorize("auction", table.outsider, auction.pk) is None
    assert authorize("auction", table.gm, auction.pk).is_gm
    assert authorize("character", table.player, corwin.pk) is not None
    assert authorize("character", table.player2, corwin.pk) is None
    assert authorize("character", table.cogm, corwin.pk).is_gm


def test_a_gm_comparison_makes_a_secret_rank_public(table: Any, cast: dict[str, Any]) -> None:
    auction, corwin, eric = cast["auction"], cast["corwin"], cast["eric"]
    p1, p2 = client_for(table.player), client_for(table.player2)
    _act(p1, auction, corwin, type="bid", attribute="psy", amount="10")
    _act(p2, auction, eric, type="bid", attribute="psy", amount="15")
    _act(p1, auction, corwin, type="pass", attribute="psy")
    _act(p1, auction, corwin, type="buy_up", attribute="psy", amount="8")
    client_for(table.gm).post(
        f"/characters/auctions/{auction.pk}/control/",
        {"action": "comparison", "attribute": "psy", "players": [str(corwin.pk), str(eric.pk)]},
    )
    auction.refresh_from_db()
    assert auction.state["public"]["psy"] == [str(corwin.pk), str(eric.pk)]
    corwin.refresh_from_db()
    assert corwin.sheet["ladder"]["psy"] == {"public_position": 1, "public_points": 18}
    assert "rang secret" not in p1.get(f"/characters/auctions/{auction.pk}/").content.decode()


def test_blind_mode_hides_the_other_bids(table: Any) -> None:
    corwin = make_character(table, table.player, name="Corwin", sheet=valid_ambre_sheet("Corwin"))
    eric = make_character(table, table.player2, name="Eric", sheet=valid_ambre_sheet("Eric"))
    auction = auction_services.open_auction(table.gm, table.campaign, characters=[corwin, eric], mode="blind")
    p1, p2 = client_for(table.player), client_for(table.player2)
    _act(p1, auction, corwin, type="bid", attribute="end", amount="13")
    html = p2.get(f"/characters/auctions/{auction.pk}/").content.decode()
    assert 'id="bid-attribute"' in html  # every attribute is open at once
    assert "13" not in html.split("auction-lots")[1].split("</table>")[0]
    assert "13" in p1.get(f"/characters/auctions/{auction.pk}/").content.decode()
    assert "13" in client_for(table.gm).get(f"/characters/auctions/{auction.pk}/").content.decode()


def test_the_expiry_task_closes_only_a_passed_deadline(table: Any, cast: dict[str, Any]) -> None:
    from systems.ambre.tasks import expire_auction

    auction = cast["auction"]
    auction_services.auction_gm(table.gm, auction, action="timeout", seconds=60)
    assert expire_auction(auction.pk) is False  # too early: nothing happens
    Auction.objects.filter(pk=auction.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert expire_auction(auction.pk) is True
    auction.refresh_from_db()
    assert auction.state["lots"]["psy"]["status"] == "closed"
    assert expire_auction(auction.pk) is False  # the next attribute has a fresh deadline
    assert expire_auction(999999) is False


def test_an_overtaken_player_sees_nothing_change_when_another_buys_up(table: Any, cast: dict[str, Any]) -> None:
    """Issue #19 item 1 (L18): page, API, sheet and sheet history of the overtaken player stay as they were."""
    from characters.models import SheetVersion

    auction, corwin, eric = cast["auction"], cast["corwin"], cast["eric"]
    p1, p2 = client_for(table.player), client_for(table.player2)
    _act(p1, auction, corwin, type="bid", attribute="psy", amount="10")
    _act(p2, auction, eric, type="bid", attribute="psy", amount="15")
    _act(p1, auction, corwin, type="pass", attribute="psy")

    def seen_by_eric() -> tuple[Any, ...]:
        eric.refresh_from_db()
        page = p2.get(f"/characters/auctions/{auction.pk}/").content.decode()
        mine = re.sub(r'name="(csrfmiddlewaretoken|once)" value="[^"]*"', "", page.split("auction-me")[1])
        api = p2.get(f"/api/v1/auctions/{auction.pk}/?as={eric.pk}").json()["view"]["me"]
        return (eric.version, eric.sheet, SheetVersion.objects.filter(character=eric).count(), mine, api)

    before = seen_by_eric()
    assert before[4]["ranks"]["psy"]["label"] == "dominant" and "true_position" not in str(before[4])
    assert "#1" in before[3]
    _act(p1, auction, corwin, type="buy_up", attribute="psy", amount="8")
    assert seen_by_eric() == before
    # The GM sees the true ladder.
    gm_api = client_for(table.gm).get(f"/api/v1/auctions/{auction.pk}/").json()["view"]
    assert gm_api["results"]["players"][str(eric.pk)]["ranks"]["psy"]["true_position"] == 2
