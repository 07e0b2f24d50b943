"""What the sheet page keeps or reads once (#21) still follows the reader's language."""

from __future__ import annotations

import threading

import pytest
from django.test import override_settings
from django.utils import translation

from campaigns import records
from characters.tests.conftest import client_for, make_character
from conftest import make_table
from rules.base import Msg

pytestmark = pytest.mark.django_db

SWORD = Msg("Épée", "Sword")


def test_one_language_reads_the_language_once_for_its_block() -> None:
    with translation.override("en"):
        with records.one_language() as code:
            assert code == "en" and records.msg(SWORD) == "Sword"
            with translation.override("fr"):  # documented: the block keeps the language it began in
                assert records.msg(SWORD) == "Sword"
        assert records.msg(SWORD) == "Sword"
        with translation.override("fr"):
            assert records.msg(SWORD) == "Épée"  # outside a block: Django's language, each time


def test_one_language_is_held_per_thread() -> None:
    seen: dict[str, str] = {}
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with translation.override("fr"):
            entered.wait(5)
            seen["other"] = records.msg(SWORD)
            release.set()

    thread = threading.Thread(target=other)
    thread.start()
    with translation.override("en"), records.one_language():
        entered.set()
        release.wait(5)
        seen["held"] = records.msg(SWORD)
    thread.join(5)
    assert seen == {"other": "Épée", "held": "Sword"}


@override_settings(TABLEE_MAX_PORTRAIT_BYTES=2 * 1024 * 1024)
def test_the_portrait_fields_follow_the_reader_s_language() -> None:
    table = make_table("altaride", prefix="pk")
    character = make_character(table, table.player, name="Maëlis", status="approved")
    client = client_for(table.player)
    french = client.get(f"/characters/{character.pk}/").content.decode()
    assert "2048&nbsp;Ko au plus" in french or "2048 Ko au plus" in french
    assert 'type="file" name="portrait" accept="image/*"' in french
    profile = table.player.profile
    profile.language = "en"
    profile.save()
    english = client.get(f"/characters/{character.pk}/").content.decode()
    assert "at most 2048 KB" in english and "au plus" not in english
    with override_settings(TABLEE_MAX_PORTRAIT_BYTES=1024 * 1024):
        assert "at most 1024 KB" in client.get(f"/characters/{character.pk}/").content.decode()


def test_the_kept_fragments_follow_each_change_of_the_sheet_and_its_ledger() -> None:
    """The sheet page's kept fragments are keyed by what they show: an award, an approved sheet
    change and a renamed thread show on the next page, never an older rendering."""
    from campaigns import services as campaign_services
    from characters import ledger
    from characters.models import Character

    table = make_table("altaride", prefix="pf")
    character = make_character(table, table.player, name="Maëlis", status="approved")
    board = table.campaign.boards.first()
    thread = campaign_services.create_thread(table.gm, board, title="Le col", body="Début.")
    client = client_for(table.player)
    url = f"/characters/{character.pk}/"
    first = client.get(url).content.decode()
    before = character.sheet.get("talents", {}).get("HAB")
    assert "Le col" in first and "expérience 0" in first and f"Habileté {before}" in first

    ledger.append_entry(character, "xp", 7, "gm_award", note="Séance 1")
    sheet = dict(character.sheet)
    sheet["talents"] = {**sheet.get("talents", {}), "HAB": before + 2}
    Character.objects.filter(pk=character.pk).update(sheet=sheet, version=character.version + 1)
    type(thread).objects.filter(pk=thread.pk).update(title="Le col enneigé")
    second = client.get(url).content.decode()
    assert "expérience 7" in second and "Séance 1" in second and "expérience 0" not in second
    assert "Le col enneigé" in second
    assert f"Habileté {before + 2}" in second and f"Habileté {before}<" not in second
