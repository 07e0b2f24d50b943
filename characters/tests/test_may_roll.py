"""Who may roll sheet tests for a character: ``Voices.may_roll`` (read on the loaded character) gives
what ``Voices.rollable`` (the query behind the post form and the API) gives, for every role and
status; a player's own character costs no query."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns import play
from campaigns.voices import voices
from characters.models import Character
from characters.tests.conftest import make_character

pytestmark = pytest.mark.django_db


def test_may_roll_agrees_with_rollable_for_every_role_and_status(table: Any) -> None:
    characters = []
    for status in Character.Status.values:
        characters.append(make_character(table, table.player, name=f"PJ {status}", status=status))
        characters.append(make_character(table, table.gm, name=f"PNJ {status}", status=status, is_npc=True))
    readers = [table.gm, table.cogm, table.player, table.player2, table.spectator, table.moderator, table.outsider]
    seen = set()
    for reader in readers:
        listed = set(voices().rollable(reader, table.campaign).values_list("pk", flat=True))
        for character in Character.objects.filter(pk__in=[c.pk for c in characters]):
            allowed = voices().may_roll(reader, character)
            assert allowed == (character.pk in listed), (reader.username, character.name)
            assert play.can_roll_for(reader, character) == allowed
            seen.add((reader.username, character.name, allowed))
    anonymous = AnonymousUser()
    assert not any(play.can_roll_for(anonymous, c) for c in characters)
    # The rule has both answers for GMs and players (the loop above could not pass vacuously).
    assert (table.gm.username, "PNJ approved", True) in seen and (table.gm.username, "PNJ dead", False) in seen
    assert (table.player.username, "PJ approved", True) in seen and (
        table.player2.username,
        "PJ approved",
        False,
    ) in seen
    assert (table.player.username, "PJ draft", False) in seen and (table.cogm.username, "PJ approved", True) in seen


def test_a_player_s_own_character_needs_no_query(table: Any) -> None:
    mine = make_character(table, table.player, status="approved")
    mine = Character.objects.select_related("campaign").get(pk=mine.pk)
    with CaptureQueriesContext(connection) as queries:
        assert play.can_roll_for(table.player, mine)
    assert len(queries.captured_queries) == 0
