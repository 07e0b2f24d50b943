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
