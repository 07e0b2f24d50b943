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
