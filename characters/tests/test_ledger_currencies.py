"""Issue 16: the ledger's currency is open; its values and names come from the character's system."""

from __future__ import annotations

from typing import Any

import pytest

from characters import ledger
from characters.models import LedgerEntry
from characters.read import ledger_read
from characters.tests.conftest import client_for, make_character, valid_ambre_sheet
from conftest import make_table

pytestmark = pytest.mark.django_db


def test_it_takes_only_the_systems_currencies(table: Any) -> None:
    hero = make_character(table, table.player, sheet=valid_ambre_sheet(), status="approved")  # Ambre: karma
    with pytest.raises(ValueError):
        ledger.append_entry(hero, "xp", 5, "gm_award")
    with pytest.raises(ValueError):
        ledger.append_entry(hero, "gold", 5, "gm_award")
    ledger.append_entry(hero, "karma", 5, "gm_award")
    assert ledger.balances(hero) == {"karma": 5}
    assert list(LedgerEntry.objects.values_list("currency", flat=True)) == ["karma"]
    other = make_table("altaride", prefix="cur")
    maelis = make_character(other, other.player, name="Maëlis")
    assert ledger.balances(maelis) == {"xp": 0}
    with pytest.raises(ValueError):
        ledger.append_entry(maelis, "karma", 1, "gm_award")


def test_the_currency_codes_of_all_systems_stay_readable_as_before() -> None:
    assert set(LedgerEntry.Currency.values) == {"xp", "karma"}


def test_the_ledger_read_names_currencies_in_the_readers_language(table: Any) -> None:
    hero = make_character(table, table.player, sheet=valid_ambre_sheet(), status="approved")
    ledger.append_entry(hero, "karma", -3, "purchase", note="Atout")
    read = ledger_read(table.player, hero)
    assert read is not None
    assert [(r.currency, r.label, r.amount) for r in read.rows] == [("karma", "karma", -3)]
    assert [(e.amount, e.currency_label, e.note) for e in read.entries] == [(-3, "karma", "Atout")]
    assert ledger_read(table.player2, hero) is None and ledger_read(table.spectator, hero) is None
    page = client_for(table.player).get(f"/characters/{hero.pk}/").content.decode()
    assert "karma -3" in page and "Atout" in page


def test_a_system_with_experience_shows_it_even_at_zero() -> None:
    table = make_table("clefs-de-l-aube", prefix="xp0")
    hero = make_character(table, table.player, name="Aube")
    page = client_for(table.player).get(f"/characters/{hero.pk}/").content.decode()
    assert "expérience 0" in page


def test_the_ledger_read_sums_approved_entries_only_in_two_prepared_queries(table: Any) -> None:
    """Balances count approved entries only, per currency, whoever else has entries; the latest
    entries come newest first, pending ones included; both queries compiled once per process."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from characters import read as reads

    hero = make_character(table, table.player, sheet=valid_ambre_sheet(), status="approved")
    other = make_character(table, table.player2, name="Autre", sheet=valid_ambre_sheet(), status="approved")
    ledger.append_entry(hero, "karma", 7, "gm_award")
    ledger.append_entry(hero, "karma", -2, "purchase", note="Atout")
    ledger.append_entry(hero, "karma", 40, "gm_award", approval=LedgerEntry.Approval.PENDING)
    ledger.append_entry(other, "karma", 100, "gm_award")
    hero.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        read = ledger_read(table.player, hero)
    assert read is not None
    assert [(r.currency, r.amount) for r in read.rows] == [("karma", 5)]
    assert [e.amount for e in read.entries] == [40, -2, 7]
    assert read.entries[0].approval == LedgerEntry.Approval.PENDING
    ledger_sql = [q["sql"] for q in queries.captured_queries if 'FROM "characters_ledgerentry"' in q["sql"]]
    assert len(ledger_sql) == 2
    assert "JOIN" not in ledger_sql[0]  # no join the model's ordering added
    assert list(ledger._TOTALS._shapes.values()) != [None]
    assert list(reads._latest_entries(50)._shapes.values()) != [None]
    assert [e.amount for e in ledger_read(table.player, hero, limit=2).entries] == [40, -2]
