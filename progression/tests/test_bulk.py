"""The session job's set-based writes (:mod:`progression.bulk`) write what Django's own bulk
methods write: on PostgreSQL one JSON document per statement, elsewhere ``bulk_create`` and an
``UPDATE … FROM (VALUES …)``. Run on both databases (CI runs the suite on PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from characters.models import Character, LedgerEntry, SheetVersion
from progression import bulk
from progression.models import CharacterBalance
from progression.tests.conftest import make_character

pytestmark = pytest.mark.django_db

FIELDS = ["balances", "flags", "notes", "state", "entries_count", "last_entry_id", "run_id", "computed_at"]
TEXT = "Karma « é »\n\\ \"x\" 'y' {z}"


def _balance(character: Any, karma: int, **extra: Any) -> dict[str, Any]:
    return {
        "character_id": character.pk,
        "balances": {"karma": karma},
        "flags": [{"code": "negative_karma", "balance": karma}] if karma < 0 else [],
        "notes": [{"fr": TEXT, "en": "Karma"}],
        "state": {"karma_state": {"state": "good"}, **extra},
        "entries_count": 3,
        "last_entry_id": 2**40,
        "run_id": None,
    }


def test_it_inserts_then_updates_on_conflict(table: Any) -> None:
    alice, bob = make_character(table, table.player, "Alice"), make_character(table, table.player2, "Bob")
    bulk.insert_rows(CharacterBalance, [_balance(alice, 5), _balance(bob, -2)], conflict=["character"], update=FIELDS)
    first = dict(CharacterBalance.objects.values_list("character_id", "computed_at"))
    start = timezone.now()
    bulk.insert_rows(CharacterBalance, [_balance(alice, 9, ranks={"psy": 1})], conflict=["character"], update=FIELDS)
    rows = {b.character_id: b for b in CharacterBalance.objects.all()}
    assert rows[alice.pk].balances == {"karma": 9} and rows[alice.pk].state["ranks"] == {"psy": 1}
    assert rows[alice.pk].notes == [{"fr": TEXT, "en": "Karma"}]  # text survives as it is
    assert rows[alice.pk].last_entry_id == 2**40
    # As bulk_create does: an auto_now field takes the time of the write.
    assert start <= rows[alice.pk].computed_at <= timezone.now() and rows[bob.pk].computed_at == first[bob.pk]
    assert rows[bob.pk].balances == {"karma": -2}
    assert rows[bob.pk].flags == [{"code": "negative_karma", "balance": -2}]


def test_it_ignores_a_conflict_without_update_fields(table: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    row = {
        "character_id": alice.pk,
        "currency": "karma",
        "amount": 3,
        "kind": "gm_award",
        "session_id": None,
        "created_by_id": table.gm.pk,
        "note": "once",
        "data": {"award_line": 1},
        "key": "progression:award:test-1",
        "approval": "approved",
    }
    bulk.insert_rows(LedgerEntry, [row], conflict=["key"])
    bulk.insert_rows(LedgerEntry, [{**row, "amount": 99}, {**row, "key": "progression:award:test-2"}], conflict=["key"])
    assert sorted(LedgerEntry.objects.filter(character=alice).values_list("key", "amount")) == [
        ("progression:award:test-1", 3),
        ("progression:award:test-2", 3),
    ]


def test_it_updates_many_rows_to_different_values(table: Any) -> None:
    cast = [make_character(table, table.player, f"PJ {n}") for n in range(3)]
    when = timezone.now().replace(microsecond=654321)
    rows = [{"id": c.pk, "sheet": {"n": n, "t": TEXT}, "version": 7 + n, "updated": when} for n, c in enumerate(cast)]
    bulk.update_rows(Character, "id", rows)
    for n, character in enumerate(cast):
        character.refresh_from_db()  # an update writes the values given, to the microsecond
        assert (character.sheet, character.version, character.updated) == ({"n": n, "t": TEXT}, 7 + n, when)
    with pytest.raises(ValueError):
        bulk.update_rows(Character, "id", [{"version": 1}])


def test_it_writes_an_append_only_history_row(table: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    start = timezone.now()
    row = {
        "character_id": alice.pk,
        "version": 2,
        "name": alice.name,
        "sheet": {"a": [1, None, True]},
        "schema_version": 1,
        "status": alice.status,
        "author_id": None,
        "reason": "progression",
    }
    bulk.insert_rows(SheetVersion, [row])
    stored = SheetVersion.objects.get(character=alice, version=2)
    assert stored.sheet == {"a": [1, None, True]} and stored.created >= start and stored.author_id is None


def test_it_writes_a_batch_in_one_statement(table: Any, django_assert_num_queries: Any) -> None:
    cast = [make_character(table, table.player, f"PJ {n}") for n in range(5)]
    with django_assert_num_queries(1) as captured:
        bulk.insert_rows(
            CharacterBalance, [_balance(c, n) for n, c in enumerate(cast)], conflict=["character"], update=FIELDS
        )
    if connection.vendor == "postgresql":
        assert "jsonb_to_recordset" in captured.captured_queries[0]["sql"]
    assert sorted(CharacterBalance.objects.values_list("balances", flat=True), key=str) == [
        {"karma": n} for n in range(5)
    ]
