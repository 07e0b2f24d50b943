"""A purchase names the thing bought (#23): the SMS module to raise is chosen
by its name from the sheet, never typed as an index."""

from __future__ import annotations

import pytest
from django.test import Client

from characters.tests.conftest import make_character
from conftest import make_table

pytestmark = pytest.mark.django_db


def test_it_offers_the_sheets_modules_by_name() -> None:
    table = make_table("sms")
    sheet = table.campaign.rule_system.default_sheet()
    sheet["modules"] = [{"name": "Vision nocturne", "kind": "positive", "scope": 2, "rank": 1}]
    character = make_character(table, table.player, name="Sylve", status="approved", sheet=sheet)
    client = Client()
    client.force_login(table.player)
    html = client.get(f"/progression/characters/{character.pk}/?kind=raise_module").content.decode()
    assert '<option value="0">Vision nocturne</option>' in html
    assert "(index)" not in html and 'name="p-module" type="number"' not in html
