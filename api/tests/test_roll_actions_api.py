"""API: lowering a die (Altaride), setting a difficulty after the roll (Clefs), GM aids.

The same service functions as the post page; what a user may not see is a 404.
"""

from __future__ import annotations

from typing import Any

import pytest

from api.tests.conftest import token_client
from campaigns import dice, services
from campaigns.models import Roll
from campaigns.tests.fairness import nonce_giving
from campaigns.tests.sheet_fairness import nonce_for
from characters import ledger
from characters.models import Character
from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def altaride(monkeypatch: Any) -> Any:
    table = make_table("altaride", prefix="apild")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="Le gué", body="La rivière gronde.")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.player,
        name="Ilse",
        system="altaride",
        status="approved",
        sheet={"talents": {"HAB": 12}},
    )
    ledger.append_entry(hero, "xp", 10, "gm_award", created_by=table.gm)
    request = {"sheet_test": {"test": "talent:HAB"}, "character_id": hero.pk}
    post = services.create_post(
        table.player,
        thread,
        body="Je saute.",
        roll_requests=[request],
        client_nonce=nonce_for(table.player, table.campaign, request, [14]),
    )
    return table, hero, post.rolls.get()


@pytest.fixture
def clefs(monkeypatch: Any) -> Any:
    table = make_table("clefs-de-l-aube", prefix="apind")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="La tour", body="Le vent siffle.")
    test = {"kind": "action", "aspect": 3, "means": 2, "skill_nc": 12, "nd_hidden": True}
    # A test typed in full (a hidden ND) is the GM's.
    nonce = nonce_giving(table.campaign, {"system_test": test}, [5])
    post = services.create_post(
        table.gm, thread, body="J'escalade.", roll_requests=[{"system_test": test}], client_nonce=nonce
    )
    return table, post.rolls.get()


def test_a_player_lowers_the_die_of_his_own_test(altaride: Any) -> None:
    table, hero, roll = altaride
    response = token_client(table.player).post(f"/api/v1/rolls/{roll.pk}/lower-die/", {"points": 3}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["sequence"] == roll.sequence + 1
    assert ledger.balances(hero)["xp"] == 7
    assert dice.verify_chain(table.campaign)[0] is True


def test_lowering_refuses_bad_input_and_other_users(altaride: Any) -> None:
    table, hero, roll = altaride
    count = Roll.objects.count()
    bad = token_client(table.player).post(f"/api/v1/rolls/{roll.pk}/lower-die/", {"points": 0}, format="json")
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "points"
    too_much = token_client(table.player).post(f"/api/v1/rolls/{roll.pk}/lower-die/", {"points": 11}, format="json")
    assert too_much.status_code == 400
    other = token_client(table.player2).post(f"/api/v1/rolls/{roll.pk}/lower-die/", {"points": 1}, format="json")
    assert other.status_code == 403
    outsider = token_client(table.outsider).post(f"/api/v1/rolls/{roll.pk}/lower-die/", {"points": 1}, format="json")
    assert outsider.status_code == 404
    assert Roll.objects.count() == count
    assert ledger.balances(hero)["xp"] == 10


def test_the_gm_sets_a_difficulty_after_the_roll(clefs: Any) -> None:
    table, roll = clefs
    refused = token_client(table.player).post(f"/api/v1/rolls/{roll.pk}/difficulty/", {"difficulty": 5}, format="json")
    assert refused.status_code == 403
    response = token_client(table.gm).post(f"/api/v1/rolls/{roll.pk}/difficulty/", {"difficulty": 5}, format="json")
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["resolution"]["draws"] == [5]
    assert data["resolution"]["outcome"]["nd"] == 5
    assert (
        token_client(table.outsider)
        .post(f"/api/v1/rolls/{roll.pk}/difficulty/", {"difficulty": 5}, format="json")
        .status_code
        == 404
    )


def test_gm_aids_are_for_the_gms_only(clefs: Any) -> None:
    table, _roll = clefs
    url = f"/api/v1/campaigns/{table.campaign.slug}/gm-aids/"
    response = token_client(table.gm).get(url)
    assert response.status_code == 200 and response.json()["combinations"]
    for who in (table.player, table.spectator, table.outsider):
        assert token_client(who).get(url).status_code == 404
