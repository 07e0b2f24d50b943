"""Altaride: spending experience to lower the die of one's own test (L217, spec A13), from the post
(:mod:`characters.roll_spending`, :mod:`characters.roll_views`)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse
from django.utils import translation

from campaigns import dice, services
from campaigns.models import Roll
from campaigns.tests.sheet_fairness import nonce_for
from characters import ledger
from characters.models import Character, LedgerEntry
from characters.roll_spending import lower_roll_die
from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_cache() -> Any:
    """Posting is rate-limited through the cache: start every test clean (in French, as the messages)."""
    cache.clear()
    with translation.override("fr"):
        yield
    cache.clear()


@pytest.fixture
def scene(monkeypatch: Any) -> Any:
    """An Altaride table; the player's character (10 XP) failed a test under 12 with a 14."""
    table = make_table("altaride", prefix="ld")
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
    request = {"sheet_test": {"test": "talent:HAB"}, "character_id": hero.pk, "label": "Saut"}
    post = services.create_post(
        table.player,
        thread,
        body="Je saute.",
        roll_requests=[request],
        client_nonce=nonce_for(table.player, table.campaign, request, [14]),
    )
    return table, hero, post, post.rolls.get()


def _xp(hero: Character) -> int:
    return ledger.balances(hero).get("xp", 0)


def test_it_lowers_the_die_with_a_new_roll_and_a_ledger_entry(scene: Any) -> None:
    table, hero, post, roll = scene
    assert roll.resolution["outcome"]["success"] is False
    before = dict(roll.resolution)
    lowered = lower_roll_die(table.player, roll, points=3)
    # 14 - 3 = 11 under 12: a success by 1; 1 XP per point (L217).
    assert lowered.post == post and lowered.sequence == roll.sequence + 1 and lowered.session is None
    assert lowered.resolution["outcome"]["die"] == 11 and lowered.resolution["outcome"]["success"] is True
    assert lowered.resolution["lowers"] == {"sequence": roll.sequence, "points": 3, "xp": 3}
    # The shared words follow the lowered die, not the stored roll (level and margin from the rules).
    assert (lowered.resolution["success"], lowered.resolution["level"], lowered.resolution["margin"]) == (
        True,
        "success",
        1,
    )
    assert lowered.resolution["summary"]["fr"].endswith(": dé 11, réussite")
    assert _xp(hero) == 7
    entry = LedgerEntry.objects.get(character=hero, kind="purchase")
    assert entry.amount == -3 and entry.data["lowers"] == roll.sequence
    # The original roll never changes and the chain still verifies.
    roll.refresh_from_db()
    assert roll.resolution == before
    assert dice.verify_chain(table.campaign)[0] is True


def test_it_refuses_more_than_the_balance_and_changes_nothing(scene: Any) -> None:
    table, hero, _post, roll = scene
    with pytest.raises(ValidationError) as exc:
        lower_roll_die(table.player, roll, points=11)
    assert "Expérience insuffisante" in str(exc.value.message_dict["points"])
    assert Roll.objects.count() == 1 and _xp(hero) == 10


@pytest.mark.parametrize("points", ["0", "-2", "beaucoup", ""])
def test_it_refuses_bad_points(scene: Any, points: str) -> None:
    table, hero, _post, roll = scene
    with pytest.raises(ValidationError) as exc:
        lower_roll_die(table.player, roll, points=points)
    assert "points" in exc.value.message_dict
    assert Roll.objects.count() == 1 and _xp(hero) == 10


def test_it_lowers_a_roll_only_once(scene: Any) -> None:
    table, hero, _post, roll = scene
    lowered = lower_roll_die(table.player, roll, points=1)
    with pytest.raises(ValidationError) as exc:
        lower_roll_die(table.player, roll, points=1)
    assert f"jet n° {lowered.sequence}" in str(exc.value.message_dict["points"])
    again = lower_roll_die(table.player, lowered, points=2)  # the lowering itself can be lowered
    assert again.resolution["outcome"]["die"] == 11 and _xp(hero) == 7


@pytest.mark.parametrize("who", ["gm", "cogm", "player2"])
def test_only_the_roller_spends_on_their_roll(scene: Any, who: str) -> None:
    table, hero, _post, roll = scene
    with pytest.raises(PermissionDenied):
        lower_roll_die(getattr(table, who), roll, points=1)
    assert Roll.objects.count() == 1 and _xp(hero) == 10


def test_outsiders_get_404(scene: Any) -> None:
    table, hero, _post, roll = scene
    with pytest.raises(Http404):
        lower_roll_die(table.outsider, roll, points=1)
    assert Roll.objects.count() == 1 and _xp(hero) == 10


def test_it_refuses_a_dice_expression(scene: Any, monkeypatch: Any) -> None:
    table, _hero, post, _roll = scene
    plain = services.create_post(table.player, post.thread, body="d6", roll_requests=[{"expression": "1d6"}])
    with pytest.raises(PermissionDenied):
        lower_roll_die(table.player, plain.rolls.get(), points=1)


def test_the_post_offers_the_form_to_the_roller_and_lowers_through_it(client: Any, scene: Any) -> None:
    table, hero, post, roll = scene
    url = reverse("characters:roll_lower", args=[roll.pk])
    thread_url = reverse("campaigns:thread", args=[post.thread_id])
    client.force_login(table.player2)
    assert url not in client.get(thread_url).content.decode()
    assert client.post(url, {"points": "1"}).status_code == 403 and Roll.objects.count() == 1
    client.force_login(table.player)
    assert url in client.get(thread_url).content.decode()
    response = client.post(url, {"points": "2"}, follow=True)
    assert "Dé abaissé de 2" in response.content.decode()
    assert _xp(hero) == 8
    page = client.get(thread_url).content.decode()
    assert url not in page  # superseded by its lowering
    assert reverse("characters:roll_lower", args=[Roll.objects.latest("sequence").pk]) in page
    bad = client.post(reverse("characters:roll_lower", args=[Roll.objects.latest("sequence").pk]), {"points": "x"})
    assert bad.status_code == 302 and _xp(hero) == 8


def test_the_view_answers_404_to_outsiders(client: Any, scene: Any) -> None:
    table, _hero, _post, roll = scene
    client.force_login(table.outsider)
    assert client.post(reverse("characters:roll_lower", args=[roll.pk]), {"points": "1"}).status_code == 404
