"""The threads a sheet's "What you can roll" panel offers (campaigns.play.roll_threads)."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services
from campaigns.models import Thread
from campaigns.play import roll_threads
from characters.models import Character
from conftest import make_table

pytestmark = pytest.mark.django_db


def test_open_threads_newest_first_the_character_s_own_first_and_locked_ones_for_the_gm(settings: Any) -> None:
    settings.TABLEE_POST_RATE = "0/m"
    table = make_table("altaride", prefix="rt")
    board = table.campaign.boards.first()
    system = table.campaign.rule_system
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.player,
        name="Iris",
        system=system.slug,
        status="approved",
        sheet=system.default_sheet(),
    )
    old = services.create_thread(table.gm, board, title="Ancien", body="Début.")
    services.create_post(table.player, old, body="Iris parle.", character=hero)
    newer = services.create_thread(table.gm, board, title="Récent", body="Début.")
    closed = services.create_thread(table.gm, board, title="Clos", body="Début.")
    Thread.objects.filter(pk=closed.pk).update(locked=True)

    listed, current = roll_threads(table.player, table.campaign, hero)
    assert [t.title for t in listed] == ["Récent", "Ancien"]  # open ones, the latest post first
    assert current.pk == old.pk  # where the character last spoke
    listed, _ = roll_threads(table.gm, table.campaign, hero)
    assert {t.title for t in listed} == {"Ancien", "Récent", "Clos"}

    # The character's latest post is in a locked thread: a player is offered the latest open thread.
    Thread.objects.filter(pk=old.pk).update(locked=True)
    listed, current = roll_threads(table.player, table.campaign, hero)
    assert [t.title for t in listed] == ["Récent"] and current.pk == newer.pk
    _, current = roll_threads(table.gm, table.campaign, hero)
    assert current.pk == old.pk
    # Someone who may not post here is offered nothing.
    assert roll_threads(table.outsider, table.campaign, hero) == ([], None)


def test_one_query_and_the_character_s_thread_even_past_the_listed_ones(
    settings: Any, django_assert_num_queries: Any
) -> None:
    from campaigns.play import ROLL_THREADS

    settings.TABLEE_POST_RATE = "0/m"
    table = make_table("altaride", prefix="ro")
    board = table.campaign.boards.first()
    system = table.campaign.rule_system

    def character(name: str) -> Character:
        return Character.objects.create(
            campaign=table.campaign,
            owner=table.player,
            name=name,
            system=system.slug,
            status="approved",
            sheet=system.default_sheet(),
        )

    hero, lou, mute = character("Iris"), character("Lou"), character("Sans-voix")
    first = services.create_thread(table.gm, board, title="Le premier", body="Début.")
    services.create_post(table.player, first, body="Iris parle.", character=hero)
    threads = [services.create_thread(table.gm, board, title=f"Fil {n}", body="Début.") for n in range(ROLL_THREADS)]
    services.create_post(table.player, threads[5], body="Lou parle.", character=lou)  # now the latest active
    roll_threads(table.player, table.campaign, lou)  # compiled once, the player's role read
    with django_assert_num_queries(1):
        listed, current = roll_threads(table.player, table.campaign, lou)
    assert len(listed) == ROLL_THREADS and current.pk == threads[5].pk == listed[0].pk
    # Iris spoke in a thread older than the listed ones: fetched, and put first.
    with django_assert_num_queries(2):
        listed, current = roll_threads(table.player, table.campaign, hero)
    assert current.pk == first.pk == listed[0].pk and len(listed) == ROLL_THREADS + 1
    # A character who never spoke: the latest active thread.
    listed, current = roll_threads(table.player, table.campaign, mute)
    assert current.pk == threads[5].pk and first.pk not in {t.pk for t in listed}
