"""A handicap a fight wrote back to a Clefs sheet shows its cause in words (Field.value_labels), in
the reader's language, on the sheet page and in the roll panel's reads."""

from __future__ import annotations

import pytest

from characters.tests.conftest import client_for, make_character
from conftest import make_table

pytestmark = pytest.mark.django_db


def test_a_cause_the_rules_wrote_reads_in_words_a_typed_one_as_typed() -> None:
    table = make_table("clefs-de-l-aube", prefix="cc")
    sheet = table.campaign.rule_system.default_sheet()
    sheet["skills"] = [{"name": "Épée", "aspect": "PH", "nc": 5}]
    sheet["conditions"] = [
        {"kind": "handicap", "value": 3, "source": "harm", "note": "entaille au bras", "active": True},
        {"kind": "handicap", "value": 1, "source": "alcool", "note": "", "active": True},
    ]
    character = make_character(table, table.player, name="Ilyane", status="approved", sheet=sheet)
    client = client_for(table.player)
    french = client.get(f"/characters/{character.pk}/").content.decode()
    assert "Blessure au combat" in french and "alcool" in french
    assert ">harm<" not in french and " harm" not in french
    profile = table.player.profile
    profile.language = "en"
    profile.save()
    english = client.get(f"/characters/{character.pk}/").content.decode()
    assert "Wound from a fight" in english and "Blessure au combat" not in english
    assert ">harm<" not in english
