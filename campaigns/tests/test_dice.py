"""Rolls: stored immutably, chained per campaign, verified; tampering detected."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from campaigns import dice, services
from campaigns.models import ImmutableRecordError, Post, Roll

pytestmark = pytest.mark.django_db


def test_it_rolls_an_expression_and_chains_it(table: Any, thread: Any) -> None:
    post = services.create_post(
        table.player, thread, body="J'attaque !", roll_requests=[{"expression": "2d6+3", "label": "Épée"}]
    )
    roll = post.rolls.get()
    assert roll.kind == "expression"
    assert roll.label == "Épée"
    assert roll.request == {"expression": "2d6+3"}
    assert len(roll.resolution["draws"]) == 2
    assert all(1 <= d <= 6 for d in roll.resolution["draws"])
    assert roll.resolution["outcome"]["total"] == sum(roll.resolution["draws"]) + 3
    assert roll.sequence == 1 and roll.prev_hash == dice.GENESIS
    assert roll.roller == table.player
    second = services.create_post(table.player2, thread, body="Moi aussi", roll_requests=[{"expression": "1d20"}])
    roll2 = second.rolls.get()
    assert roll2.sequence == 2 and roll2.prev_hash == roll.hash
    assert dice.verify_chain(table.campaign) == (True, [])


def test_it_never_edits_or_deletes_a_roll(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "1d20"}])
    roll = post.rolls.get()
    roll.label = "changed"
    with pytest.raises(ImmutableRecordError):
        roll.save()
    with pytest.raises(ImmutableRecordError):
        roll.delete()
    services.edit_post(table.player, post, body="Jet (corrigé)")
    fresh = Roll.objects.get(pk=roll.pk)
    assert fresh.label == "" and fresh.hash == roll.hash and fresh.post_id == post.pk


@pytest.mark.parametrize("field,value", [("resolution", {"draws": [20]}), ("label", "x"), ("secret", True)])
def test_it_detects_a_tampered_roll(table: Any, thread: Any, field: str, value: Any) -> None:
    for _ in range(3):
        services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "1d20"}])
    middle = Roll.objects.get(campaign=table.campaign, sequence=2)
    Roll._base_manager.filter(pk=middle.pk).update(**{field: value})  # bypasses save(): a raw database edit
    ok, problems = dice.verify_chain(table.campaign)
    assert not ok
    assert any("#2" in p and "altered" in p for p in problems)


def test_it_detects_a_removed_roll(table: Any, thread: Any) -> None:
    for _ in range(3):
        services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "1d6"}])
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM campaigns_roll WHERE sequence = 2")
    ok, problems = dice.verify_chain(table.campaign)
    assert not ok
    assert any("missing" in p for p in problems)


def test_it_verifies_an_export_without_secret_content(table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "1d6", "secret": True}])
    services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "1d8"}])
    rows = dice.export_chain(table.campaign, can_see=lambda roll: not roll.secret)
    assert "content" not in rows[0] and "body_digest" in rows[0]
    assert rows[1]["content"]["request"] == {"expression": "1d8"}
    seeds = dice.export_seeds(table.campaign)
    assert dice.verify_export(rows, seeds) == (True, [])
    rows[1]["content"]["resolution"]["draws"] = [9]
    assert dice.verify_export(rows, seeds)[0] is False


def test_it_refuses_a_malformed_expression_and_saves_nothing(table: Any, thread: Any) -> None:
    with pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "2d6+"}])
    assert "rolls" in exc.value.message_dict
    assert "invalide" in exc.value.message_dict["rolls"][0]
    assert Post.objects.filter(thread=thread).count() == 1
    assert Roll.objects.count() == 0


def test_it_resolves_a_system_test_with_odds(make_alt: Any) -> None:
    table, thread = make_alt
    post = services.create_post(
        table.gm, thread, body="Test", roll_requests=[{"system_test": {"kind": "test", "target": 12}}]
    )
    roll = post.rolls.get()
    assert roll.kind == "system" and roll.system == "altaride"
    assert roll.resolution["odds"]["success"] == pytest.approx(0.6)
    assert roll.resolution["draws"][0] == roll.resolution["outcome"]["natural"]


def test_it_refuses_a_bad_system_test(make_alt: Any) -> None:
    table, thread = make_alt
    with pytest.raises(ValidationError) as exc:
        services.create_post(table.gm, thread, body="Test", roll_requests=[{"system_test": {"kind": "nope"}}])
    assert exc.value.message_dict["rolls"]
    assert Roll.objects.count() == 0


@pytest.fixture
def make_alt(db: Any) -> Any:
    from conftest import make_table

    table = make_table("altaride", prefix="alt")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="Scène", body="Début")
    return table, thread
